"""The Guandan rules object: deals, tribute returns, play, levels (``seeds/guandan.md``).

One method, :meth:`GuandanRules.check`, decides legality; :meth:`GuandanRules.legal_actions`
lists candidates from :mod:`engine_service.games.guandan.combos` and the return rule, and
:meth:`GuandanRules.apply` refuses anything ``check`` objects to.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Final

from engine_service.core.errors import RuleViolation, refuse, violation
from engine_service.core.events import Event
from engine_service.core.protocol import Outcome
from engine_service.games.guandan.actions import GuandanAction, PassTurn, PlayCards, ReturnCard
from engine_service.games.guandan.cards import Hand, format_kinds, hand_of
from engine_service.games.guandan.combos import allowed_readings, beats, plays
from engine_service.games.guandan.config import FailAtAce, GuandanConfig
from engine_service.games.guandan.dealing import deal_hands, first_leader
from engine_service.games.guandan.events import deal_events, play_events, return_events
from engine_service.games.guandan.levels import partner_place, promote, promotion_steps, wins_match
from engine_service.games.guandan.state import (
    SEATS,
    START_LEVEL,
    TOP_LEVEL,
    DealResult,
    GuandanState,
    Phase,
    RoundEntry,
    TopPlay,
    Tribute,
    partner_of,
    team_of,
)
from engine_service.games.guandan.tribute import (
    moved,
    pay,
    plan_tribute,
    red_joker_holders,
    returnable,
)
from engine_service.games.guandan.turns import next_turn
from engine_service.games.guandan.view import GuandanView, build_view


class GuandanRules:
    """Guandan under one :class:`GuandanConfig`. Stateless; every method is a pure function."""

    seats: Final = SEATS

    def __init__(self, config: GuandanConfig | None = None) -> None:
        self.config = config or GuandanConfig()

    # -- setup ---------------------------------------------------------------------------

    def new_game(self, seed: int) -> GuandanState:
        """The first deal: level 2, no tribute, a random leader (G-R4, G-R29)."""
        return GuandanState(
            seed=seed,
            phase=Phase.PLAYING,
            deal_number=0,
            levels=(START_LEVEL, START_LEVEL),
            level=START_LEVEL,
            declarer=None,
            ace_failures=(0, 0),
            hands=deal_hands(seed, 0),
            turn=first_leader(seed),
            top=None,
            passed=(),
            finished=(),
            tributes=(),
            red_joker_holders=(),
            previous_order=(),
        )

    def _next_deal(
        self, state: GuandanState, ace_failures: tuple[int, int], result: DealResult
    ) -> GuandanState:
        """Deal at the winners' level, then tribute or anti-tribute (G-R4, G-R29 .. G-R36).

        The ended deal's ``result`` stays in the state until the new deal's first play.
        """
        order, levels = result.order, result.levels
        declarer = team_of(order[0])
        level = levels[declarer]
        deal_number = state.deal_number + 1
        hands = deal_hands(state.seed, deal_number)
        plan = plan_tribute(order)
        holders = red_joker_holders(hands, plan.payers)
        tributes: tuple[Tribute, ...] = ()
        if not holders:
            tributes = pay(hands, plan, level, self.config.tribute_copy)
            for tribute in tributes:
                hands = moved(hands, tribute.payer, tribute.receiver, tribute.card)
        return GuandanState(
            seed=state.seed,
            phase=Phase.RETURNING if tributes else Phase.PLAYING,
            deal_number=deal_number,
            levels=levels,
            level=level,
            declarer=declarer,
            ace_failures=ace_failures,
            hands=hands,
            turn=tributes[0].payer if tributes else plan.first,  # G-R36
            top=None,
            passed=(),
            finished=(),
            tributes=tributes,
            red_joker_holders=holders,
            previous_order=order,
            previous_deal=result,
        )

    # -- questions -------------------------------------------------------------------------

    def current_seats(self, state: GuandanState) -> tuple[int, ...]:
        """Receivers still to choose their return, or the seat on turn; none once over."""
        if state.phase is Phase.RETURNING:
            return tuple(t.receiver for t in state.tributes if t.returned is None)
        if state.phase is Phase.PLAYING:
            return (state.turn,)
        return ()

    def legal_actions(self, state: GuandanState, seat: int) -> Sequence[GuandanAction]:
        """Every allowed return, or every distinct play (plus a pass when following)."""
        if seat not in self.current_seats(state):
            return ()
        if state.phase is Phase.RETURNING:
            tribute = _tribute_to(state, seat)
            kinds = returnable(state.hands[seat], tribute, state.level, self.config)
            return tuple(ReturnCard(kind) for kind in kinds)
        top = state.top.reading if state.top is not None else None
        actions: list[GuandanAction] = list(plays(state.hands[seat], state.level, top, self.config))
        if top is not None:
            actions.append(PassTurn())
        return actions

    def check(self, state: GuandanState, seat: int, action: GuandanAction) -> RuleViolation | None:
        """Why ``action`` is illegal for ``seat`` now, or ``None``.

        Reasons: GAME_OVER (G-R26); NOT_RETURNING_NOW, ALREADY_RETURNED, RETURN_NOT_ALLOWED,
        RETURNS_NOT_FINISHED (G-R35, G-R36); NOT_YOUR_TURN (G-R2); LEADER_MUST_PLAY (G-R17);
        CARD_NOT_IN_HAND (G-R1); NOT_A_COMBINATION (G-R8, G-R13); DOES_NOT_BEAT (G-R16).
        """
        if state.phase is Phase.GAME_OVER:
            return violation("GAME_OVER", "G-R26", "The match is over.")
        if isinstance(action, ReturnCard):
            return self._check_return(state, seat, action.card)
        if state.phase is Phase.RETURNING:
            return violation(
                "RETURNS_NOT_FINISHED", "G-R36", "Play starts once the tribute cards are returned."
            )
        if seat != state.turn:
            return violation(
                "NOT_YOUR_TURN", "G-R2", f"It is seat {state.turn}'s turn.", turn=str(state.turn)
            )
        if isinstance(action, PassTurn):
            if state.top is None:
                return violation("LEADER_MUST_PLAY", "G-R17", "The leader must play, not pass.")
            return None
        return self._check_play(state, seat, action)

    def _check_return(self, state: GuandanState, seat: int, card: int) -> RuleViolation | None:
        if state.phase is not Phase.RETURNING:
            return violation(
                "NOT_RETURNING_NOW", "G-R35", "Cards are returned only right after tribute."
            )
        tribute = next((t for t in state.tributes if t.receiver == seat), None)
        if tribute is None:
            return violation(
                "NOT_YOUR_TURN", "G-R35", "Only a seat that received tribute returns a card."
            )
        if tribute.returned is not None:
            return violation("ALREADY_RETURNED", "G-R35", "This seat has already returned a card.")
        if not state.hands[seat][card]:
            return _not_in_hand((card,))
        if card not in returnable(state.hands[seat], tribute, state.level, self.config):
            return violation(
                "RETURN_NOT_ALLOWED",
                "G-R35",
                "Return a card of rank 2 to 10 that is neither a joker nor a wild "
                "(or, without one, a card of the lowest strength).",
                card=format_kinds((card,)),
            )
        return None

    def _check_play(self, state: GuandanState, seat: int, play: PlayCards) -> RuleViolation | None:
        hand = state.hands[seat]
        wanted = hand_of(play.cards)
        if any(n > have for n, have in zip(wanted, hand, strict=True)):
            missing = [k for k, n in enumerate(wanted) if n > hand[k]]
            return _not_in_hand(missing)
        readings = allowed_readings(play.cards, state.level, self.config)
        if not readings:
            return violation(
                "NOT_A_COMBINATION",
                "G-R8",
                "These cards form no legal combination.",
                cards=format_kinds(play.cards),
            )
        if play.reading not in readings:
            return violation(
                "NOT_A_COMBINATION",
                "G-R13",
                f"These cards cannot be read as {play.reading}.",
                reading=str(play.reading),
                allowed=" ".join(str(r) for r in readings),
            )
        if state.top is not None and not beats(play.reading, state.top.reading, state.level):
            return violation(
                "DOES_NOT_BEAT",
                "G-R16",
                f"{play.reading} does not beat {state.top.reading}.",
                top=str(state.top.reading),
            )
        return None

    # -- moves -----------------------------------------------------------------------------

    def apply(self, state: GuandanState, seat: int, action: GuandanAction) -> GuandanState:
        """The state after ``action``.

        Raises:
            IllegalAction: :meth:`check` found a violation; nothing changes.
        """
        refuse(self.check(state, seat, action))
        if isinstance(action, ReturnCard):
            return _return(state, seat, action.card)
        if isinstance(action, PassTurn):
            assert state.top is not None  # check: the leader may not pass
            turn, won = next_turn(seat, state.top.seat, state.finished)
            history = (*state.round_history, RoundEntry(seat))
            top: TopPlay | None = None if won else state.top
            passed: tuple[int, ...] = () if won else (*state.passed, seat)
            return _moved_on(
                state,
                state.hands,
                turn,
                top,
                passed,
                state.finished,
                history,
                state.previous_deal,
                state.played,
            )
        return self._play(state, seat, action)

    def _play(self, state: GuandanState, seat: int, play: PlayCards) -> GuandanState:
        hand = _without(state.hands[seat], play.cards)
        hands = (*state.hands[:seat], hand, *state.hands[seat + 1 :])
        shown = _with(state.played[seat], play.cards)
        played = (*state.played[:seat], shown, *state.played[seat + 1 :])
        finished = (*state.finished, seat) if not any(hand) else state.finished
        entry = RoundEntry(seat, play.cards, play.reading)
        # A lead opens a new round; the round just won stayed in view until now.
        history = (entry,) if state.top is None else (*state.round_history, entry)
        if self._deal_over(finished):
            ended = replace(
                state, hands=hands, round_history=history, previous_deal=None, played=played
            )
            return self._end_deal(ended, _complete(finished))
        top = TopPlay(seat, play.cards, play.reading)
        turn, _ = next_turn(seat, seat, finished)
        return _moved_on(state, hands, turn, top, (), finished, history, None, played)

    def _deal_over(self, finished: tuple[int, ...]) -> bool:
        """G-R21: partners 1st and 2nd end the deal (option); G-R22: a third finisher does."""
        if len(finished) == 2 and finished[1] == partner_of(finished[0]):
            return self.config.end_deal_on_double_win
        return len(finished) == SEATS - 1

    def _end_deal(self, state: GuandanState, order: tuple[int, ...]) -> GuandanState:
        """Promote the winners, end the match (G-R26) or deal again (G-R24, G-R25, G-R27)."""
        team = team_of(order[0])
        place = partner_place(order)
        if wins_match(state.levels[team], state.level, place):
            # The last deal stays on view at game over, as every other deal does until the
            # next: no promotion, the levels as they were.
            last = _deal_result(state, order, team, 0, state.levels)
            return replace(
                state,
                phase=Phase.GAME_OVER,
                top=None,
                passed=(),
                finished=order,
                winners=tuple(sorted((order[0], partner_of(order[0])))),
                previous_deal=last,
            )
        levels = list(state.levels)
        levels[team] = promote(levels[team], promotion_steps(place))
        steps = levels[team] - state.levels[team]
        failures = list(state.ace_failures)
        declarer = state.declarer
        if declarer is not None and state.level == TOP_LEVEL:
            failures[declarer] += 1
            if self._out_of_attempts(failures[declarer]):
                levels[declarer], failures[declarer] = START_LEVEL, 0
        result = _deal_result(state, order, team, steps, (levels[0], levels[1]))
        return self._next_deal(state, (failures[0], failures[1]), result)

    def _out_of_attempts(self, failures: int) -> bool:
        """G-R27: a limited number of deals declared at A, then back to 2 (options)."""
        limited = self.config.ace_attempts > 0
        demote = self.config.fail_at_ace is FailAtAce.DEMOTE_TO_TWO
        return limited and demote and failures >= self.config.ace_attempts

    # -- results -----------------------------------------------------------------------------

    def events(
        self, before: GuandanState, seat: int, action: GuandanAction, after: GuandanState
    ) -> tuple[Event, ...]:
        """What ``seat``'s action made happen, in order, each public or private to one seat.

        Worked out afterwards from ``before`` and ``after`` (see
        :mod:`engine_service.games.guandan.events`), so :meth:`apply` stays as fast as it was.
        """
        if isinstance(action, ReturnCard):
            return return_events(before, seat, action, after)
        played = play_events(before, seat, action, after)
        if after.deal_number != before.deal_number:
            return played + deal_events(after, self.config)
        return played

    def view(self, state: GuandanState, seat: int | None) -> GuandanView:
        """What ``seat`` may see; ``None`` is a spectator."""
        return build_view(state, seat, self.config, self.current_seats(state))

    def is_secret(self, action: GuandanAction) -> bool:
        """Returns are secret in the action log; views reveal them once all are in (G-R37)."""
        return isinstance(action, ReturnCard)

    def outcome(self, state: GuandanState) -> Outcome | None:
        """The winning team's seats; scores are each seat's team level (G-R26)."""
        if state.phase is not Phase.GAME_OVER:
            return None
        first, second = state.winners
        deal, order = state.deal_number + 1, state.finished
        return Outcome(
            winners=state.winners,
            scores=tuple(state.levels[team_of(s)] for s in range(SEATS)),
            summary=(
                f"Seats {first} and {second} win the match at A "
                f"in deal {deal}, finishing {'-'.join(map(str, order))}."
            ),
            deal=deal,
            finishing_order=order,
        )


def _tribute_to(state: GuandanState, receiver: int) -> Tribute:
    return next(t for t in state.tributes if t.receiver == receiver)


def _return(state: GuandanState, seat: int, card: int) -> GuandanState:
    """Record a return; once all are in, every returned card moves at once (G-R37)."""
    tributes = tuple(replace(t, returned=card) if t.receiver == seat else t for t in state.tributes)
    if any(t.returned is None for t in tributes):
        return replace(state, tributes=tributes)
    hands = state.hands
    for tribute in tributes:
        assert tribute.returned is not None
        hands = moved(hands, tribute.receiver, tribute.payer, tribute.returned)
    return replace(state, phase=Phase.PLAYING, hands=hands, tributes=tributes)


def _not_in_hand(kinds: Sequence[int]) -> RuleViolation:
    text = format_kinds(kinds)
    return violation("CARD_NOT_IN_HAND", "G-R1", f"{text} not in this hand.", cards=text)


def _moved_on(
    state: GuandanState,
    hands: tuple[Hand, ...],
    turn: int,
    top: TopPlay | None,
    passed: tuple[int, ...],
    finished: tuple[int, ...],
    round_history: tuple[RoundEntry, ...],
    previous_deal: DealResult | None,
    played: tuple[Hand, ...],
) -> GuandanState:
    """``state`` after a play or a pass within a deal: the fields they change, the rest kept.

    Built directly rather than by ``dataclasses.replace``, which runs interpreted: it was
    a tenth of the CPU of a search bot's playout move (docs/bots.md).
    """
    return GuandanState(
        seed=state.seed,
        phase=state.phase,
        deal_number=state.deal_number,
        levels=state.levels,
        level=state.level,
        declarer=state.declarer,
        ace_failures=state.ace_failures,
        hands=hands,
        turn=turn,
        top=top,
        passed=passed,
        finished=finished,
        tributes=state.tributes,
        red_joker_holders=state.red_joker_holders,
        previous_order=state.previous_order,
        winners=state.winners,
        round_history=round_history,
        previous_deal=previous_deal,
        played=played,
    )


def _without(hand: Hand, cards: Sequence[int]) -> Hand:
    played = hand_of(cards)
    return tuple(have - n for have, n in zip(hand, played, strict=True))


def _with(hand: Hand, cards: Sequence[int]) -> Hand:
    added = hand_of(cards)
    return tuple(have + n for have, n in zip(hand, added, strict=True))


def _complete(finished: tuple[int, ...]) -> tuple[int, ...]:
    """G-R22: after a third finisher the remaining seat is last; a double win stays at two."""
    if len(finished) < SEATS - 1:
        return finished
    return (*finished, next(s for s in range(SEATS) if s not in finished))


def _deal_result(
    state: GuandanState, order: tuple[int, ...], team: int, steps: int, levels: tuple[int, int]
) -> DealResult:
    """How the deal of ``state`` ended: its order, winning team, promotion and last round."""
    return DealResult(
        deal_number=state.deal_number,
        level=state.level,
        order=order,
        team=team,
        steps=steps,
        levels_before=state.levels,
        levels=levels,
        last_plays=state.round_history,
    )
