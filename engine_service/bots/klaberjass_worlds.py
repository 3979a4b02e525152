"""The Klaberjass adapter of the search bot: the other hand and the stock, from one view.

What a seat knows about the hidden cards, and so what every sampled world respects:

- its own hand; every card played this deal (the completed tricks and the current one), the
  card on the table (the turn-up, or the trump 7 after a dix) and, once the deal is complete,
  the stock's bottom card, which is in the stock (K-R10), are in no hidden hand;
- shown voids and forced plays (K-R17, K-R18): an opponent that did not follow the suit led
  holds none of it; one that neither followed nor trumped holds no trump; one that answered
  a trump lead without beating it holds none of the trumps above the card led;
- the sequences once compared (K-R12 .. K-R14): the winner's shown cards not yet played are
  in its hand, and the two nine-card hands of the deal give the public comparison (checked
  by redrawing, at most :data:`SEQUENCE_TRIES` times, when sequences are declared
  automatically);
- the dix (K-R11): the seat that swapped holds the card it took, the original turn-up
  (the view's ``dix_taken``), unless it is among its played cards;
- card counts: the opponent holds what the view says, the stock the rest.

Bids are no hard fact (a pass may hide a strong hand), so they shape nothing here.

While bidding, the three cards each still to come and the bottom card come out of the deal
order of the world's seed (K-R10, :func:`~engine_service.games.klaberjass.rules.deal_order`);
the seed is drawn from ``rng`` until that order gives no card that the view places elsewhere
(about one seed in seven), and the other six cards of the opponent are then drawn from the
rest, so the world is uniform among those the view allows.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from engine_service.bots.klaberjass_heuristic import KlaberjassHeuristicBot
from engine_service.bots.search import ValueKind, playout_value, seat_bot_action
from engine_service.core.cards import Card, Suit, cards_in
from engine_service.games.klaberjass.actions import KlaberjassAction
from engine_service.games.klaberjass.cards import PACK_MASK, TRUMPS_ABOVE, suit_mask
from engine_service.games.klaberjass.config import KlaberjassConfig
from engine_service.games.klaberjass.rules import PACKET, TURN_UP, KlaberjassRules, deal_order
from engine_service.games.klaberjass.sequences import compare_sequences
from engine_service.games.klaberjass.state import (
    SEATS,
    TRICKS,
    KlaberjassState,
    Phase,
)
from engine_service.games.klaberjass.view import KlaberjassView

SEARCH_BUDGET: Final = 200
"""Playouts per Klaberjass decision: some 50 ms of CPU compiled, p99 under 80 ms (docs/bots.md)."""
PLAYOUT_BOT: Final = KlaberjassHeuristicBot()
"""Every seat's player in a playout, on its own view of the sampled world."""
SEED_TRIES: Final = 2000
"""Seeds tried while bidding before giving up (a seed fits with chance about 1/7)."""
SEQUENCE_TRIES: Final = 64
"""Redraws of the opponent's hand until the public sequence comparison comes out again."""
GAME_BONUS: Final = 162.0
"""Value of winning the game with a deal, against losing it: one deal's card points."""
_SECOND_DEAL_START: Final = TURN_UP + 1  # deck index after the turn-up


@dataclass(frozen=True, slots=True)
class Knowledge:
    """The public facts about the hidden cards of one seat's view (module docstring).

    Attributes:
        seat: the viewer.
        own: the viewer's hand as a bitmask.
        known_elsewhere: cards in no hidden place: own hand, played, on the table.
        unknown: cards that are in the opponent's hand or in the stock.
        must_hold: cards the opponent certainly holds (shown sequences, the dix's card).
        may_hold: cards the opponent may hold (shown voids and forced plays removed).
        opponent_count: how many cards the opponent holds.
        in_stock: cards certainly in the stock (the bottom card).
    """

    seat: int
    own: int
    known_elsewhere: int
    unknown: int
    must_hold: int
    may_hold: int
    opponent_count: int
    in_stock: int


def _mask(cards: Sequence[Card]) -> int:
    mask = 0
    for card in cards:
        mask |= card.bit
    return mask


def _excluded_by_play(led: Card, answer: Card, trump: Suit) -> int:
    """The cards an answer to ``led`` shows the follower did not hold (K-R17, K-R18)."""
    if led.suit is trump:
        if answer.suit is not trump:
            return suit_mask(trump)
        if not TRUMPS_ABOVE[led] >> answer & 1:
            return TRUMPS_ABOVE[led]
        return 0
    if answer.suit is led.suit:
        return 0
    if answer.suit is trump:
        return suit_mask(led.suit)
    return suit_mask(led.suit) | suit_mask(trump)


def gather(view: KlaberjassView) -> Knowledge:
    """Read the public facts about the hidden cards from ``view``."""
    seat = view.seat
    if seat is None:
        raise ValueError("a spectator's view has no hand to search from")
    opponent = 1 - seat
    own = _mask(view.hand)
    played = _mask(view.played[0]) | _mask(view.played[1])
    known = own | played | view.turn_up.bit
    in_stock = view.bottom.bit if view.bottom is not None else 0
    may_hold = PACK_MASK & ~known & ~in_stock
    if view.trump is not None:
        tricks = [(t.leader, t.cards) for t in view.completed_tricks]
        tricks.append((view.trick.leader, view.trick.cards))
        for leader, cards in tricks:
            if len(cards) == SEATS and leader == seat:
                may_hold &= ~_excluded_by_play(cards[0], cards[1], view.trump)
    must_hold = 0
    sequences = view.sequences
    if sequences is not None and sequences.winner == opponent:
        must_hold |= _mask(sequences.cards)
    if view.dix_by == opponent and view.dix_taken is not None:
        must_hold |= view.dix_taken.bit
    must_hold &= ~played
    return Knowledge(
        seat=seat,
        own=own,
        known_elsewhere=known,
        unknown=PACK_MASK & ~known,
        must_hold=must_hold,
        may_hold=may_hold | must_hold,
        opponent_count=view.hand_sizes[opponent],
        in_stock=in_stock,
    )


def _draw(pool: int, count: int, rng: random.Random) -> int:
    """``count`` cards of ``pool`` drawn uniformly from ``rng``, as a bitmask."""
    cards = list(cards_in(pool))
    if count > len(cards):
        raise ValueError("the view's public facts admit no deal")
    return _mask(rng.sample(cards, count))


def _opponent_hand(knowledge: Knowledge, pool: int, rng: random.Random) -> int:
    """The opponent's cards: the certain ones, then the rest drawn from what it may hold."""
    must = knowledge.must_hold
    free = pool & knowledge.may_hold & ~must
    return must | _draw(free, knowledge.opponent_count - must.bit_count(), rng)


def _bidding_seed(view: KlaberjassView, knowledge: Knowledge, rng: random.Random) -> int:
    """A seed whose deal order brings no card placed by the view into the second deal."""
    for _ in range(SEED_TRIES):
        seed = rng.getrandbits(62)
        deck = deal_order(seed, view.deal_number)
        coming = deck[_SECOND_DEAL_START : _SECOND_DEAL_START + PACKET * SEATS]
        if not (_mask(coming) | deck[-1].bit) & knowledge.known_elsewhere:
            return seed
    raise ValueError("no deal order fits the view")


def _seat_pair(seat: int, mine: int, theirs: int) -> tuple[int, int]:
    return (mine, theirs) if seat == 0 else (theirs, mine)


def sample_hands(
    view: KlaberjassView, knowledge: Knowledge, config: KlaberjassConfig, rng: random.Random
) -> tuple[int, int, int, int]:
    """One world's seed, the two hands as seat-ordered bitmasks, and the stock."""
    seat = knowledge.seat
    if view.phase in (Phase.BIDDING_TURNED_SUIT, Phase.BIDDING_OTHER_SUIT):
        seed = _bidding_seed(view, knowledge, rng)
        deck = deal_order(seed, view.deal_number)
        coming = _mask(deck[_SECOND_DEAL_START : _SECOND_DEAL_START + PACKET * SEATS])
        pool = knowledge.unknown & ~coming & ~deck[-1].bit
        theirs = _opponent_hand(knowledge, pool, rng)
        hands = _seat_pair(seat, knowledge.own, theirs)
        return seed, hands[0], hands[1], knowledge.unknown & ~theirs
    seed = rng.getrandbits(62)
    theirs = 0
    for _ in range(SEQUENCE_TRIES):
        theirs = _opponent_hand(knowledge, knowledge.unknown, rng)
        if _fits_melds(view, knowledge, config, theirs):
            break
    hands = _seat_pair(seat, knowledge.own, theirs)
    return seed, hands[0], hands[1], knowledge.unknown & ~theirs


def _meld_hands(view: KlaberjassView, hands: tuple[int, int]) -> tuple[int, int]:
    """The nine cards each seat held when play began: its hand and what it played since."""
    return (hands[0] | _mask(view.played[0]), hands[1] | _mask(view.played[1]))


def _fits_melds(
    view: KlaberjassView, knowledge: Knowledge, config: KlaberjassConfig, theirs: int
) -> bool:
    """Whether the opponent's hand ``theirs`` agrees with the sequences shown."""
    if view.sequences is None or not config.auto_declare_sequences:
        return True
    melds = _meld_hands(view, _seat_pair(knowledge.seat, knowledge.own, theirs))
    assert view.trump is not None  # sequences are compared only once trump is fixed
    shown = compare_sequences(melds, (True, True), view.trump, config.score_all_winner_sequences)
    return shown == view.sequences


def world_of(
    view: KlaberjassView, seed: int, hands: tuple[int, int], stock: int
) -> KlaberjassState:
    """The full state of ``view`` with the hidden cards as given."""
    playing = view.phase is Phase.PLAYING
    return KlaberjassState(
        seed=seed,
        phase=view.phase,
        deal_number=view.deal_number,
        dealer=view.dealer,
        to_move=view.to_act[0] if view.to_act else view.dealer,
        hands=hands,
        stock=stock,
        turn_up=view.turn_up,
        bottom=view.bottom,
        bids=view.bids,
        trump=view.trump,
        maker=view.maker,
        dix_by=view.dix_by,
        dix_taken=view.dix_taken,
        meld_hands=_meld_hands(view, hands) if playing else (0, 0),
        declared=(True, True),
        sequences=view.sequences,
        trick=view.trick,
        last_trick=view.last_trick,
        tricks_played=view.tricks_played,
        tricks_won=view.tricks_won,
        card_points=view.card_points,
        played=(_mask(view.played[0]), _mask(view.played[1])),
        bella_by=view.bella_by,
        totals=view.totals,
        deals=view.deals,
        winners=view.winners,
        completed_tricks=view.completed_tricks,
        previous_deal=view.previous_deal,
    )


def sample_world(
    rules: KlaberjassRules, view: KlaberjassView, rng: random.Random
) -> KlaberjassState:
    """A full state consistent with every public fact of ``view`` (module docstring)."""
    knowledge = gather(view)
    seed, first, second, stock = sample_hands(view, knowledge, rules.config, rng)
    return world_of(view, seed, (first, second), stock)


class KlaberjassWorlds:
    """The :class:`~engine_service.bots.search.Worlds` adapter of Klaberjass."""

    @property
    def max_playout_moves(self) -> int:
        """A deal is at most four bids, two dix decisions and 18 cards."""
        return 4 + 2 + TRICKS * SEATS

    @property
    def switch_margin(self) -> float:
        """No margin: the best mean wins, as it always did."""
        return 0.0

    @property
    def value_kind(self) -> ValueKind:
        """The seat's deal score minus the opponent's (:meth:`value`)."""
        return ValueKind.DEAL_SCORE_MARGIN

    def seat(self, view: KlaberjassView) -> int:
        """The viewer; a spectator cannot be searched for."""
        if view.seat is None:
            raise ValueError("a spectator's view has no seat")
        return view.seat

    def default_rules(self, view: KlaberjassView) -> KlaberjassRules:
        """The default rules to the view's target."""
        return KlaberjassRules(KlaberjassConfig(target=view.target))

    def candidates(
        self, view: KlaberjassView, legal: Sequence[KlaberjassAction]
    ) -> Sequence[KlaberjassAction]:
        """Every legal action: a Klaberjass turn has at most nine."""
        return legal

    def sample_world(
        self, rules: KlaberjassRules, view: KlaberjassView, rng: random.Random
    ) -> KlaberjassState:
        """A deal consistent with the view, in a state ``rules`` plays on."""
        return sample_world(rules, view, rng)

    def playout_action(
        self, rules: KlaberjassRules, state: KlaberjassState, seat: int, rng: random.Random
    ) -> KlaberjassAction:
        """The heuristic bot's move on the seat's own view of the world.

        Uniformly random playouts (the policy until then) let either side throw away tricks
        no player would, so they ranked a turn's options by what a careless opponent gives:
        over the tournament's 200 games to 500 the search won 74.0 % ± 5.1 % against the
        heuristic with 100 random playouts and 77.5 % ± 5.1 % with 300, and 85.0 % ± 4.5 %
        with 200 of these (docs/bots.md).
        """
        action: KlaberjassAction = seat_bot_action(PLAYOUT_BOT, rules, state, seat, rng)
        return action

    def play_out(
        self, rules: KlaberjassRules, state: KlaberjassState, seat: int, rng: random.Random
    ) -> float:
        """The generic playout with :meth:`playout_action`, then :meth:`value`."""
        return playout_value(self, rules, state, seat, rng)

    def hand_over(self, before: KlaberjassState, after: KlaberjassState) -> bool:
        """A deal ends when it is scored or thrown in: the deal history grows."""
        return len(after.deals) != len(before.deals)

    def value(self, rules: KlaberjassRules, state: KlaberjassState, seat: int) -> float:
        """The seat's score from the deal minus the opponent's, with the game if it ended."""
        if not state.deals:
            return 0.0
        scores = state.deals[-1].scores
        value = float(scores[seat] - scores[1 - seat])
        if state.phase is Phase.GAME_OVER:
            value += GAME_BONUS if seat in state.winners else -GAME_BONUS
        return value
