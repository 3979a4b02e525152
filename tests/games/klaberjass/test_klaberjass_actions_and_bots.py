"""Action text forms and the bots playing whole games (K-R5 .. K-R21)."""

from __future__ import annotations

import random

import pytest

from engine_service.games.klaberjass.actions import parse_action
from engine_service.games.klaberjass.rules import KlaberjassRules
from engine_service.registry import REGISTRY

TEXTS = "trump H|pass|dix swap|dix keep|play KH|play QS no-bella|play KS no-bella no-sequences"
MALFORMED = "trump|trump X|trump CD|dix|dix maybe|play|play KH KH|play KH no-bella no-bella|bid H"


@pytest.mark.parametrize("text", TEXTS.split("|"))
def test_k_r5_k_r11_k_r15_action_text_reads_back(text: str) -> None:
    assert str(parse_action(text)) == text


@pytest.mark.parametrize("text", MALFORMED.split("|"))
def test_malformed_action_text_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_action(text)


@pytest.mark.parametrize("seed", [21, 22])
def test_k_r21_the_heuristic_bot_plays_whole_legal_games_against_random(seed: int) -> None:
    spec = REGISTRY["klaberjass"]
    rules = KlaberjassRules()
    bots = [spec.bots["heuristic"], spec.bots["random"]]
    rng = random.Random(seed)
    state = rules.new_game(seed)
    while rules.outcome(state) is None:
        seat = state.turn
        legal = rules.legal_actions(state, seat)
        action = bots[seat].choose(rules.view(state, seat), legal, rng)
        assert action in legal
        state = rules.apply(state, seat, action)
