"""Seat views and the action log through the service: no leaks, exact replay."""

from __future__ import annotations

import random

import pytest
from cardengine.v1 import cards_pb2
from cardengine.v1 import engine_service_pb2 as api
from google.protobuf.message import Message

from engine_service.core.cards import cards_in
from engine_service.games.hearts.state import Phase
from tests.service.rpc_helpers import (
    HEURISTIC,
    HUMAN,
    RANDOM,
    create,
    finish,
    play_randomly,
    replayed,
    stored_state,
    token_md,
    tokens_of,
    view,
)
from tests.volume import volume

PREVIOUS_DEAL_FIELDS = frozenset({"previous_hand", "previous_deal"})
"""View fields that show the deal that just ended: its cards were all played in the open and
may now sit, as new cards, in hidden hands, so the current deal's secrets do not apply."""


def cards_anywhere(message: Message) -> set[int]:
    """Every card number in any field, at any depth, of a message, except the ended deal's."""
    found: set[int] = set()
    for field, value in message.ListFields():
        if field.message_type is None or field.name in PREVIOUS_DEAL_FIELDS:
            continue
        values = value if field.is_repeated else [value]
        for item in values:
            if isinstance(item, cards_pb2.Card):
                found.add((item.suit - 1) * 13 + item.rank - 2)
            else:
                found |= cards_anywhere(item)
    return found


def hidden_from(state, viewer: int | None) -> set[int]:
    """Cards in other seats' hands, except those the viewer itself passed to them."""
    hidden = set()
    for seat, hand in enumerate(state.hands):
        if seat != viewer:
            hidden |= {int(c) for c in cards_in(hand)}
    if viewer is not None and state.phase is Phase.PLAYING:
        hidden -= {int(c) for c in cards_in(state.passed[viewer])}
    return hidden


@pytest.mark.volume
def test_views_of_random_games_hold_no_card_of_another_seat(stub, redis_client):
    """200 games in make test, 1,000 in make test-deep."""
    rng = random.Random(2024)
    checked = 0
    games = volume(200, 1000)
    for game_number in range(games):
        bots = [rng.choice([RANDOM, HEURISTIC]) for _ in range(3)]
        created = create(stub, [HUMAN, *bots], seed=game_number)
        token = tokens_of(created)[0]
        seat_view = play_randomly(stub, created.game_id, 0, token, rng, rng.randrange(0, 16))
        state = stored_state(redis_client, created.game_id)
        assert not cards_anywhere(seat_view) & hidden_from(state, 0)
        spectator = view(stub, created.game_id)
        assert not cards_anywhere(spectator) & hidden_from(state, None)
        checked += 2
    assert checked == 2 * games


def test_action_log_hides_other_passes_until_the_end_then_replays_exactly(stub, redis_client):
    created = create(stub, [HUMAN, HEURISTIC, HEURISTIC, HEURISTIC], seed=99, target=30)
    token = tokens_of(created)[0]
    request = api.GetActionLogRequest(game_id=created.game_id, seat=0)
    running = stub.GetActionLog(request, metadata=token_md(token))
    assert not running.HasField("seed")
    redacted = [e for e in running.entries if e.redacted]
    assert {e.seat for e in redacted} == {1, 2, 3}
    assert all(not e.HasField("action") for e in redacted)

    seat_view = finish(stub, created.game_id, 0, token)

    finished = stub.GetActionLog(api.GetActionLogRequest(game_id=created.game_id))
    assert finished.HasField("seed") and finished.seed == 99
    assert not any(e.redacted for e in finished.entries)
    assert finished.version == seat_view.version == len(finished.entries) + 1

    assert replayed(finished, "hearts") == stored_state(redis_client, created.game_id)
