"""Guandan values between the domain and ``cardengine.v1.guandan`` / the stored snapshot.

Cards travel as :func:`~engine_service.codec.cards.encode_kind` protos (jokers have no suit);
the snapshot keeps card kinds and seats one byte each.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Final

from cardengine.v1 import cards_pb2, game_pb2, guandan_pb2

from engine_service.codec.cards import (
    decode_kind,
    decode_kind_rank,
    decode_kinds,
    encode_kind,
    encode_kinds,
)
from engine_service.codec.listing import list_actions
from engine_service.codec.options import decode_options, encode_options
from engine_service.core.errors import MalformedRequest
from engine_service.games.guandan.actions import GuandanAction, PassTurn, PlayCards, ReturnCard
from engine_service.games.guandan.cards import COPIES, KIND_COUNT, hand_of, kinds_in
from engine_service.games.guandan.config import GuandanConfig
from engine_service.games.guandan.dealing import plays_since_dealt
from engine_service.games.guandan.events import (
    AntiTribute,
    CardReturned,
    CardsDealt,
    CardsPlayed,
    DealEnded,
    DealStarted,
    LevelChanged,
    MatchOver,
    PlayerFinished,
    ReturnChosen,
    TributePaid,
    TrickWon,
    TurnPassed,
)
from engine_service.games.guandan.reading import Reading, Shape
from engine_service.games.guandan.state import (
    NO_PLAYS,
    DealResult,
    GuandanState,
    Phase,
    RoundEntry,
    TopPlay,
    Tribute,
)
from engine_service.games.guandan.view import GuandanView
from engine_service.storage_pb import guandan_state_pb2, snapshot_pb2

_SHAPE_PREFIX: Final = "SHAPE_"
_SHAPES: Final[Mapping[Shape, guandan_pb2.GuandanReading.Shape.ValueType]] = {
    Shape(name.removeprefix(_SHAPE_PREFIX).lower()): number
    for name, number in guandan_pb2.GuandanReading.Shape.items()
    if number
}
_SHAPES_BY_NUMBER: Final = {number: shape for shape, number in _SHAPES.items()}
_MAX_PLAY: Final = 10
"""The most cards one play can hold (a bomb of eight naturals and both wilds, G-R14)."""


def encode_reading(reading: Reading) -> guandan_pb2.GuandanReading:
    """The proto of a reading; its rank enum numbers are the natural ranks."""
    return guandan_pb2.GuandanReading(
        shape=_SHAPES[reading.shape],
        rank=cards_pb2.Rank.ValueType(reading.rank),
        size=reading.size,
    )


def decode_reading(message: guandan_pb2.GuandanReading, field_path: str) -> Reading:
    """The reading a client declared, checked for form (the rules judge whether cards fit it).

    Raises:
        MalformedRequest: an unset or unknown shape, rank or a size no play can have.
    """
    shape = _SHAPES_BY_NUMBER.get(message.shape)
    if shape is None:
        raise MalformedRequest(f"{field_path}.shape", "must be a named shape")
    rank = decode_kind_rank(int(message.rank), f"{field_path}.rank")
    if not 1 <= message.size <= _MAX_PLAY:
        raise MalformedRequest(f"{field_path}.size", f"must be 1 to {_MAX_PLAY}")
    return Reading(shape, rank, message.size)


def _decode_play(message: guandan_pb2.GuandanPlay) -> PlayCards:
    path = "action.guandan.play"
    if not message.cards:
        raise MalformedRequest(f"{path}.cards", "must list the cards played")
    if not message.HasField("reading"):
        raise MalformedRequest(f"{path}.reading", "must say what the cards count as (G-R13)")
    cards = decode_kinds(message.cards, f"{path}.cards", _MAX_PLAY)
    if max(Counter(cards).values()) > COPIES:
        raise MalformedRequest(f"{path}.cards", f"lists a card more than {COPIES} times")
    return PlayCards.of(cards, decode_reading(message.reading, f"{path}.reading"))


def _encode_top(top: TopPlay) -> guandan_pb2.GuandanTopPlay:
    return guandan_pb2.GuandanTopPlay(
        seat=top.seat, cards=encode_kinds(top.cards), reading=encode_reading(top.reading)
    )


def _encode_tribute(tribute: Tribute) -> guandan_pb2.GuandanTribute:
    message = guandan_pb2.GuandanTribute(
        payer=tribute.payer, receiver=tribute.receiver, card=encode_kind(tribute.card)
    )
    if tribute.returned is not None:
        message.returned.CopyFrom(encode_kind(tribute.returned))
    return message


def _ranks(levels: Sequence[int]) -> list[cards_pb2.Rank.ValueType]:
    return [cards_pb2.Rank.ValueType(level) for level in levels]


def _encode_entry(entry: RoundEntry) -> guandan_pb2.GuandanRoundEntry:
    if entry.reading is None:
        return guandan_pb2.GuandanRoundEntry(
            seat=entry.seat, pass_turn=guandan_pb2.GuandanPassTurn()
        )
    play = guandan_pb2.GuandanPlay(
        cards=encode_kinds(entry.cards), reading=encode_reading(entry.reading)
    )
    return guandan_pb2.GuandanRoundEntry(seat=entry.seat, play=play)


def _encode_result(result: DealResult) -> guandan_pb2.GuandanDealResult:
    return guandan_pb2.GuandanDealResult(
        deal_number=result.deal_number,
        level=cards_pb2.Rank.ValueType(result.level),
        order=result.order,
        team=result.team,
        steps=result.steps,
        levels_before=_ranks(result.levels_before),
        levels=_ranks(result.levels),
        last_plays=[_encode_entry(entry) for entry in result.last_plays],
    )


def _event_message(fact: object) -> guandan_pb2.GuandanEvent:
    """The ``GuandanEvent`` of one event value.

    Raises:
        TypeError: ``fact`` is no Guandan event.
    """
    event = guandan_pb2.GuandanEvent
    match fact:
        case CardsPlayed(seat, cards, reading):
            played = guandan_pb2.GuandanCardsPlayed(
                seat=seat, cards=encode_kinds(cards), reading=encode_reading(reading)
            )
            return event(cards_played=played)
        case TurnPassed(seat):
            return event(turn_passed=guandan_pb2.GuandanTurnPassed(seat=seat))
        case TrickWon(winner, leader):
            return event(trick_won=guandan_pb2.GuandanTrickWon(winner=winner, leader=leader))
        case PlayerFinished(seat, place):
            return event(player_finished=guandan_pb2.GuandanPlayerFinished(seat=seat, place=place))
        case DealEnded(deal_number, order, team, steps, levels):
            ended = guandan_pb2.GuandanDealEnded(
                deal_number=deal_number, order=order, team=team, steps=steps, levels=_ranks(levels)
            )
            return event(deal_ended=ended)
        case LevelChanged(team, before, after):
            changed = guandan_pb2.GuandanLevelChanged(
                team=team,
                before=cards_pb2.Rank.ValueType(before),
                after=cards_pb2.Rank.ValueType(after),
            )
            return event(level_changed=changed)
        case DealStarted(deal_number, level, declarer, leader):
            started = guandan_pb2.GuandanDealStarted(
                deal_number=deal_number,
                level=cards_pb2.Rank.ValueType(level),
                declarer=declarer,
                leader=leader,
            )
            return event(deal_started=started)
        case CardsDealt(seat, cards):
            dealt = guandan_pb2.GuandanCardsDealt(seat=seat, cards=encode_kinds(cards))
            return event(cards_dealt=dealt)
        case TributePaid(payer, receiver, card):
            paid = guandan_pb2.GuandanTributePaid(
                payer=payer, receiver=receiver, card=encode_kind(card)
            )
            return event(tribute_paid=paid)
        case AntiTribute(payers, holders):
            anti = guandan_pb2.GuandanAntiTribute(payers=payers, red_joker_holders=holders)
            return event(anti_tribute=anti)
        case ReturnChosen(returner, payer, card):
            chosen = guandan_pb2.GuandanReturnChosen(
                returner=returner, payer=payer, card=encode_kind(card)
            )
            return event(return_chosen=chosen)
        case CardReturned(returner, payer, card):
            returned = guandan_pb2.GuandanCardReturned(
                returner=returner, payer=payer, card=encode_kind(card)
            )
            return event(card_returned=returned)
        case MatchOver(winners):
            return event(match_over=guandan_pb2.GuandanMatchOver(winners=winners))
    raise TypeError(f"no guandan event: {fact!r}")


def _store_entry(entry: RoundEntry) -> guandan_state_pb2.GuandanStoredPlay:
    stored = guandan_state_pb2.GuandanStoredPlay(seat=entry.seat, cards=bytes(entry.cards))
    if entry.reading is not None:
        stored.reading.CopyFrom(encode_reading(entry.reading))
    return stored


def _load_entry(stored: guandan_state_pb2.GuandanStoredPlay) -> RoundEntry:
    if not stored.HasField("reading"):
        return RoundEntry(stored.seat)
    return RoundEntry(stored.seat, tuple(stored.cards), decode_reading(stored.reading, "round"))


def _pair(values: Sequence[int]) -> tuple[int, int]:
    return (values[0], values[1])


class GuandanCodec:
    """The :class:`~engine_service.codec.protocol.GameCodec` of Guandan."""

    def decode_options(self, message: game_pb2.GameOptions) -> GuandanConfig:
        """Client options; unset fields keep the G-R defaults."""
        return decode_options(message.guandan, GuandanConfig, "options.guandan")

    def encode_options(self, config: GuandanConfig) -> game_pb2.GameOptions:
        """Every option, set."""
        return game_pb2.GameOptions(guandan=encode_options(config, guandan_pb2.GuandanOptions))

    def decode_action(self, message: game_pb2.Action) -> GuandanAction:
        """A play, a pass or a return, checked for form only (the rules judge legality)."""
        guandan = message.guandan
        kind = guandan.WhichOneof("action")
        if kind == "play":
            return _decode_play(guandan.play)
        if kind == "pass_turn":
            return PassTurn()
        if kind == "return_card":
            card = guandan.return_card.card
            return ReturnCard(decode_kind(card, "action.guandan.return_card.card"))
        raise MalformedRequest("action.guandan.action", "set play, pass_turn or return_card")

    def encode_action(self, action: GuandanAction) -> game_pb2.Action:
        """The proto of a play, a pass or a return."""
        if isinstance(action, PlayCards):
            inner = guandan_pb2.GuandanAction(
                play=guandan_pb2.GuandanPlay(
                    cards=encode_kinds(action.cards), reading=encode_reading(action.reading)
                )
            )
        elif isinstance(action, ReturnCard):
            inner = guandan_pb2.GuandanAction(
                return_card=guandan_pb2.GuandanReturnCard(card=encode_kind(action.card))
            )
        else:
            inner = guandan_pb2.GuandanAction(pass_turn=guandan_pb2.GuandanPassTurn())
        return game_pb2.Action(guandan=inner)

    def encode_legal(self, legal: Sequence[GuandanAction], out: game_pb2.GameView) -> None:
        """Every legal action, one by one."""
        list_actions(self.encode_action, legal, out)

    def encode_event(self, fact: object) -> game_pb2.GameEvent:
        """The proto of a Guandan event (:mod:`engine_service.games.guandan.events`).

        Raises:
            TypeError: ``fact`` is no Guandan event.
        """
        return game_pb2.GameEvent(guandan=_event_message(fact))

    def encode_view(self, view: GuandanView, config: GuandanConfig, out: game_pb2.GameView) -> None:
        """Copy a seat's Guandan view into ``out.guandan``."""
        target = out.guandan
        target.phase = guandan_pb2.GuandanView.Phase.ValueType(view.phase)
        target.deal_number = view.deal_number
        target.levels.extend(cards_pb2.Rank.ValueType(level) for level in view.levels)
        target.level = cards_pb2.Rank.ValueType(view.level)
        if view.declarer is not None:
            target.declarer = view.declarer
        target.hand.extend(encode_kinds(view.hand))
        target.card_counts.extend(view.card_counts)
        if view.top is not None:
            target.top.CopyFrom(_encode_top(view.top))
        target.passed.extend(view.passed)
        target.finished.extend(view.finished)
        target.tributes.extend(_encode_tribute(t) for t in view.tributes)
        target.anti_tribute = view.anti_tribute
        target.red_joker_holders.extend(view.red_joker_holders)
        target.previous_order.extend(view.previous_order)
        target.options.CopyFrom(encode_options(config, guandan_pb2.GuandanOptions))
        target.round_history.extend(_encode_entry(entry) for entry in view.round_history)
        if view.previous_deal is not None:
            target.previous_deal.CopyFrom(_encode_result(view.previous_deal))
        for kinds in view.played:
            target.played.add().cards.extend(encode_kinds(kinds))

    def encode_state(self, state: GuandanState, out: snapshot_pb2.GameRecord) -> None:
        """Store the whole position, hidden parts included."""
        target = out.guandan
        target.phase = state.phase
        target.deal_number = state.deal_number
        target.levels.extend(state.levels)
        target.level = state.level
        if state.declarer is not None:
            target.declarer = state.declarer
        target.ace_failures.extend(state.ace_failures)
        target.hands = b"".join(bytes(hand) for hand in state.hands)
        target.turn = state.turn
        if state.top is not None:
            target.top.CopyFrom(
                guandan_state_pb2.GuandanStoredPlay(
                    seat=state.top.seat,
                    cards=bytes(state.top.cards),
                    reading=encode_reading(state.top.reading),
                )
            )
        target.passed = bytes(state.passed)
        target.finished = bytes(state.finished)
        for tribute in state.tributes:
            stored = target.tributes.add(
                payer=tribute.payer, receiver=tribute.receiver, card=tribute.card
            )
            if tribute.returned is not None:
                stored.returned = tribute.returned
        target.red_joker_holders = bytes(state.red_joker_holders)
        target.previous_order = bytes(state.previous_order)
        target.winners = bytes(state.winners)
        target.round_history.extend(_store_entry(entry) for entry in state.round_history)
        target.played.extend(bytes(kinds_in(hand)) for hand in state.played)
        result = state.previous_deal
        if result is not None:
            target.previous_deal.CopyFrom(
                guandan_state_pb2.GuandanStoredDealResult(
                    deal_number=result.deal_number,
                    level=result.level,
                    order=bytes(result.order),
                    team=result.team,
                    steps=result.steps,
                    levels_before=result.levels_before,
                    levels=result.levels,
                    last_plays=[_store_entry(entry) for entry in result.last_plays],
                )
            )

    def decode_state(self, record: snapshot_pb2.GameRecord) -> GuandanState:
        """Rebuild the position stored by :meth:`encode_state`."""
        source = record.guandan
        hands = source.hands
        top = source.top if source.HasField("top") else None
        levels, ace_failures = tuple(source.levels), tuple(source.ace_failures)
        state = GuandanState(
            seed=record.seed,
            phase=Phase(source.phase),
            deal_number=source.deal_number,
            levels=(levels[0], levels[1]),
            level=source.level,
            declarer=source.declarer if source.HasField("declarer") else None,
            ace_failures=(ace_failures[0], ace_failures[1]),
            hands=tuple(tuple(hands[i : i + KIND_COUNT]) for i in range(0, len(hands), KIND_COUNT)),
            turn=source.turn,
            top=(
                None
                if top is None
                else TopPlay(top.seat, tuple(top.cards), decode_reading(top.reading, "top"))
            ),
            passed=tuple(source.passed),
            finished=tuple(source.finished),
            tributes=tuple(
                Tribute(t.payer, t.receiver, t.card, t.returned if t.HasField("returned") else None)
                for t in source.tributes
            ),
            red_joker_holders=tuple(source.red_joker_holders),
            previous_order=tuple(source.previous_order),
            winners=tuple(source.winners),
            round_history=tuple(_load_entry(entry) for entry in source.round_history),
            previous_deal=_load_result(source.previous_deal)
            if source.HasField("previous_deal")
            else None,
            played=tuple(hand_of(kinds) for kinds in source.played) or NO_PLAYS,
        )
        if source.played:
            return state
        return replace(state, played=plays_since_dealt(state))  # stored before the field


def _load_result(stored: guandan_state_pb2.GuandanStoredDealResult) -> DealResult:
    return DealResult(
        deal_number=stored.deal_number,
        level=stored.level,
        order=tuple(stored.order),
        team=stored.team,
        steps=stored.steps,
        levels_before=_pair(stored.levels_before),
        levels=_pair(stored.levels),
        last_plays=tuple(_load_entry(entry) for entry in stored.last_plays),
    )
