"""The terminal game against search bots (``--bots search``), on servers with tiny budgets.

The default search budget costs about 50 ms of CPU a move, so these servers make two playouts
a decision, or take the search bot off Hearts to see the terminal refuse what is not offered.
"""

from __future__ import annotations

import io

import pytest
from cardengine_client import EngineClient
from cardengine_client.terminal import PlayerQuit, play

from engine_service.devtools.local import local_service

pytestmark = pytest.mark.service

MOVES = 4
"""The person's moves before quitting: the pass and a few cards, enough to see bots move."""


def scripted(moves: int, *first: str):
    """An input_fn giving ``first``, then taking the first choice ``moves`` times, then quitting."""
    answers = [*first] + ["1"] * moves

    def input_fn(prompt: str) -> str:
        return answers.pop(0) if answers else "quit"

    return input_fn


def test_the_person_plays_against_search_bots(redis_url):
    output = io.StringIO()
    with (
        local_service(redis_url, search_budgets=("hearts=2",)) as address,
        EngineClient(address) as client,
        pytest.raises(PlayerQuit),
    ):
        play(client, input_fn=scripted(MOVES), output=output, seed=3, bots="search")
    text = output.getvalue()
    assert "(search bot)" in text
    assert "Refused" not in text


def test_a_game_without_search_bots_is_reported_and_gives_no_hint(redis_url):
    output = io.StringIO()
    with (
        local_service(redis_url, search_budgets=("hearts=0",)) as address,
        EngineClient(address) as client,
    ):
        with pytest.raises(ValueError, match="offers no search bot"):
            play(client, input_fn=scripted(0), output=io.StringIO(), bots="search")
        with pytest.raises(PlayerQuit):
            play(client, input_fn=scripted(0, "hint"), output=output, seed=3)
    assert "No hint: " in output.getvalue()
    assert "[NO_SEARCH_BOT]" in output.getvalue()
