"""Every registered game, played many times by bots under every conformance check.

Each game draws its own rule set (every choice option at random, integer options from the
adapter's ranges), its own seed and its own mix of the game's bots, so the games spread over
the variants. The adapter's ranges keep these games short (Hearts: targets 1..20), so that
thousands fit in the time budget; a few full-length games keep the integer options at their
defaults (Hearts: to 100). ``make test`` plays a share of each series (:mod:`tests.volume`),
``make test-deep`` all of it; ``CONFORMANCE_GAMES`` overrides how many short games each game
plays.
"""

from __future__ import annotations

import os
import random
from collections.abc import Mapping

import pytest
from cardengine.v1 import game_pb2

from engine_service.codec.registry import CODECS
from engine_service.registry import REGISTRY
from tests.conformance.adapter import cards_anywhere, cards_in_message
from tests.conformance.checks import (
    BotChooser,
    CheckedGame,
    adapter_for,
    registered_games,
    tiny_search,
)
from tests.conformance.options import random_config
from tests.volume import volume

pytestmark = pytest.mark.volume

GAMES_ENV = "CONFORMANCE_GAMES"
FULL_LENGTH_GAMES = volume(4, 20)
VIEW_WALK_GAMES = volume(2, 5)


def short_games(name: str) -> int:
    return int(os.environ.get(GAMES_ENV, adapter_for(name).random_games))


def full_length_games(name: str) -> int:
    """``FULL_LENGTH_GAMES``, unless the adapter sets ``full_length_games``.

    A game whose integer options do not shorten it (Guandan: a match is as long either way)
    sets fewer, so that the suite's time goes to the random rule sets.
    """
    return int(getattr(adapter_for(name), "full_length_games", FULL_LENGTH_GAMES))


def default_int_ranges(name: str) -> dict[str, tuple[int, int]]:
    """Every integer option pinned to its default, for full-length games."""
    return {
        spec_option.name: (int(spec_option.default), int(spec_option.default))
        for spec_option in REGISTRY[name].options
        if spec_option.kind == "int"
    }


def new_game(
    name: str, label: str, index: int, int_ranges: Mapping[str, tuple[int, int]] | None = None
) -> tuple[CheckedGame, BotChooser, random.Random]:
    """Game ``index`` of a series: its config, seed, bots and moves all follow from the three."""
    rng = random.Random(f"conformance:{name}:{label}:{index}")
    spec = tiny_search(REGISTRY[name])
    adapter = adapter_for(name)
    config = random_config(spec, int_ranges or adapter.int_ranges, rng)
    bots = [spec.bots[rng.choice(sorted(spec.bots))] for _ in range(spec.seats)]
    game = CheckedGame(spec, adapter, config, seed=rng.randrange(2**32))
    return game, BotChooser(bots, game.rules), rng


def play_out(game: CheckedGame, chooser: BotChooser, rng: random.Random, label: str) -> None:
    try:
        while not game.finished:
            game.step(chooser, rng)
        game.finish()
    except Exception as error:
        # Name the game so that the failure can be replayed alone.
        raise AssertionError(f"{label} ({game.describe()}): {error!r}") from error


@pytest.mark.parametrize("name", registered_games())
def test_registered_game_has_an_adapter(name: str) -> None:
    adapter_for(name)


@pytest.mark.parametrize("name", registered_games())
def test_every_integer_option_has_a_random_range(name: str) -> None:
    adapter = adapter_for(name)
    for spec_option in REGISTRY[name].options:
        if spec_option.kind == "int":
            assert spec_option.name in adapter.int_ranges, spec_option.name


@pytest.mark.parametrize("name", registered_games())
def test_short_random_games_keep_every_invariant(name: str) -> None:
    for index in range(short_games(name)):
        game, chooser, rng = new_game(name, "short", index)
        play_out(game, chooser, rng, f"{name} short game #{index}")


@pytest.mark.parametrize("name", registered_games())
def test_full_length_random_games_keep_every_invariant(name: str) -> None:
    for index in range(full_length_games(name)):
        game, chooser, rng = new_game(name, "full", index, default_int_ranges(name))
        play_out(game, chooser, rng, f"{name} full-length game #{index}")


@pytest.mark.parametrize("name", registered_games())
def test_visible_cards_finds_every_card_in_a_view(name: str) -> None:
    """The adapter's fast ``visible_cards`` must not miss a view field that holds cards.

    Cards are looked for in the view's fields and in its encoded message, which also finds
    cards kept as plain ints (Guandan's card kinds).
    """
    codec = CODECS[name]
    for index in range(VIEW_WALK_GAMES):
        game, chooser, rng = new_game(name, "views", index)
        while not game.finished:
            for seat in (*range(game.rules.seats), None):
                view = game.rules.view(game.state, seat)
                message = game_pb2.GameView()
                codec.encode_view(view, game.config, message)
                found = set(cards_anywhere(view)) | set(cards_in_message(message))
                visible = game.adapter.visible_cards(view)
                assert found == {card_id.card for card_id in visible}
            game.step(chooser, rng)
