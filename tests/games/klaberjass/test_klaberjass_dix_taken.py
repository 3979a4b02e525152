"""K-R11: the turn-up a dix swap took stays public in the state, the snapshot and every view.

Before a swap every seat saw the turn-up face up; afterwards ``turn_up`` is the trump 7, so
the state keeps the card taken as ``dix_taken`` until the next deal.
"""

from __future__ import annotations

from cardengine.v1 import game_pb2
from klaberjass_positions import act

from engine_service.codec.cards import decode_card
from engine_service.codec.klaberjass import KlaberjassCodec
from engine_service.games.klaberjass.actions import Dix
from engine_service.games.klaberjass.rules import KlaberjassRules
from engine_service.games.klaberjass.state import KlaberjassState, Phase
from engine_service.storage_pb import snapshot_pb2

RULES = KlaberjassRules()
CODEC = KlaberjassCodec()
VIEWERS = (0, 1, None)


def swap() -> tuple[KlaberjassState, KlaberjassState]:
    """The first seeded deal with a possible swap: the state at the swap and just after it."""
    for seed in range(200):
        state = RULES.new_game(seed)
        state = act(RULES, state, f"trump {state.turn_up.suit.letter}")
        while state.phase is Phase.DIX:
            if Dix(swap=True) in RULES.legal_actions(state, state.turn):
                return state, RULES.apply(state, state.turn, Dix(swap=True))
            state = RULES.apply(state, state.turn, Dix(swap=False))
    raise AssertionError("no seed lets a seat swap")


def stored(state: KlaberjassState) -> snapshot_pb2.GameRecord:
    record = snapshot_pb2.GameRecord(seed=state.seed)
    CODEC.encode_state(state, record)
    return record


def encoded_view(state: KlaberjassState, seat: int | None) -> game_pb2.GameView:
    out = game_pb2.GameView()
    CODEC.encode_view(RULES.view(state, seat), RULES.config, out)
    return out


def next_deal(state: KlaberjassState) -> KlaberjassState:
    """Play the first legal move until the next deal (or the end of the game)."""
    deal = state.deal_number
    while state.deal_number == deal and state.phase is not Phase.GAME_OVER:
        state = RULES.apply(state, state.turn, RULES.legal_actions(state, state.turn)[0])
    return state


def test_k_r11_the_state_keeps_the_turn_up_a_swap_took_until_the_next_deal() -> None:
    before, after = swap()
    assert before.dix_taken is None
    assert after.dix_taken == before.turn_up and after.dix_by == before.turn
    assert after.hands[before.turn] >> before.turn_up & 1
    later = next_deal(after)
    assert later.deal_number == after.deal_number + 1 and later.dix_taken is None


def test_k_r11_a_kept_hand_takes_nothing() -> None:
    before, _ = swap()
    kept = RULES.apply(before, before.turn, Dix(swap=False))
    assert kept.dix_by is None and kept.dix_taken is None


def test_k_r11_a_snapshot_round_trips_the_card_taken() -> None:
    before, after = swap()
    record = stored(after)
    assert record.klaberjass.HasField("dix_taken")
    assert CODEC.decode_state(record) == after
    assert not stored(before).klaberjass.HasField("dix_taken")
    assert CODEC.decode_state(stored(before)) == before


def test_k_r11_a_snapshot_stored_without_the_field_derives_it_from_the_seed() -> None:
    """Snapshots written before ``dix_taken`` existed: the deal order gives the turn-up again."""
    _, after = swap()
    old = stored(after)
    old.klaberjass.ClearField("dix_taken")
    assert CODEC.decode_state(old) == after
    played = RULES.apply(after, after.turn, RULES.legal_actions(after, after.turn)[0])
    old = stored(played)
    old.klaberjass.ClearField("dix_taken")
    assert CODEC.decode_state(old) == played


def test_k_r11_both_seats_and_spectators_see_the_card_taken() -> None:
    before, after = swap()
    taken = before.turn_up
    for seat in VIEWERS:
        assert RULES.view(before, seat).dix_taken is None
        assert not encoded_view(before, seat).klaberjass.HasField("dix_taken")
        assert RULES.view(after, seat).dix_taken == taken
        shown = encoded_view(after, seat).klaberjass
        assert decode_card(shown.dix_taken, "dix_taken") == taken
        assert decode_card(shown.turn_up, "turn_up") == after.turn_up != taken


def test_k_r11_the_card_taken_stays_shown_once_played() -> None:
    _, state = swap()
    swapper = state.dix_by
    assert swapper is not None and state.dix_taken is not None
    while state.hands[swapper] >> state.dix_taken & 1:
        state = RULES.apply(state, state.turn, RULES.legal_actions(state, state.turn)[-1])
    assert state.played[swapper] >> state.dix_taken & 1
    for seat in VIEWERS:
        assert RULES.view(state, seat).dix_taken == state.dix_taken
