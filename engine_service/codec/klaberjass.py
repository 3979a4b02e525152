"""Klaberjass values between the domain and ``cardengine.v1.klaberjass`` / the stored snapshot."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Final

from cardengine.v1 import cards_pb2, game_pb2, klaberjass_pb2
from google.protobuf.message import Message

from engine_service.codec.cards import decode_card, encode_card, encode_cards
from engine_service.codec.listing import list_actions
from engine_service.codec.options import decode_options, encode_options
from engine_service.core.cards import CARDS, Card, Suit
from engine_service.core.errors import MalformedRequest
from engine_service.games.klaberjass.actions import (
    Dix,
    KlaberjassAction,
    PassBid,
    PlayCard,
    TakeTrump,
)
from engine_service.games.klaberjass.cards import PACK_MASK
from engine_service.games.klaberjass.config import KlaberjassConfig
from engine_service.games.klaberjass.events import (
    BellaScored,
    BidMade,
    BottomShown,
    CardPlayed,
    CardsDealt,
    DealScored,
    DealStarted,
    DealThrownIn,
    DixKept,
    DixSwapped,
    GameOver,
    SequencesCompared,
    TrickTaken,
    TrumpFixed,
)
from engine_service.games.klaberjass.rules import original_turn_up
from engine_service.games.klaberjass.state import (
    Bid,
    DealResult,
    FinishedDeal,
    KlaberjassState,
    Phase,
    SequenceResult,
    TakenTrick,
    Trick,
)
from engine_service.games.klaberjass.view import KlaberjassView
from engine_service.storage_pb import klaberjass_state_pb2, snapshot_pb2

# Suit enum numbers in the proto are the domain's suit number plus one; 0 means "none".
_PROTO_SUIT_OFFSET: Final = 1
_NONE: Final = -1
"""Stands for a missing seat or suit in the stored deal history."""
_DEAL_FIELDS: Final = 7
_BID_BYTES: Final = 3
_TRICK_BYTES: Final = 5


def _decode_pack_card(message: cards_pb2.Card, field_path: str) -> Card:
    """A card of the 32-card pack (K-R1); a lower rank is malformed in this game."""
    card = decode_card(message, field_path)
    if not PACK_MASK >> card & 1:
        raise MalformedRequest(f"{field_path}.rank", "must be a rank from RANK_SEVEN to RANK_ACE")
    return card


def _proto_suit(suit: Suit | None) -> cards_pb2.Suit.ValueType:
    return cards_pb2.Suit.ValueType(0 if suit is None else suit + _PROTO_SUIT_OFFSET)


def _decode_suit(number: int, field_path: str) -> Suit:
    if not 0 <= number - _PROTO_SUIT_OFFSET < len(Suit):
        raise MalformedRequest(field_path, "must be one of the four suits")
    return Suit(number - _PROTO_SUIT_OFFSET)


def _encode_trick(trick: Trick, trump: Suit | None) -> klaberjass_pb2.KlaberjassTrick:
    message = klaberjass_pb2.KlaberjassTrick(leader=trick.leader, cards=encode_cards(trick.cards))
    winner = None if trump is None else trick.winner(trump)
    if winner is not None:
        message.winner = winner
    return message


MESSAGES_REMEMBERED: Final = 8192
"""Encoded taken tricks and deal results kept: about 20 per game in play (this deal, the last)."""


@functools.lru_cache(maxsize=MESSAGES_REMEMBERED)
def _encode_taken(trick: TakenTrick) -> klaberjass_pb2.KlaberjassTrick:
    """A complete trick with its winner and points (K-R19).

    Built once, since every later view of its deal and the next shows it again; shared
    between views, so only ever copied. Taken tricks are immutable values.
    """
    return klaberjass_pb2.KlaberjassTrick(
        leader=trick.leader,
        cards=encode_cards(trick.cards),
        winner=trick.winner,
        points=trick.points,
    )


def _encode_sequences(result: SequenceResult) -> klaberjass_pb2.KlaberjassSequences:
    message = klaberjass_pb2.KlaberjassSequences(
        cards=encode_cards(result.cards), points=result.points
    )
    if result.winner is not None:
        message.winner = result.winner
    return message


@functools.lru_cache(maxsize=MESSAGES_REMEMBERED)
def _encode_deal(deal: DealResult) -> klaberjass_pb2.KlaberjassDeal:
    """A deal's result, built once and shared as :func:`_encode_taken`'s tricks are."""
    message = klaberjass_pb2.KlaberjassDeal(
        dealer=deal.dealer, trump=_proto_suit(deal.trump), points=deal.points, scores=deal.scores
    )
    if deal.maker is not None:
        message.maker = deal.maker
    return message


@functools.lru_cache(maxsize=MESSAGES_REMEMBERED // 16)
def _encode_previous(deal: FinishedDeal) -> klaberjass_pb2.KlaberjassPreviousDeal:
    """The last deal, built once and shared as :func:`_encode_taken`'s tricks are."""
    message = klaberjass_pb2.KlaberjassPreviousDeal(
        deal_number=deal.deal_number,
        result=_encode_deal(deal.result),
        tricks=[_encode_taken(trick) for trick in deal.tricks],
    )
    if deal.sequences is not None:
        message.sequences.CopyFrom(_encode_sequences(deal.sequences))
    if deal.bella_by is not None:
        message.bella_by = deal.bella_by
    return message


def _event_message(fact: object) -> klaberjass_pb2.KlaberjassEvent:
    """The ``KlaberjassEvent`` of one event value, one oneof member per event class."""
    event = klaberjass_pb2.KlaberjassEvent
    if isinstance(fact, BidMade):
        bid = klaberjass_pb2.KlaberjassBid(
            seat=fact.seat, round=fact.round, suit=_proto_suit(fact.suit)
        )
        return event(bid_made=klaberjass_pb2.KlaberjassBidMade(bid=bid))
    if isinstance(fact, TrumpFixed):
        return event(
            trump_fixed=klaberjass_pb2.KlaberjassTrumpFixed(
                suit=_proto_suit(fact.suit), maker=fact.maker
            )
        )
    if isinstance(fact, DealThrownIn):
        return event(
            deal_thrown_in=klaberjass_pb2.KlaberjassDealThrownIn(
                deal_number=fact.deal_number, dealer=fact.dealer
            )
        )
    if isinstance(fact, DealStarted):
        return event(
            deal_started=klaberjass_pb2.KlaberjassDealStarted(
                deal_number=fact.deal_number,
                dealer=fact.dealer,
                turn_up=encode_card(fact.turn_up),
            )
        )
    if isinstance(fact, CardsDealt):
        return event(
            cards_dealt=klaberjass_pb2.KlaberjassCardsDealt(
                seat=fact.seat, deal_number=fact.deal_number, cards=encode_cards(fact.cards)
            )
        )
    if isinstance(fact, BottomShown):
        return event(bottom_shown=klaberjass_pb2.KlaberjassBottomShown(card=encode_card(fact.card)))
    if isinstance(fact, DixSwapped):
        return event(
            dix_swapped=klaberjass_pb2.KlaberjassDixSwapped(
                seat=fact.seat, taken=encode_card(fact.taken), seven=encode_card(fact.seven)
            )
        )
    if isinstance(fact, DixKept):
        return event(dix_kept=klaberjass_pb2.KlaberjassDixKept(seat=fact.seat))
    if isinstance(fact, CardPlayed):
        return event(
            card_played=klaberjass_pb2.KlaberjassCardPlayed(
                seat=fact.seat, card=encode_card(fact.card)
            )
        )
    return _scoring_event_message(fact)


def _scoring_event_message(fact: object) -> klaberjass_pb2.KlaberjassEvent:
    """The events that count points: bella, tricks, sequences, the deal and the game."""
    event = klaberjass_pb2.KlaberjassEvent
    if isinstance(fact, BellaScored):
        return event(
            bella_scored=klaberjass_pb2.KlaberjassBellaScored(
                seat=fact.seat, suit=_proto_suit(fact.suit), points=fact.points
            )
        )
    if isinstance(fact, TrickTaken):
        trick = TakenTrick(fact.leader, fact.cards, fact.winner, fact.points)
        return event(
            trick_taken=klaberjass_pb2.KlaberjassTrickTaken(
                number=fact.number, trick=_encode_taken(trick)
            )
        )
    if isinstance(fact, SequencesCompared):
        result = SequenceResult(fact.winner, fact.cards, fact.points)
        return event(
            sequences_compared=klaberjass_pb2.KlaberjassSequencesCompared(
                sequences=_encode_sequences(result)
            )
        )
    if isinstance(fact, DealScored):
        return event(
            deal_scored=klaberjass_pb2.KlaberjassDealScored(
                deal_number=fact.deal_number,
                maker=fact.maker,
                points=fact.points,
                scores=fact.scores,
                maker_down=fact.maker_down,
                totals=fact.totals,
            )
        )
    if isinstance(fact, GameOver):
        return event(
            game_over=klaberjass_pb2.KlaberjassGameOver(winners=fact.winners, totals=fact.totals)
        )
    raise TypeError(f"not a Klaberjass event: {fact!r}")


def _encode_tricks(tricks: Sequence[TakenTrick]) -> bytes:
    return bytes(
        n for trick in tricks for n in (trick.leader, *trick.cards, trick.winner, trick.points)
    )


@functools.lru_cache(maxsize=MESSAGES_REMEMBERED // 8)
def _decode_tricks(data: bytes) -> tuple[TakenTrick, ...]:
    """Stored taken tricks as values, built once and shared between loads (they are immutable).

    Every move of a deal loads the last deal's tricks and this deal's so far again.
    """
    return tuple(
        TakenTrick(leader, (CARDS[first], CARDS[second]), winner, points)
        for leader, first, second, winner, points in (
            data[i : i + _TRICK_BYTES] for i in range(0, len(data), _TRICK_BYTES)
        )
    )


_SequenceFields = klaberjass_state_pb2.KlaberjassState | klaberjass_state_pb2.KlaberjassFinishedDeal
"""Stored messages holding a sequence comparison under the same four field names."""


def _store_sequences(result: SequenceResult | None, target: _SequenceFields) -> None:
    """The stored fields of a sequence comparison (``has_sequences`` and the three values)."""
    if result is None:
        return
    target.has_sequences = True
    if result.winner is not None:
        target.sequence_winner = result.winner
    target.sequence_cards = bytes(result.cards)
    target.sequence_points = result.points


def _stored_sequences(source: _SequenceFields) -> SequenceResult | None:
    if not source.has_sequences:
        return None
    return SequenceResult(
        _optional(source, "sequence_winner"),
        _cards_of(source.sequence_cards),
        source.sequence_points,
    )


def _store_previous(
    deal: FinishedDeal, target: klaberjass_state_pb2.KlaberjassFinishedDeal
) -> None:
    target.deal_number = deal.deal_number
    target.result.extend(_encode_deals((deal.result,)))
    target.tricks = _encode_tricks(deal.tricks)
    _store_sequences(deal.sequences, target)
    if deal.bella_by is not None:
        target.bella_by = deal.bella_by


def _stored_previous(source: klaberjass_state_pb2.KlaberjassFinishedDeal) -> FinishedDeal:
    (result,) = _decode_deals(source.result)
    return FinishedDeal(
        deal_number=source.deal_number,
        result=result,
        tricks=_decode_tricks(source.tricks),
        sequences=_stored_sequences(source),
        bella_by=_optional(source, "bella_by"),
    )


def _cards_of(data: bytes) -> tuple[Card, ...]:
    return tuple(CARDS[c] for c in data)


def _optional(message: Message, name: str) -> int | None:
    """An ``optional`` scalar of a stored message, ``None`` when unset."""
    value: int = getattr(message, name)
    return value if message.HasField(name) else None


def _or_none(value: int | None) -> int:
    return _NONE if value is None else value


def _encode_deals(deals: Sequence[DealResult]) -> list[int]:
    numbers: list[int] = []
    for deal in deals:
        numbers += [deal.dealer, _or_none(deal.maker), _or_none(deal.trump)]
        numbers += [*deal.points, *deal.scores]
    return numbers


def _decode_deals(numbers: Sequence[int]) -> tuple[DealResult, ...]:
    return _deals_of(tuple(numbers))


@functools.lru_cache(maxsize=MESSAGES_REMEMBERED // 8)
def _deals_of(numbers: tuple[int, ...]) -> tuple[DealResult, ...]:
    """Stored deal results as values, built once and shared as :func:`_decode_tricks`'s are."""
    deals = []
    for start in range(0, len(numbers), _DEAL_FIELDS):
        dealer, maker, trump, point0, point1, score0, score1 = numbers[start : start + _DEAL_FIELDS]
        deals.append(
            DealResult(
                dealer=dealer,
                maker=None if maker == _NONE else maker,
                trump=None if trump == _NONE else Suit(trump),
                points=(point0, point1),
                scores=(score0, score1),
            )
        )
    return tuple(deals)


def _encode_bids(bids: Sequence[Bid]) -> bytes:
    return bytes(n for bid in bids for n in (bid.seat, bid.round, _proto_suit(bid.suit)))


def _decode_bids(data: bytes) -> tuple[Bid, ...]:
    return tuple(
        Bid(seat, round_, None if suit == 0 else Suit(suit - _PROTO_SUIT_OFFSET))
        for seat, round_, suit in (
            data[i : i + _BID_BYTES] for i in range(0, len(data), _BID_BYTES)
        )
    )


def _stored_dix_taken(record: snapshot_pb2.GameRecord, dix_by: int | None) -> Card | None:
    """The turn-up a dix swap took (K-R11), ``None`` without a swap.

    A snapshot stored before ``dix_taken`` existed lacks it after a swap; the card is then
    the deal's original turn-up, which the seed and the deal number give again.
    """
    source = record.klaberjass
    if source.HasField("dix_taken"):
        return CARDS[source.dix_taken]
    if dix_by is None:
        return None
    return original_turn_up(record.seed, source.deal_number)


def _pair(values: Sequence[int]) -> tuple[int, int]:
    first, second = values
    return first, second


class KlaberjassCodec:
    """The :class:`~engine_service.codec.protocol.GameCodec` of two-player Klaberjass."""

    def decode_options(self, message: game_pb2.GameOptions) -> KlaberjassConfig:
        """Client options; unset fields keep the K-R defaults."""
        return decode_options(message.klaberjass, KlaberjassConfig, "options.klaberjass")

    def encode_options(self, config: KlaberjassConfig) -> game_pb2.GameOptions:
        """Every option, set."""
        return game_pb2.GameOptions(
            klaberjass=encode_options(config, klaberjass_pb2.KlaberjassOptions)
        )

    def decode_action(self, message: game_pb2.Action) -> KlaberjassAction:
        """A bid, a dix decision or a play, checked for form only (the rules judge legality)."""
        move = message.klaberjass
        kind = move.WhichOneof("action")
        if kind == "take_trump":
            return TakeTrump(
                _decode_suit(move.take_trump.suit, "action.klaberjass.take_trump.suit")
            )
        if kind == "pass_bid":
            return PassBid()
        if kind == "dix":
            return Dix(swap=move.dix.swap)
        if kind == "play_card":
            play = move.play_card
            card = _decode_pack_card(play.card, "action.klaberjass.play_card.card")
            bella = not play.HasField("announce_bella") or play.announce_bella
            sequences = not play.HasField("declare_sequences") or play.declare_sequences
            return PlayCard(card, announce_bella=bella, declare_sequences=sequences)
        raise MalformedRequest(
            "action.klaberjass.action", "set take_trump, pass_bid, dix or play_card"
        )

    def encode_action(self, action: KlaberjassAction) -> game_pb2.Action:
        """The proto of a move; the play flags are set only when false (unset means true)."""
        if isinstance(action, TakeTrump):
            inner = klaberjass_pb2.KlaberjassAction(
                take_trump=klaberjass_pb2.KlaberjassTakeTrump(suit=_proto_suit(action.suit))
            )
        elif isinstance(action, PassBid):
            inner = klaberjass_pb2.KlaberjassAction(pass_bid=klaberjass_pb2.KlaberjassPassBid())
        elif isinstance(action, Dix):
            inner = klaberjass_pb2.KlaberjassAction(
                dix=klaberjass_pb2.KlaberjassDix(swap=action.swap)
            )
        else:
            play = klaberjass_pb2.KlaberjassPlayCard(card=encode_card(action.card))
            if not action.announce_bella:
                play.announce_bella = False
            if not action.declare_sequences:
                play.declare_sequences = False
            inner = klaberjass_pb2.KlaberjassAction(play_card=play)
        return game_pb2.Action(klaberjass=inner)

    def encode_legal(self, legal: Sequence[KlaberjassAction], out: game_pb2.GameView) -> None:
        """Every legal action, one by one."""
        list_actions(self.encode_action, legal, out)

    def encode_event(self, fact: object) -> game_pb2.GameEvent:
        """The proto of a Klaberjass event (:mod:`engine_service.games.klaberjass.events`).

        Raises:
            TypeError: ``fact`` is no Klaberjass event, a bug in the caller.
        """
        return game_pb2.GameEvent(klaberjass=_event_message(fact))

    def encode_view(
        self, view: KlaberjassView, config: KlaberjassConfig, out: game_pb2.GameView
    ) -> None:
        """Copy a seat's Klaberjass view into ``out.klaberjass``."""
        target = out.klaberjass
        target.phase = klaberjass_pb2.KlaberjassView.Phase.ValueType(view.phase)
        target.deal_number = view.deal_number
        target.dealer = view.dealer
        target.hand.extend(encode_cards(view.hand))
        target.hand_sizes.extend(view.hand_sizes)
        target.turn_up.CopyFrom(encode_card(view.turn_up))
        if view.bottom is not None:
            target.bottom.CopyFrom(encode_card(view.bottom))
        for bid in view.bids:
            target.bids.add(seat=bid.seat, round=bid.round, suit=_proto_suit(bid.suit))
        target.trump = _proto_suit(view.trump)
        if view.maker is not None:
            target.maker = view.maker
        if view.dix_by is not None:
            target.dix_by = view.dix_by
        if view.dix_taken is not None:
            target.dix_taken.CopyFrom(encode_card(view.dix_taken))
        if view.sequences is not None:
            target.sequences.CopyFrom(_encode_sequences(view.sequences))
        target.trick.CopyFrom(_encode_trick(view.trick, view.trump))
        if view.last_trick is not None:
            target.last_trick.CopyFrom(_encode_trick(view.last_trick, view.trump))
        target.tricks_played = view.tricks_played
        target.tricks_won.extend(view.tricks_won)
        target.card_points.extend(view.card_points)
        for cards in view.played:
            target.played.add(cards=encode_cards(cards))
        if view.bella_by is not None:
            target.bella_by = view.bella_by
        target.totals.extend(view.totals)
        target.deals.extend(_encode_deal(deal) for deal in view.deals)
        target.options.CopyFrom(encode_options(config, klaberjass_pb2.KlaberjassOptions))
        target.completed_tricks.extend(_encode_taken(trick) for trick in view.completed_tricks)
        if view.previous_deal is not None:
            target.previous_deal.CopyFrom(_encode_previous(view.previous_deal))

    def encode_state(self, state: KlaberjassState, out: snapshot_pb2.GameRecord) -> None:
        """Store the whole position, hidden parts included."""
        target = out.klaberjass
        target.phase = state.phase
        target.deal_number = state.deal_number
        target.dealer = state.dealer
        target.to_move = state.to_move
        target.hands.extend(state.hands)
        target.stock = state.stock
        target.turn_up = state.turn_up
        if state.bottom is not None:
            target.bottom = state.bottom
        target.bids = _encode_bids(state.bids)
        for name in ("trump", "maker", "dix_by", "dix_taken", "bella_by"):
            value = getattr(state, name)
            if value is not None:
                setattr(target, name, value)
        target.meld_hands.extend(state.meld_hands)
        target.declared.extend(state.declared)
        _store_sequences(state.sequences, target)
        target.trick_leader = state.trick.leader
        target.trick_cards = bytes(state.trick.cards)
        if state.last_trick is not None:
            target.last_trick_leader = state.last_trick.leader
            target.last_trick_cards = bytes(state.last_trick.cards)
        target.tricks_played = state.tricks_played
        target.tricks_won.extend(state.tricks_won)
        target.card_points.extend(state.card_points)
        target.played.extend(state.played)
        target.totals.extend(state.totals)
        target.deals.extend(_encode_deals(state.deals))
        target.winners.extend(state.winners)
        target.completed_tricks = _encode_tricks(state.completed_tricks)
        if state.previous_deal is not None:
            _store_previous(state.previous_deal, target.previous_deal)

    def decode_state(self, record: snapshot_pb2.GameRecord) -> KlaberjassState:
        """Rebuild the position stored by :meth:`encode_state`."""
        source = record.klaberjass
        trump = _optional(source, "trump")
        bottom = _optional(source, "bottom")
        dix_by = _optional(source, "dix_by")
        last_leader = _optional(source, "last_trick_leader")
        declared = tuple(source.declared)
        return KlaberjassState(
            seed=record.seed,
            phase=Phase(source.phase),
            deal_number=source.deal_number,
            dealer=source.dealer,
            to_move=source.to_move,
            hands=_pair(source.hands),
            stock=source.stock,
            turn_up=CARDS[source.turn_up],
            bottom=None if bottom is None else CARDS[bottom],
            bids=_decode_bids(source.bids),
            trump=None if trump is None else Suit(trump),
            maker=_optional(source, "maker"),
            dix_by=dix_by,
            dix_taken=_stored_dix_taken(record, dix_by),
            meld_hands=_pair(source.meld_hands),
            declared=(declared[0], declared[1]),
            sequences=_stored_sequences(source),
            trick=Trick(source.trick_leader, _cards_of(source.trick_cards)),
            last_trick=(
                None
                if last_leader is None
                else Trick(last_leader, _cards_of(source.last_trick_cards))
            ),
            tricks_played=source.tricks_played,
            tricks_won=_pair(source.tricks_won),
            card_points=_pair(source.card_points),
            played=_pair(source.played),
            bella_by=_optional(source, "bella_by"),
            totals=_pair(source.totals),
            deals=_decode_deals(source.deals),
            winners=tuple(source.winners),
            completed_tricks=_decode_tricks(source.completed_tricks),
            previous_deal=(
                _stored_previous(source.previous_deal) if source.HasField("previous_deal") else None
            ),
        )
