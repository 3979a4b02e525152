"""Hearts values between the domain and ``cardengine.v1.hearts`` / the stored snapshot."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Final

from cardengine.v1 import game_pb2, hearts_pb2

from engine_service.codec.cards import decode_card, decode_distinct_cards, encode_cards
from engine_service.codec.listing import list_actions
from engine_service.codec.options import decode_options, encode_options
from engine_service.core.cards import CARDS, cards_in, mask_of
from engine_service.core.errors import MalformedRequest
from engine_service.games.hearts.actions import HeartsAction, PassCards, PlayCard
from engine_service.games.hearts.config import HeartsConfig
from engine_service.games.hearts.events import (
    CardPlayed,
    CardsDealt,
    CardsPassed,
    CardsReceived,
    GameOver,
    HandDealt,
    HandScored,
    HeartsBroken,
    LeadPassed,
    PassMade,
    TrickTaken,
)
from engine_service.games.hearts.pass_choices import PassChoices
from engine_service.games.hearts.scoring import trick_points
from engine_service.games.hearts.state import FinishedHand, HeartsState, Phase, Trick
from engine_service.games.hearts.view import HeartsView
from engine_service.storage_pb import hearts_state_pb2, snapshot_pb2

TRICKS_REMEMBERED: Final = 8192
"""Encoded tricks kept (a few hundred bytes each): 26 per game in play (this hand and the last)."""


@functools.lru_cache(maxsize=TRICKS_REMEMBERED)
def _encode_trick(trick: Trick) -> hearts_pb2.HeartsTrick:
    """A trick's proto, built once: every later view of its hand and the next shows it again.

    Shared between views, so it is only ever copied (``CopyFrom``, ``extend``); tricks are
    immutable values, hashable by design.
    """
    winner = trick.winner
    if winner is None:
        return hearts_pb2.HeartsTrick(leader=trick.leader, cards=encode_cards(trick.cards))
    return hearts_pb2.HeartsTrick(
        leader=trick.leader,
        cards=encode_cards(trick.cards),
        winner=winner,
        points=trick_points(mask_of(trick.cards)),
    )


@functools.lru_cache(maxsize=TRICKS_REMEMBERED // 16)
def _encode_finished(hand: FinishedHand) -> hearts_pb2.HeartsFinishedHand:
    """A finished hand's proto, built once and shared as :func:`_encode_trick`'s tricks are.

    Every view of the next hand shows it until that hand's first trick.
    """
    return hearts_pb2.HeartsFinishedHand(
        hand_number=hand.hand_number,
        tricks=[_encode_trick(trick) for trick in hand.tricks],
        points_taken=hand.points_taken,
        scores=hand.scores,
    )


def _store_tricks(tricks: tuple[Trick, ...], out: hearts_state_pb2.HeartsTricks) -> None:
    out.leaders.extend(trick.leader for trick in tricks)
    out.cards = bytes(card for trick in tricks for card in trick.cards)


def _load_tricks(stored: hearts_state_pb2.HeartsTricks) -> tuple[Trick, ...]:
    return _tricks_of(tuple(stored.leaders), stored.cards)


@functools.lru_cache(maxsize=TRICKS_REMEMBERED // 8)
def _tricks_of(leaders: tuple[int, ...], cards: bytes) -> tuple[Trick, ...]:
    """Stored tricks as values, built once and shared between loads (tricks are immutable).

    Every move of a hand loads the last hand's 13 tricks and this hand's so far again.
    """
    played = tuple(CARDS[c] for c in cards)
    return tuple(
        Trick(leader, played[4 * index : 4 * index + 4]) for index, leader in enumerate(leaders)
    )


def _old_last_trick(source: hearts_state_pb2.HeartsState) -> tuple[Trick, ...]:
    """A snapshot written before the history was kept stored only the last trick."""
    if not source.has_last_trick:
        return ()
    return (Trick(source.last_trick_leader, tuple(CARDS[c] for c in source.last_trick_cards)),)


def _pass_choice(choices: PassChoices) -> game_pb2.CardChoice:
    """H-R2: "any ``size`` of these cards", one entry instead of 286 listed passes."""
    action = game_pb2.Action(
        hearts=hearts_pb2.HeartsAction(pass_cards=hearts_pb2.HeartsPassCards())
    )
    return game_pb2.CardChoice(
        action=action, cards=encode_cards(tuple(cards_in(choices.hand))), count=choices.size
    )


def _event_message(fact: object) -> hearts_pb2.HeartsEvent:
    """The ``HeartsEvent`` of one event value.

    Raises:
        TypeError: ``fact`` is no Hearts event.
    """
    match fact:
        case PassMade(seat):
            return hearts_pb2.HeartsEvent(pass_made=hearts_pb2.HeartsPassMade(seat=seat))
        case CardsPassed(seat, cards, to_seat):
            return hearts_pb2.HeartsEvent(
                cards_passed=hearts_pb2.HeartsCardsPassed(
                    seat=seat, cards=encode_cards(cards), to_seat=to_seat
                )
            )
        case CardsReceived(seat, cards, from_seat):
            return hearts_pb2.HeartsEvent(
                cards_received=hearts_pb2.HeartsCardsReceived(
                    seat=seat, cards=encode_cards(cards), from_seat=from_seat
                )
            )
        case CardPlayed(seat, card):
            played = hearts_pb2.HeartsCardPlayed(seat=seat, card=encode_cards((card,))[0])
            return hearts_pb2.HeartsEvent(card_played=played)
        case HeartsBroken(seat, card):
            broken = hearts_pb2.HeartsBroken(seat=seat, card=encode_cards((card,))[0])
            return hearts_pb2.HeartsEvent(hearts_broken=broken)
        case TrickTaken(number, leader, cards, winner, points):
            trick = hearts_pb2.HeartsTrick(
                leader=leader, cards=encode_cards(cards), winner=winner, points=points
            )
            taken = hearts_pb2.HeartsTrickTaken(number=number, trick=trick)
            return hearts_pb2.HeartsEvent(trick_taken=taken)
        case LeadPassed(seat, to_seat):
            passed = hearts_pb2.HeartsLeadPassed(seat=seat, to_seat=to_seat)
            return hearts_pb2.HeartsEvent(lead_passed=passed)
        case HandScored(hand_number, points_taken, scores, shooter, totals):
            scored = hearts_pb2.HeartsHandScored(
                hand_number=hand_number, points_taken=points_taken, scores=scores, totals=totals
            )
            if shooter is not None:
                scored.moon_shooter = shooter
            return hearts_pb2.HeartsEvent(hand_scored=scored)
        case HandDealt(hand_number, direction):
            dealt = hearts_pb2.HeartsHandDealt(
                hand_number=hand_number,
                pass_direction=hearts_pb2.HeartsPassDirection.ValueType(direction),
            )
            return hearts_pb2.HeartsEvent(hand_dealt=dealt)
        case CardsDealt(seat, hand_number, cards):
            cards_dealt = hearts_pb2.HeartsCardsDealt(
                seat=seat, hand_number=hand_number, cards=encode_cards(cards)
            )
            return hearts_pb2.HeartsEvent(cards_dealt=cards_dealt)
        case GameOver(winners, totals):
            over = hearts_pb2.HeartsGameOver(winners=winners, totals=totals)
            return hearts_pb2.HeartsEvent(game_over=over)
    raise TypeError(f"not a Hearts event: {fact!r}")


class HeartsCodec:
    """The :class:`~engine_service.codec.protocol.GameCodec` of Hearts."""

    def decode_options(self, message: game_pb2.GameOptions) -> HeartsConfig:
        """Client options; unset fields keep the H-R defaults."""
        return decode_options(message.hearts, HeartsConfig, "options.hearts")

    def encode_options(self, config: HeartsConfig) -> game_pb2.GameOptions:
        """Every option, set."""
        return game_pb2.GameOptions(hearts=encode_options(config, hearts_pb2.HeartsOptions))

    def decode_action(self, message: game_pb2.Action) -> HeartsAction:
        """A pass or a play, checked for form only (the rules judge legality)."""
        hearts = message.hearts
        kind = hearts.WhichOneof("action")
        if kind == "play_card":
            return PlayCard(decode_card(hearts.play_card.card, "action.hearts.play_card.card"))
        if kind == "pass_cards":
            path = "action.hearts.pass_cards.cards"
            return PassCards(mask_of(decode_distinct_cards(hearts.pass_cards.cards, path)))
        raise MalformedRequest("action.hearts.action", "set pass_cards or play_card")

    def encode_action(self, action: HeartsAction) -> game_pb2.Action:
        """The proto of a pass or a play."""
        if isinstance(action, PlayCard):
            inner = hearts_pb2.HeartsAction(
                play_card=hearts_pb2.HeartsPlayCard(card=encode_cards((action.card,))[0])
            )
        else:
            inner = hearts_pb2.HeartsAction(
                pass_cards=hearts_pb2.HeartsPassCards(cards=encode_cards(action.cards))
            )
        return game_pb2.Action(hearts=inner)

    def encode_legal(self, legal: Sequence[HeartsAction], out: game_pb2.GameView) -> None:
        """Plays one by one; the passes (H-R2) as one ``CardChoice`` of 3 among the hand.

        Listing all 286 passes made a passing view about 20 KB; the choice keeps it under 1 KB.
        """
        if isinstance(legal, PassChoices):
            out.legal_choices.append(_pass_choice(legal))
        else:
            list_actions(self.encode_action, legal, out)

    def encode_event(self, fact: object) -> game_pb2.GameEvent:
        """The proto of a Hearts event (:mod:`engine_service.games.hearts.events`).

        Raises:
            TypeError: ``fact`` is no Hearts event.
        """
        return game_pb2.GameEvent(hearts=_event_message(fact))

    def encode_view(self, view: HeartsView, config: HeartsConfig, out: game_pb2.GameView) -> None:
        """Copy a seat's Hearts view into ``out.hearts``."""
        target = out.hearts
        target.phase = hearts_pb2.HeartsView.Phase.ValueType(view.phase)
        target.hand_number = view.hand_number
        target.pass_direction = hearts_pb2.HeartsPassDirection.ValueType(view.pass_direction)
        target.hand.extend(encode_cards(view.hand))
        target.passed.extend(encode_cards(view.passed))
        target.received.extend(encode_cards(view.received))
        target.pass_submitted.extend(view.pass_submitted)
        if view.trick is not None:
            target.trick.CopyFrom(_encode_trick(view.trick))
        if view.last_trick is not None:
            target.last_trick.CopyFrom(_encode_trick(view.last_trick))
        target.completed_tricks.extend(_encode_trick(trick) for trick in view.completed_tricks)
        if view.previous_hand is not None:
            target.previous_hand.CopyFrom(_encode_finished(view.previous_hand))
        target.tricks_played = view.tricks_played
        target.hearts_broken = view.hearts_broken
        target.tricks_won.extend(view.tricks_won)
        target.points_taken.extend(view.points_taken)
        for scores in view.hand_scores:
            target.hand_scores.add(scores=scores)
        target.totals.extend(view.totals)
        target.options.CopyFrom(encode_options(config, hearts_pb2.HeartsOptions))

    def encode_state(self, state: HeartsState, out: snapshot_pb2.GameRecord) -> None:
        """Store the whole position, hidden parts included.

        The last trick is also written on its own, as before the history was kept, so that a
        reader of the older layout still finds it.
        """
        target = out.hearts
        target.phase = state.phase
        target.hand_number = state.hand_number
        target.hands.extend(state.hands)
        target.passed.extend(state.passed)
        target.trick_leader = state.trick.leader
        target.trick_cards = bytes(state.trick.cards)
        target.tricks_played = state.tricks_played
        target.hearts_broken = state.hearts_broken
        target.points.extend(state.points)
        target.tricks_won.extend(state.tricks_won)
        if state.last_trick is not None:
            target.has_last_trick = True
            target.last_trick_leader = state.last_trick.leader
            target.last_trick_cards = bytes(state.last_trick.cards)
        target.opener = state.opener
        target.totals.extend(state.totals)
        target.hand_scores.extend(score for hand in state.hand_scores for score in hand)
        target.winners.extend(state.winners)
        if state.completed:
            _store_tricks(state.completed, target.completed)
        if state.previous_hand is not None:
            stored = target.previous_hand
            stored.hand_number = state.previous_hand.hand_number
            _store_tricks(state.previous_hand.tricks, stored.tricks)
            stored.points_taken.extend(state.previous_hand.points_taken)
            stored.scores.extend(state.previous_hand.scores)

    def decode_state(self, record: snapshot_pb2.GameRecord) -> HeartsState:
        """Rebuild the position stored by :meth:`encode_state`."""
        source = record.hearts
        scores = tuple(source.hand_scores)
        return HeartsState(
            seed=record.seed,
            phase=Phase(source.phase),
            hand_number=source.hand_number,
            hands=tuple(source.hands),
            passed=tuple(source.passed),
            trick=Trick(source.trick_leader, tuple(CARDS[c] for c in source.trick_cards)),
            tricks_played=source.tricks_played,
            hearts_broken=source.hearts_broken,
            points=tuple(source.points),
            tricks_won=tuple(source.tricks_won),
            opener=source.opener,
            totals=tuple(source.totals),
            hand_scores=tuple(scores[i : i + 4] for i in range(0, len(scores), 4)),
            winners=tuple(source.winners),
            completed=_load_tricks(source.completed) or _old_last_trick(source),
            previous_hand=(
                FinishedHand(
                    source.previous_hand.hand_number,
                    _load_tricks(source.previous_hand.tricks),
                    tuple(source.previous_hand.points_taken),
                    tuple(source.previous_hand.scores),
                )
                if source.HasField("previous_hand")
                else None
            ),
        )
