"""G-R17a: every card a seat plays stays public for the rest of the deal.

The state keeps each seat's plays of the deal; the views show them to every seat and to
spectators; the snapshot stores them, and a snapshot stored before it did is read back with
the plays worked out from the shuffle, hands and tribute.
"""

from __future__ import annotations

import random
from itertools import pairwise

from cardengine.v1 import game_pb2

from engine_service.codec.cards import decode_kind
from engine_service.codec.guandan import GuandanCodec
from engine_service.games.guandan.actions import PassTurn
from engine_service.games.guandan.cards import KIND_COUNT, deck, hand_of, kinds_in
from engine_service.games.guandan.dealing import plays_since_dealt
from engine_service.games.guandan.rules import GuandanRules
from engine_service.games.guandan.state import NO_PLAYS, SEATS, GuandanState, Phase
from engine_service.storage_pb import snapshot_pb2

RULES = GuandanRules()
CODEC = GuandanCodec()
MAX_MOVES = 4000


def _match(seed: int) -> list[GuandanState]:
    """Every state of a random match that mostly plays (so deals end), to its end."""
    rng = random.Random(seed)
    state = RULES.new_game(seed)
    states = [state]
    for _ in range(MAX_MOVES):
        seats = RULES.current_seats(state)
        if not seats:
            break
        legal = list(RULES.legal_actions(state, seats[0]))
        plays = [a for a in legal if not isinstance(a, PassTurn)]
        state = RULES.apply(state, seats[0], rng.choice(plays if plays else legal))
        states.append(state)
    assert state.phase is Phase.GAME_OVER
    return states


def _stored(state: GuandanState) -> snapshot_pb2.GameRecord:
    record = snapshot_pb2.GameRecord(seed=state.seed)
    CODEC.encode_state(state, record)
    return record


def test_g_r17a_plays_and_hands_add_up_to_the_deck_and_reset_each_deal() -> None:
    states = _match(5)
    assert len({s.deal_number for s in states}) > 2
    for before, after in pairwise(states):
        if after.deal_number != before.deal_number:
            assert after.played == NO_PLAYS
            continue
        total = [0] * KIND_COUNT
        for hand in (*after.hands, *after.played):
            for kind, n in enumerate(hand):
                total[kind] += n
        assert tuple(total) == hand_of(deck())
        assert after.played == plays_since_dealt(after)


def test_g_r17a_every_viewer_sees_every_seats_plays() -> None:
    state = next(
        s
        for s in _match(7)
        if s.deal_number == 1 and s.phase is Phase.PLAYING and all(sum(hand) for hand in s.played)
    )
    expected = tuple(kinds_in(hand) for hand in state.played)
    for viewer in (*range(SEATS), None):
        view = RULES.view(state, viewer)
        assert view.played == expected
        out = game_pb2.GameView()
        CODEC.encode_view(view, RULES.config, out)
        shown = tuple(
            tuple(decode_kind(card, "played") for card in seat.cards) for seat in out.guandan.played
        )
        assert shown == expected


def test_g_r17a_the_snapshot_keeps_the_plays_and_old_snapshots_get_them_from_the_shuffle() -> None:
    states = _match(11)
    returning = [s for s in states if s.phase is Phase.RETURNING]
    assert returning
    for state in [*states[::7], *returning, states[-1]]:
        record = _stored(state)
        assert CODEC.decode_state(record) == state
        record.guandan.ClearField("played")  # as stored before the field existed
        assert CODEC.decode_state(record) == state
