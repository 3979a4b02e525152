"""Random games with random table changes, under every conformance check (T-R1 .. T-R10).

Each game is a service game record (seats, clock, ending) moved on only by
:func:`engine_service.app.play.step` and :func:`~engine_service.app.play.play_bots`, as the
engine moves it, while a :class:`CheckedGame` follows the same moves of the game itself and
checks each (cards conserved, no view or event leaks, events encode, scores). At random steps a
seat leaves, resigns, is handed over or gets a new token, a turn clock expires (the expiry
entry, then the expiry bot's move or a forfeit), or the admin ends the game; bots play in
slices of random size. Afterwards the outcome must fit how the game ended, and replaying the
stored log from the record as created must give the final record exactly.
``CONFORMANCE_TABLE_GAMES`` overrides how many games each game type plays.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import pytest

from engine_service.app.play import (
    OVER,
    BotBudget,
    Move,
    bot_move,
    bot_seats,
    due_ms,
    game_state,
    play_bots,
    step,
)
from engine_service.app.seats import token_hash
from engine_service.app.tables import leaving_bot
from engine_service.codec.record import (
    decode_log_entry,
    decode_record,
    encode_events,
    encode_log_entry,
    encode_record,
    visible_events,
)
from engine_service.core.errors import IllegalAction
from engine_service.core.protocol import GameSpec
from engine_service.core.record import (
    ClockPolicy,
    ExpiryAction,
    GameRecord,
    PlayerKind,
    SeatRecord,
)
from engine_service.core.table import (
    WHOLE_GAME,
    ClockExpired,
    GameEndedEarly,
    SeatHandedOver,
    SeatLeft,
    SeatResigned,
    SeatTokenReissued,
    TableChange,
    TableEvent,
    check_can_act,
    check_change,
    first_deadline,
    forfeit_winners,
    initial_clocks,
    is_table_change,
    outcome_of,
    seats_to_act,
    tick_clocks,
)
from engine_service.registry import REGISTRY
from tests.conformance.checks import (
    MAX_STEPS,
    CheckedGame,
    adapter_for,
    check_illegal_rejected,
    check_legal_listing,
    check_to_act,
    registered_games,
    tiny_search,
)
from tests.conformance.options import random_config

GAMES_ENV = "CONFORMANCE_TABLE_GAMES"
TABLE_GAMES: Final = {"hearts": 100, "klaberjass": 80, "guandan": 2}
"""Games per game type: a Guandan match is long (hundreds of moves) whatever its options."""
CHANGE_CHANCE: Final = 0.08
"""How often a step is a table change rather than a move."""
KINDS: Final = tuple(PlayerKind)
T0: Final = 1_700_000_000_000


def kinds_of(spec: GameSpec[Any, Any, Any, Any]) -> list[PlayerKind]:
    """The player kinds a seat of ``spec``'s game may have: a person or one of its bots."""
    return [kind for kind in KINDS if not kind.is_bot or kind.value in spec.bots]


def table_games(name: str) -> int:
    return int(os.environ.get(GAMES_ENV, TABLE_GAMES.get(name, 20)))


@dataclass
class TableGame:
    """A game record under the table rules, and the same game's moves under the game checks.

    ``log`` is the stored log (moves and table changes with their times); ``game.log`` holds
    the moves of the game alone, which the game adapters read.
    """

    spec: GameSpec[Any, Any, Any, Any]
    game: CheckedGame
    origin: GameRecord
    rng: random.Random
    record: GameRecord = field(init=False)
    log: list[tuple[int, Any, int]] = field(default_factory=list)
    now: int = T0
    ended_by: tuple[int, TableChange] | None = None

    def __post_init__(self) -> None:
        self.record = self.origin

    @property
    def rules(self) -> Any:
        return self.game.rules

    @property
    def version(self) -> int:
        return len(self.log) + 1

    def tick(self) -> None:
        """Let some time pass before the next entry (at most a few decisions' worth)."""
        policy = self.record.clock
        self.now += self.rng.randint(0, 3 * (policy.per_decision_ms if policy else 1_000))

    def apply(self, seat: int, action: Any) -> Move:
        """Log one entry at ``now`` and check what it did to the record."""
        before = self.record
        self.record, move = step(self.spec, self.rules, before, seat, action, self.now)
        self.logged(before, self.record, move)
        return move

    def logged(self, before: GameRecord, after: GameRecord, move: Move) -> None:
        """Keep ``move`` (which led from ``before`` to ``after``) in the log and check it."""
        self.log.append((move.seat, move.action, self.now))
        if is_table_change(move.action):
            assert after.state is before.state, "a table change moved the game"
            assert [event.audience for event in move.events] == [None]
            assert move.events[0].fact == TableEvent(move.seat, move.action)
        else:
            self.game.apply(move.seat, move.action)
            assert self.game.events[-1] == move.events
            assert self.game.state == after.state
        told = encode_events(self.record.game_type, move.events)
        for viewer in (*range(self.spec.seats), None):
            assert len(visible_events(told, viewer)) == sum(
                event.visible_to(viewer) for event in move.events
            )
        if isinstance(move.action, SeatTokenReissued):
            assert move.action.token_sha256 not in told, "a token hash was told"
        check_clocks(self.rules, before, after)

    def bots(self) -> None:
        """A slice of bot work of random size (T-R10), checked move by move.

        ``play_bots`` returns the slice's last record only; stepping its moves one at a time
        must reach the same record, and gives each move's own record to check.
        """
        budget = BotBudget(moves=self.rng.choice((1, 3, 8, 30)), seconds=1e9)
        start = self.record
        last, moves = play_bots(self.spec, self.rules, start, self.version, self.now, budget)
        assert 1 <= len(moves) <= budget.moves
        for move in moves:
            assert self.record.seats[move.seat].kind.is_bot
            self.apply(move.seat, move.action)
        assert self.record == last

    def person(self) -> None:
        """A person's move: the game checks probe an illegal one first, then a bot picks."""
        to_act = check_to_act(self.rules, self.game.state)
        legal = check_legal_listing(self.rules, self.game.state, to_act)
        check_illegal_rejected(self.rules, self.game.adapter, self.game.state, self.rng)
        seat = self.rng.choice([s for s in to_act if not self.record.seats[s].kind.is_bot])
        check_can_act(self.record, seat)
        bot = self.spec.bots[self.rng.choice(sorted(self.spec.bots))]
        self.apply(seat, bot.choose(self.game.views[seat], legal[seat], self.rng))

    def expire(self) -> bool:
        """The first running clock runs out (T-R5), as ``Engine.advance`` fires it."""
        due = first_deadline(self.record)
        if due is None or bot_seats(self.rules, self.record):
            return False
        self.now = max(self.now, due[0])
        seat = due[1]
        assert self.record.clock is not None
        expiry = self.record.clock.on_expiry
        self.apply(seat, ClockExpired(expiry))
        bot = expiry.bot
        if bot is None:
            assert self.spec.sides is not None, "T-R5: a forfeit only in a game with sides"
            self.ended_by = (seat, ClockExpired(expiry))
        elif seat in seats_to_act(self.rules, self.record):
            self.apply(seat, bot_move(self.spec, self.rules, self.record, seat, bot, self.version))
            assert self.record.seats[seat].kind is PlayerKind.HUMAN, "T-R5: still the person's"
        return True

    def change(self) -> None:
        """One random table change, or its refusal where the table rules forbid it."""
        seat = self.rng.randrange(self.spec.seats)
        kind = self.record.seats[seat].kind
        choice = self.rng.choices(CHANGES, weights=[weight for _, weight in CHANGES])[0][0]
        if choice == "expire":
            self.expire()
        elif choice in ("leave", "resign"):
            if kind.is_bot:
                refused(check_change, self.rules, self.record, seat, SeatLeft(kind))
                refused(check_can_act, self.record, seat)
                return
            self.leave(seat, resign=choice == "resign")
        elif choice == "hand over":
            self.hand_over(seat, self.rng.choice(kinds_of(self.spec)))
        elif choice == "end":
            end = GameEndedEarly("ended by the admin")
            check_change(self.rules, self.record, WHOLE_GAME, end)
            self.apply(WHOLE_GAME, end)
            self.ended_by = (WHOLE_GAME, end)
        else:
            self.reissue(seat)

    def leave(self, seat: int, resign: bool) -> None:
        """As ``tables.leave_game`` words it (T-R2, T-R3)."""
        bot = leaving_bot(self.record)
        forfeit = resign and self.spec.sides is not None
        change: TableChange = SeatLeft(bot)
        if resign:
            change = SeatResigned(forfeit, None if forfeit else bot)
        check_change(self.rules, self.record, seat, change)
        self.apply(seat, change)
        if forfeit:
            self.ended_by = (seat, change)
        else:
            assert self.record.seats[seat].kind is bot
            refused(check_can_act, self.record, seat)

    def hand_over(self, seat: int, kind: PlayerKind) -> None:
        """As ``tables.update_seat`` words it (T-R6): a new person without a token gets one."""
        change = SeatHandedOver(kind)
        if self.record.seats[seat].kind is kind:
            assert refused(check_change, self.rules, self.record, seat, change) == (
                "NOTHING_TO_CHANGE"
            )
            return
        check_change(self.rules, self.record, seat, change)
        token = self.record.seats[seat].token_sha256
        self.apply(seat, change)
        assert self.record.seats[seat] == SeatRecord(kind, token), "T-R6: the token stays"
        if kind is PlayerKind.HUMAN and not token:
            self.reissue(seat)

    def reissue(self, seat: int) -> None:
        """A new token for the seat (T-R7); the old one no longer matches any seat."""
        old = self.record.seats[seat].token_sha256
        new = token_hash(f"{self.origin.seed}:{self.version}")
        change = SeatTokenReissued(new)
        check_change(self.rules, self.record, seat, change)
        self.apply(seat, change)
        assert self.record.seats[seat].token_sha256 == new
        assert not old or all(s.token_sha256 != old for s in self.record.seats)

    def play(self) -> None:
        """Move on until the game ends, by its rules or early."""
        while outcome_of(self.rules, self.record) is None:
            assert len(self.log) < MAX_STEPS, "the game does not end"
            self.tick()
            if self.rng.random() < CHANGE_CHANCE:
                self.change()
            elif bot_seats(self.rules, self.record):
                self.bots()
            elif any(
                not self.record.seats[s].kind.is_bot for s in seats_to_act(self.rules, self.record)
            ):
                self.person()
            else:  # pragma: no cover - somebody is always to act in a running game
                raise AssertionError("nobody is to act in a running game")

    def finish(self) -> None:
        """The outcome fits how the game ended; nothing more is accepted; the log replays."""
        outcome = outcome_of(self.rules, self.record)
        assert outcome is not None and game_state(self.rules, self.record) == OVER
        assert due_ms(self.rules, self.record, self.now) is None
        assert first_deadline(self.record) is None, "T-R4: no clock runs after the end"
        if self.ended_by is None:
            assert self.record.ending is None and not outcome.ended_early
            self.game.finish()
        else:
            seat, change = self.ended_by
            assert self.rules.outcome(self.record.state) is None
            winners = () if seat == WHOLE_GAME else forfeit_winners(self.spec.sides or (), seat)
            assert outcome.winners == winners and outcome.ended_early and outcome.summary
            assert isinstance(change, (GameEndedEarly, SeatResigned, ClockExpired))
        seat = self.rng.randrange(self.spec.seats)
        for late in (SeatLeft(PlayerKind.RANDOM_BOT), GameEndedEarly("again")):
            assert refused(check_change, self.rules, self.record, seat, late) == "GAME_OVER"
        assert decode_record(encode_record(self.record)) == self.record
        replayed = decode_record(encode_record(self.origin))
        for seat, action, at_ms in self.log:
            entry = encode_log_entry(self.record.game_type, seat, action, at_ms)
            logged = decode_log_entry(self.record.game_type, entry)
            replayed, _ = step(
                self.spec, self.rules, replayed, logged.seat, logged.action, logged.applied_at_ms
            )
        assert replayed == self.record, "replaying the stored log gave another record"


CHANGES: Final[Sequence[tuple[str, float]]] = (
    ("leave", 3),
    ("resign", 1),
    ("hand over", 4),
    ("reissue", 2),
    ("expire", 5),
    ("end", 0.5),
)
"""The table changes drawn, with their weights (game-ending ones are rarer)."""


def check_clocks(rules: Any, before: GameRecord, after: GameRecord) -> None:
    """T-R4: a clock runs exactly for the persons to act, and banks only shrink."""
    policy = after.clock
    if policy is None:
        assert after.clocks == ()
        return
    to_act = set(seats_to_act(rules, after))
    for seat, (old, new) in enumerate(zip(before.clocks, after.clocks, strict=True)):
        human = after.seats[seat].kind is PlayerKind.HUMAN
        assert (new.turn_started_ms is not None) == (seat in to_act and human), (seat, new)
        assert 0 <= new.bank_ms <= old.bank_ms <= policy.bank_ms


def refused(check: Callable[..., None], *args: Any) -> str:
    """The reason ``check(*args)`` refuses with; it must refuse."""
    with pytest.raises(IllegalAction) as raised:
        check(*args)
    return raised.value.violation.reason


def new_table_game(name: str, index: int) -> TableGame:
    """Game ``index``: its options, seed, seats and clock all follow from the two."""
    rng = random.Random(f"conformance-table:{name}:{index}")
    spec = tiny_search(REGISTRY[name])
    adapter = adapter_for(name)
    config = random_config(spec, adapter.int_ranges, rng)
    game = CheckedGame(spec, adapter, config, seed=rng.randrange(2**32))
    kinds = [rng.choice(kinds_of(spec)) for _ in range(spec.seats)]
    expiries = [e for e in ExpiryAction if e is not ExpiryAction.FORFEIT or spec.sides]
    clock = None
    if rng.random() < 0.8:
        clock = ClockPolicy(
            rng.choice((100, 1_000)), rng.choice((0, 500, 5_000)), rng.choice(expiries)
        )
    seats = tuple(
        SeatRecord(kind, token_hash(f"{index}:{seat}") if kind is PlayerKind.HUMAN else b"")
        for seat, kind in enumerate(kinds)
    )
    record = GameRecord(
        game_type=name,
        config=config,
        seed=game.seed,
        seats=seats,
        state=game.state,
        clock=clock,
        clocks=initial_clocks(clock, spec.seats),
        created_at_ms=T0,
    )
    origin = tick_clocks(game.rules, record, None, T0)
    return TableGame(spec, game, origin, rng)


@pytest.mark.parametrize("name", registered_games())
def test_random_table_changes_keep_every_invariant(name: str) -> None:
    """T-R1 .. T-R10 under random play: the game checks, the clocks, the ending, the replay."""
    for index in range(table_games(name)):
        table = new_table_game(name, index)
        try:
            table.play()
            table.finish()
        except Exception as error:
            what = f"{table.game.describe()}, {len(table.log)} log entries"
            raise AssertionError(f"{name} table game #{index} ({what}): {error!r}") from error
