"""Conformance knowledge for two-player Klaberjass (``seeds/klaberjass.md``, K-R1 .. K-R21).

Besides the bookkeeping the suite needs (cards, secrets, scores), the adapter re-reads the
bidding (K-R5, K-R6), the play rules (K-R17, K-R18), trick taking and card points (K-R2, K-R3,
K-R19), sequences (K-R12, K-R13), bella (K-R15) and deal scoring (K-R20) with its own tables,
so that random games also catch an error that the rules' listing and check share.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping
from itertools import chain
from typing import Final

from engine_service.core.cards import Card, Suit, cards_in
from engine_service.core.protocol import Outcome
from engine_service.games.klaberjass.actions import (
    Dix,
    KlaberjassAction,
    PassBid,
    PlayCard,
    TakeTrump,
)
from engine_service.games.klaberjass.cards import PACK
from engine_service.games.klaberjass.config import EqualTotals, KlaberjassConfig
from engine_service.games.klaberjass.rules import KlaberjassRules, original_turn_up
from engine_service.games.klaberjass.state import (
    SEATS,
    TRICKS,
    KlaberjassState,
    Phase,
)
from engine_service.games.klaberjass.view import KlaberjassView
from tests.conformance.adapter import CardId, Log, cards_anywhere
from tests.volume import volume

FULL_PACK: Final[Counter[Hashable]] = Counter(PACK)
NATURAL_ORDER: Final = "789TJQKA"  # K-R2 natural order, for sequences (K-R12)
TRUMP_RANKING: Final = "78QKTA9J"  # K-R2 trump suit, low to high
PLAIN_RANKING: Final = "789JQKTA"  # K-R2 other suits, low to high
TRUMP_POINTS: Final = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3}  # K-R3
PLAIN_POINTS: Final = {"J": 2, "A": 11, "T": 10, "K": 4, "Q": 3}
DEAL_CARD_POINTS: Final = 152 + 10  # K-R3: at most the pack (18 of its cards are played) + 10
BELLA: Final = 20  # K-R15

IllegalMaker = Callable[
    [KlaberjassRules, KlaberjassState, random.Random], tuple[int, KlaberjassAction]
]
"""Builds one kind of illegal ``(seat, action)`` for a state where that kind exists."""


def letter(card: Card) -> str:
    """The rank letter of a card (``T`` for ten)."""
    return str(card)[0]


def points(card: Card, trump: Suit) -> int:
    """K-R3, from the adapter's own tables."""
    return (TRUMP_POINTS if card.suit is trump else PLAIN_POINTS).get(letter(card), 0)


def takes(second: Card, first: Card, trump: Suit) -> bool:
    """Whether the second card of a trick beats the first (K-R2, K-R19)."""
    if second.suit is first.suit:
        ranking = TRUMP_RANKING if first.suit is trump else PLAIN_RANKING
        return ranking.index(letter(second)) > ranking.index(letter(first))
    return second.suit is trump


def best_run(hand: int, trump: Suit) -> tuple[int, int, bool] | None:
    """The best sequence of a hand as ``(length, top rank index, is trump)`` (K-R12, K-R13)."""
    best = None
    for suit in Suit:
        held = {letter(card) for card in cards_in(hand) if card.suit is suit}
        length = 0
        for top, rank in enumerate(NATURAL_ORDER):
            length = length + 1 if rank in held else 0
            if length >= 3:
                best = max(best or (0, 0, False), (length, top, suit is trump))
    return best


def check_bid(before: KlaberjassState, action: TakeTrump) -> None:
    """K-R5 takes the turned suit only; K-R6 any other suit."""
    turned = before.turn_up.suit
    if before.phase is Phase.BIDDING_TURNED_SUIT:
        assert action.suit is turned, f"took {action.suit.name} in round 1 (K-R5)"
    else:
        assert action.suit is not turned, "took the turned suit in round 2 (K-R6)"


def check_play_follows_rules(before: KlaberjassState, seat: int, card: Card) -> None:
    """K-R17/K-R18 read afresh, so that a wrong legality mask cannot pass unseen."""
    trump = before.trump
    assert trump is not None
    if not before.trick.cards:
        return
    hand = list(cards_in(before.hands[seat]))
    led = before.trick.cards[0]
    same = [c for c in hand if c.suit is led.suit]
    trumps = [c for c in hand if c.suit is trump]
    if led.suit is trump:
        higher = [c for c in trumps if takes(c, led, trump)]
        assert card in (higher or trumps or hand), f"{card} on trump {led} (K-R18)"
    else:
        assert card in (same or trumps or hand), f"{card} on {led} (K-R17)"


def expected_deal_points(
    config: KlaberjassConfig, before: KlaberjassState, seat: int, action: PlayCard
) -> tuple[int, int]:
    """Each seat's deal total after the last card, from the adapter's own tables (K-R20)."""
    trump, maker = before.trump, before.maker
    assert trump is not None and maker is not None and before.sequences is not None
    last = (*before.trick.cards, action.card)
    winner = before.trick.leader if not takes(last[1], last[0], trump) else seat
    taken = list(before.card_points)
    taken[winner] += points(last[0], trump) + points(last[1], trump) + 10  # K-R19
    on_table = sum(points(c, trump) for c in cards_in(before.played[0] | before.played[1]))
    assert sum(taken) == on_table + points(action.card, trump) + 10, f"card points {taken} (K-R3)"
    tricks = list(before.tricks_won)
    tricks[winner] += 1
    result = list(taken)
    sequences = before.sequences
    scorer = sequences.winner
    if scorer is not None and (tricks[scorer] or not config.melds_need_a_trick):  # K-R14
        result[scorer] += sequences.points
    bella = before.bella_by
    if bella is None and action.announce_bella and completes_bella(before, seat, action.card):
        bella = seat
    if bella is not None:
        result[bella] += BELLA
    return result[0], result[1]


def completes_bella(before: KlaberjassState, seat: int, card: Card) -> bool:
    """Whether ``card`` is the second of trump K and Q played by ``seat`` (K-R15)."""
    trump = before.trump
    if card.suit is not trump or letter(card) not in "KQ":
        return False
    other = Card.of(25 - card.rank, card.suit)  # K=13 <-> Q=12
    return bool(before.played[seat] & other.bit)


def expected_scores(deal_points: tuple[int, int], maker: int) -> tuple[int, int]:
    """K-R20: maker ahead scores both; a tie gives the maker 0; behind, the opponent takes all."""
    other = 1 - maker
    scores = [0, 0]
    if deal_points[maker] > deal_points[other]:
        return deal_points
    scores[other] = (
        deal_points[other] if deal_points[maker] == deal_points[other] else sum(deal_points)
    )
    return scores[0], scores[1]


def check_sequences(config: KlaberjassConfig, state: KlaberjassState) -> None:
    """K-R12/K-R13: the best declared sequence wins; a plain tie scores nothing."""
    trump = state.trump
    result = state.sequences
    assert trump is not None and result is not None
    best = [
        best_run(state.meld_hands[seat], trump) if state.declared[seat] else None
        for seat in range(SEATS)
    ]
    if best[0] == best[1]:  # both without, or a plain tie (two trump runs cannot tie)
        assert result.winner is None and not result.cards, f"sequences {result} of {best}"
        return
    winner = 0 if best[1] is None or (best[0] is not None and best[0] > best[1]) else 1
    top = best[winner]
    assert top is not None and result.winner == winner, f"sequence winner {result} of {best}"
    assert all(state.meld_hands[winner] >> card & 1 for card in result.cards)
    if not config.score_all_winner_sequences:
        expected = 20 if top[0] == 3 else 50
        assert (result.points, len(result.cards)) == (expected, top[0]), result
    else:
        assert result.points >= (20 if top[0] == 3 else 50), result


class KlaberjassAdapter:
    """The Klaberjass answers to :class:`tests.conformance.adapter.GameAdapter`."""

    # A deal adds roughly 100 to 200 points to the totals, so targets up to 300 end most games
    # after one to four deals and nearly every deal runs the end-of-game check (K-R21);
    # full-length games to the default 500 are played separately. The full 800 games are
    # near 30 s of one core.
    int_ranges: Mapping[str, tuple[int, int]] = {"target": (1, 300)}
    random_games = volume(100, 800)

    def deck(self) -> Counter[Hashable]:
        return FULL_PACK

    def all_cards(self, state: KlaberjassState, log: Log) -> Counter[Hashable]:
        """Hands, the stock, the turn-up card and every card played this deal (K-R1)."""
        masks = (*state.hands, state.stock, *state.played)
        return Counter(chain(*map(cards_in, masks), (state.turn_up,)))

    def hidden_cards(self, state: KlaberjassState, seat: int | None) -> frozenset[CardId]:
        """The other hand and the stock, minus the shown bottom card, scored sequences and the
        turn-up card a dix swap took into a hand (it was face up, K-R11)."""
        shown = set(state.sequences.cards if state.sequences else ())
        if state.bottom is not None:
            shown.add(state.bottom)
        if state.dix_by is not None:
            shown.add(turned_up(state.seed, state.deal_number))
        secret = state.stock
        for other in range(SEATS):
            if other != seat:
                secret |= state.hands[other]
        return _dealt(state.deal_number, tuple(c for c in cards_in(secret) if c not in shown))

    def visible_cards(self, view: KlaberjassView) -> frozenset[CardId]:
        """Every card a view shows: the current deal's, and the previous deal's while shown."""
        cards: list[Iterable[Card]] = [view.hand, (view.turn_up,), *view.played, view.trick.cards]
        if view.bottom is not None:
            cards.append((view.bottom,))
        if view.dix_taken is not None:
            cards.append((view.dix_taken,))
        if view.sequences is not None:
            cards.append(view.sequences.cards)
        if view.last_trick is not None:
            cards.append(view.last_trick.cards)
        cards += [trick.cards for trick in view.completed_tricks]
        found = _dealt(view.deal_number, tuple(chain(*cards)))
        previous = view.previous_deal
        if previous is None:
            return found
        earlier: list[Iterable[Card]] = [trick.cards for trick in previous.tricks]
        if previous.sequences is not None:
            earlier.append(previous.sequences.cards)
        return found | _dealt(previous.deal_number, tuple(chain(*earlier)))

    def event_cards(
        self, fact: object, before: KlaberjassState, after: KlaberjassState
    ) -> frozenset[CardId]:
        """The cards an event names, in the deal it names or else the deal acted in.

        Only the deal's start and its cards dealt name a deal (possibly ``after``'s new one);
        every other event tells of the deal of ``before``, even when ``after`` has moved on.
        """
        deal = getattr(fact, "deal_number", before.deal_number)
        return _dealt(deal, tuple(cards_anywhere(fact)))

    def sample_illegal(
        self, rules: KlaberjassRules, state: KlaberjassState, rng: random.Random
    ) -> tuple[int, KlaberjassAction]:
        makers: list[IllegalMaker]
        if state.phase is Phase.GAME_OVER:
            makers = [_turn(_any_bid), _out_of_turn(_any_play)]
        elif state.phase is Phase.DIX:
            makers = [_out_of_turn(_any_dix), _turn(_any_bid), _turn(_any_play)]
            assert state.trump is not None
            if not state.hands[state.turn] & Card.of(7, state.trump).bit:
                makers.append(_turn(lambda *_: Dix(swap=True)))
        elif state.phase is Phase.PLAYING:
            makers = [_out_of_turn(_any_play), _turn(_any_bid), _turn(_any_dix), _foreign_card]
            if state.hands[state.turn] & ~rules.playable(state, state.turn):
                makers.append(_unplayable_card)
            makers.append(_needless_flag)
        else:
            makers = [_out_of_turn(_any_bid), _turn(_any_dix), _turn(_any_play), _wrong_suit]
        return rng.choice(makers)(rules, state, rng)

    def check_transition(
        self,
        config: KlaberjassConfig,
        before: KlaberjassState,
        action: KlaberjassAction,
        after: KlaberjassState,
    ) -> None:
        """Bids and plays were legal; tricks, bella and finished deals score right.

        After every action the card a dix took is the deal's original turn-up while its swap
        stands, and nothing before a swap or in a new deal (K-R11).
        """
        seat = before.turn
        taken = after.dix_taken
        if after.dix_by is None:
            assert taken is None, f"dix_taken {taken} without a swap (K-R11)"
        else:
            assert taken == turned_up(after.seed, after.deal_number), "K-R11 dix_taken"
        if isinstance(action, TakeTrump):
            check_bid(before, action)
            assert (after.trump, after.maker) == (action.suit, seat), "K-R5/K-R6 maker"
        if isinstance(action, PassBid) and after.deal_number > before.deal_number:
            assert len(before.bids) == 3 and after.dealer == 1 - before.dealer, "K-R7 throw-in"
            assert after.totals == before.totals
        if isinstance(action, Dix) and action.swap:
            assert before.trump is not None
            assert after.turn_up == Card.of(7, before.trump), "K-R11 swap"
            assert after.hands[seat] >> before.turn_up & 1, "K-R11: the turn-up goes to hand"
        if not isinstance(action, PlayCard):
            return
        check_play_follows_rules(before, seat, action.card)
        same_deal = after.deal_number == before.deal_number
        if same_deal and action.announce_bella and completes_bella(before, seat, action.card):
            assert after.bella_by == seat, "K-R15 bella not scored"
        if len(before.trick.cards) != 1:
            return
        if before.tricks_played == 0 and same_deal:
            check_sequences(config, after)
        if before.tricks_played + 1 < TRICKS:
            self._check_trick(before, seat, action, after)
            return
        maker = before.maker
        assert maker is not None
        deal_points = expected_deal_points(config, before, seat, action)
        deal = after.deals[-1]
        assert (deal.dealer, deal.maker, deal.trump) == (before.dealer, maker, before.trump)
        assert deal.points == deal_points, f"deal points {deal.points}, expected {deal_points}"
        assert deal.scores == expected_scores(deal_points, maker), f"K-R20 {deal}"

    @staticmethod
    def _check_trick(
        before: KlaberjassState, seat: int, action: PlayCard, after: KlaberjassState
    ) -> None:
        trump = before.trump
        assert trump is not None
        first = before.trick.cards[0]
        winner = seat if takes(action.card, first, trump) else before.trick.leader
        gained = points(first, trump) + points(action.card, trump)
        assert after.trick.leader == winner, "K-R16: the winner leads"
        assert after.card_points[winner] == before.card_points[winner] + gained, "K-R3"
        assert sum(after.card_points) == sum(before.card_points) + gained
        assert after.tricks_won[winner] == before.tricks_won[winner] + 1, "K-R19"

    def check_scores(self, config: KlaberjassConfig, state: KlaberjassState) -> None:
        """Every deal scored by the maker rule; totals are the sum of the deals' scores."""
        for deal in state.deals:
            if deal.maker is None:
                assert deal.points == deal.scores == (0, 0), f"thrown-in deal {deal}"
            else:
                assert deal.scores == expected_scores(deal.points, deal.maker), f"K-R20 {deal}"
                assert sum(deal.points) >= 10, f"deal points {deal.points} (K-R19 last trick)"
        sums = tuple(sum(deal.scores[s] for deal in state.deals) for s in range(SEATS))
        assert state.totals == sums, f"totals {state.totals} != {sums}"
        assert sum(state.card_points) <= DEAL_CARD_POINTS

    def check_outcome(
        self, config: KlaberjassConfig, state: KlaberjassState, outcome: Outcome
    ) -> None:
        """K-R21: a total reached the target; the higher total wins (or the maker, by option)."""
        assert outcome.scores == state.totals
        assert max(outcome.scores) >= config.target, "ended below the target (K-R21)"
        (winner,) = outcome.winners
        first, second = outcome.scores
        if first != second:
            assert outcome.scores[winner] == max(outcome.scores), "K-R21: higher total wins"
        else:
            assert config.equal_totals is EqualTotals.MAKER_WINS, "K-R21: equal totals ended"
            assert winner == state.deals[-1].maker


@functools.lru_cache(maxsize=1 << 10)
def turned_up(seed: int, deal_number: int) -> Card:
    """The card turned up at a deal (K-R4), before any dix swap; cached, as every step asks."""
    return original_turn_up(seed, deal_number)


@functools.lru_cache(maxsize=1 << 14)
def _dealt(deal: int, cards: tuple[Card, ...]) -> frozenset[CardId]:
    """``cards`` in deal ``deal``; cached, since a hand is looked at many times a step."""
    return frozenset(CardId(deal, card) for card in cards)


def _turn(
    make: Callable[[KlaberjassState, random.Random], KlaberjassAction],
) -> IllegalMaker:
    """A maker of an action of another phase, by the seat whose turn it is."""
    return lambda _rules, state, rng: (state.turn, make(state, rng))


def _out_of_turn(
    make: Callable[[KlaberjassState, random.Random], KlaberjassAction],
) -> IllegalMaker:
    """A maker of an action of this phase by the seat that is not to act."""
    return lambda _rules, state, rng: (1 - state.turn, make(state, rng))


def _any_bid(_state: KlaberjassState, rng: random.Random) -> KlaberjassAction:
    return rng.choice([PassBid(), TakeTrump(rng.choice(list(Suit)))])


def _any_dix(_state: KlaberjassState, rng: random.Random) -> KlaberjassAction:
    return Dix(swap=rng.random() < 0.5)


def _any_play(_state: KlaberjassState, rng: random.Random) -> KlaberjassAction:
    return PlayCard(rng.choice(PACK))


def _foreign_card(
    _rules: KlaberjassRules, state: KlaberjassState, rng: random.Random
) -> tuple[int, KlaberjassAction]:
    hand = state.hands[state.turn]
    return state.turn, PlayCard(rng.choice([c for c in PACK if not hand >> c & 1]))


def _unplayable_card(
    rules: KlaberjassRules, state: KlaberjassState, rng: random.Random
) -> tuple[int, KlaberjassAction]:
    mask = state.hands[state.turn] & ~rules.playable(state, state.turn)
    return state.turn, PlayCard(rng.choice(list(cards_in(mask))))


def _needless_flag(
    rules: KlaberjassRules, state: KlaberjassState, rng: random.Random
) -> tuple[int, KlaberjassAction]:
    """Declining bella or concealing sequences where that choice does not exist (K-R14, K-R15).

    Falls back to a card not in the hand when every playable card offers both choices.
    """
    seat = state.turn
    playable = list(cards_in(rules.playable(state, seat)))
    plays = [
        PlayCard(c, announce_bella=False) for c in playable if not completes_bella(state, seat, c)
    ]
    if rules.config.auto_declare_sequences or state.played[seat]:
        plays += [PlayCard(card, declare_sequences=False) for card in playable]
    if not plays:
        return _foreign_card(rules, state, rng)
    return seat, rng.choice(plays)


def _wrong_suit(
    _rules: KlaberjassRules, state: KlaberjassState, rng: random.Random
) -> tuple[int, KlaberjassAction]:
    """Round 1: a suit other than the turned one (K-R5); round 2: the turned one (K-R6)."""
    turned = state.turn_up.suit
    if state.phase is Phase.BIDDING_OTHER_SUIT:
        return state.turn, TakeTrump(turned)
    return state.turn, TakeTrump(rng.choice([s for s in Suit if s is not turned]))
