"""The service's use cases, each a few named steps over rules, bots, codec and store.

Every call loads the game from the store, works on immutable values and, for a move, writes
the result back with one compare-and-set. Nothing is cached between calls, so any number of
processes can serve the same games; a rejected move writes nothing at all. The use cases are
coroutines only because the store is: they know nothing of gRPC.
"""

from __future__ import annotations

import random
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from engine_service.app.seats import authorize, new_token
from engine_service.codec.record import (
    decode_log_entry,
    decode_record,
    encode_events,
    encode_log_entry,
    encode_record,
)
from engine_service.core.errors import MalformedRequest, VersionConflict
from engine_service.core.events import Event
from engine_service.core.protocol import GameSpec, Outcome, Rules
from engine_service.core.record import GameRecord, PlayerKind, SeatRecord
from engine_service.games import REGISTRY
from engine_service.store.protocol import GameStore, NewVersion

BOT_ACTION_LIMIT: Final = 50_000
"""Most bot actions one request may run; only an all-bot game can come near it."""

VERSION_BYTES: Final = 8
WRITE_ATTEMPTS: Final = 8
"""How often a move whose write lost a race is judged again (simultaneous moves only)."""
MAX_PAGE_SIZE: Final = 1000
"""Most log entries one GetActionLog page holds (AIP-158: larger sizes are lowered to it)."""


@dataclass(frozen=True, slots=True)
class SeatView:
    """What one seat (or a spectator, ``viewer is None``) sees, plus the game's envelope."""

    game_id: str
    game_type: str
    version: int
    viewer: int | None
    to_act: tuple[int, ...]
    legal: Sequence[Any]
    outcome: Outcome | None
    seats: tuple[PlayerKind, ...]
    config: Any
    view: Any


@dataclass(frozen=True, slots=True)
class CreatedGame:
    """A new game: its id, one token per human seat, and the spectator's view."""

    game_id: str
    tokens: Mapping[int, str]
    view: SeatView


@dataclass(frozen=True, slots=True)
class LogLine:
    """One action-log entry; ``action`` is ``None`` when redacted for the reader."""

    index: int
    seat: int
    action: Any | None
    applied_at_ms: int


@dataclass(frozen=True, slots=True)
class ActionLog:
    """A page of a game's log as one reader may see it; ``seed`` only once the game is over.

    ``next_index`` is where the next page starts, ``None`` after the last entry.
    """

    game_type: str
    config: Any
    seed: int | None
    seats: tuple[PlayerKind, ...]
    version: int
    entries: tuple[LogLine, ...]
    next_index: int | None


@dataclass(frozen=True, slots=True)
class Move:
    """One applied action with what it made happen."""

    seat: int
    action: Any
    events: tuple[Event, ...]


class _LostRace(Exception):
    """A move's compare-and-set found another writer's version in place."""

    def __init__(self, conflict: VersionConflict) -> None:
        super().__init__(str(conflict))
        self.conflict = conflict


Clock = Callable[[], float]
"""Seconds since the Unix epoch; the only time the use cases read (for the log's times)."""


def play_bots(
    spec: GameSpec[Any, Any, Any, Any],
    rules: Rules[Any, Any, Any],
    record: GameRecord,
    state: Any,
    version: int,
) -> tuple[Any, list[Move]]:
    """Let bot seats act until a human must, or the game ends.

    Each bot move draws from ``Random(f"{seed}:bot:{version}")``, so a seeded game with
    the same human moves plays out the same way every time.
    """
    moves: list[Move] = []
    while len(moves) < BOT_ACTION_LIMIT:
        bot_seats = [s for s in rules.current_seats(state) if record.seats[s].kind.is_bot]
        if not bot_seats:
            break
        seat = bot_seats[0]
        bot = spec.bots[record.seats[seat].kind.value]
        rng = random.Random(f"{record.seed}:bot:{version + len(moves)}")
        action = bot.choose(rules.view(state, seat), rules.legal_actions(state, seat), rng)
        state, move = step(rules, state, seat, action)
        moves.append(move)
    return state, moves


def step(rules: Rules[Any, Any, Any], state: Any, seat: int, action: Any) -> tuple[Any, Move]:
    """Apply one action; the new state and the move with its events."""
    after = rules.apply(state, seat, action)
    return after, Move(seat, action, rules.events(state, seat, action, after))


def seat_view(
    rules: Rules[Any, Any, Any], game_id: str, record: GameRecord, version: int, seat: int | None
) -> SeatView:
    """``seat``'s view of ``record`` at ``version`` (``None``: a spectator's)."""
    state = record.state
    return SeatView(
        game_id=game_id,
        game_type=record.game_type,
        version=version,
        viewer=seat,
        to_act=rules.current_seats(state),
        legal=rules.legal_actions(state, seat) if seat is not None else (),
        outcome=rules.outcome(state),
        seats=tuple(s.kind for s in record.seats),
        config=record.config,
        view=rules.view(state, seat),
    )


class Engine:
    """Create games, show views, apply actions and let bots play, over one store."""

    def __init__(
        self,
        store: GameStore,
        registry: Mapping[str, GameSpec[Any, Any, Any, Any]] = REGISTRY,
        clock: Clock = time.time,
    ) -> None:
        self.store = store
        self.registry = registry
        self._clock = clock

    @property
    def game_types(self) -> tuple[GameSpec[Any, Any, Any, Any], ...]:
        """Every game this engine hosts."""
        return tuple(self.registry.values())

    def spec(self, game_type: str, field_path: str = "game_type") -> GameSpec[Any, Any, Any, Any]:
        """The registry entry of a game type; raises MalformedRequest if unknown."""
        spec = self.registry.get(game_type)
        if spec is None:
            known = ", ".join(sorted(self.registry))
            raise MalformedRequest(field_path, f"unknown game type {game_type!r} (known: {known})")
        return spec

    def rules_of(self, record: GameRecord) -> Rules[Any, Any, Any]:
        """The rules a stored game is played by."""
        return self.registry[record.game_type].make_rules(record.config)

    # -- use cases -----------------------------------------------------------------------

    async def create_game(
        self, game_type: str, config: Any, seats: Sequence[PlayerKind], seed: int | None
    ) -> CreatedGame:
        """Deal a new game, let bots make their opening moves, store it.

        Raises:
            MalformedRequest: unknown game type or the wrong number of seats.
        """
        spec = self.spec(game_type)
        if len(seats) != spec.seats:
            raise MalformedRequest("seats", f"{game_type} needs exactly {spec.seats} seats")
        game_seed = secrets.randbits(63) if seed is None else seed
        tokens: dict[int, str] = {}
        seat_records = []
        for index, kind in enumerate(seats):
            digest = b""
            if kind is PlayerKind.HUMAN:
                tokens[index], digest = new_token()
            seat_records.append(SeatRecord(kind, digest))
        rules = spec.make_rules(config)
        record = GameRecord(game_type, config, game_seed, tuple(seat_records), None)
        state, moves = play_bots(spec, rules, record, rules.new_game(game_seed), 1)
        record = replace(record, state=state)
        game_id = secrets.token_hex(16)
        version = await self.store.create(
            game_id, encode_record(record), self._new_versions(game_type, moves)
        )
        return CreatedGame(game_id, tokens, seat_view(rules, game_id, record, version, None))

    async def view(self, game_id: str, seat: int | None, token: str | None) -> SeatView:
        """A seat's view (token checked) or the spectator's view (``seat is None``)."""
        stored = await self.store.load(game_id)
        record = decode_record(stored.snapshot)
        self.check_reader(record, seat, token)
        return seat_view(self.rules_of(record), game_id, record, stored.version, seat)

    async def submit(
        self,
        game_id: str,
        seat: int,
        token: str | None,
        expected_version: int,
        request_id: str,
        action_game: str,
        action: Any,
    ) -> SeatView:
        """Apply ``seat``'s action, then the bots' replies, with one compare-and-set.

        A stale ``expected_version`` is accepted when only other seats' secret moves came in
        since (:meth:`_check_unseen_changes`).

        Raises:
            MalformedRequest: bad seat, or an action of another game type.
            Unauthenticated, PermissionDenied: the token is not ``seat``'s.
            VersionConflict: the game changed, for this seat, since ``expected_version``.
            IllegalAction: the rules forbid the action; nothing is written.
        """
        for attempt in range(WRITE_ATTEMPTS):
            try:
                return await self._submit_once(
                    game_id, seat, token, expected_version, request_id, action_game, action
                )
            except _LostRace as lost:
                # Another writer won the compare-and-set. What it wrote may be invisible to
                # this seat (a simultaneous pass): judge the move again on the new position,
                # still against the client's version, so a visible change gives ABORTED.
                if attempt == WRITE_ATTEMPTS - 1:
                    raise lost.conflict from None
        raise AssertionError("unreachable")  # pragma: no cover

    async def _submit_once(
        self,
        game_id: str,
        seat: int,
        token: str | None,
        expected_version: int,
        request_id: str,
        action_game: str,
        action: Any,
    ) -> SeatView:
        """One load, check, apply and compare-and-set of :meth:`submit`."""
        request_key = f"{seat}:{request_id}"
        stored = await self.store.load(game_id, request_key)
        record = decode_record(stored.snapshot)
        spec = self.registry[record.game_type]
        self._check_seat(spec, seat, "seat")
        authorize(record, seat, token)
        if stored.replay is not None:
            return await self._replayed_view(game_id, stored.replay, seat)
        if action_game != record.game_type:
            raise MalformedRequest("action", f"this game is {record.game_type}, not {action_game}")
        rules = spec.make_rules(record.config)
        if expected_version != stored.version:
            await self._check_unseen_changes(
                game_id, rules, record, seat, expected_version, stored.version
            )
        state, move = step(rules, record.state, seat, action)
        state, bot_moves = play_bots(spec, rules, record, state, stored.version + 1)
        record = replace(record, state=state)
        moves = [move, *bot_moves]
        version = stored.version + len(moves)
        reply = version.to_bytes(VERSION_BYTES, "big")
        try:
            await self.store.save(
                game_id,
                stored.version,
                encode_record(record),
                self._new_versions(record.game_type, moves),
                request_key,
                reply,
            )
        except VersionConflict as conflict:
            raise _LostRace(conflict) from conflict
        return seat_view(rules, game_id, record, version, seat)

    async def action_log(
        self,
        game_id: str,
        seat: int | None,
        token: str | None,
        start: int = 0,
        page_size: int = 0,
    ) -> ActionLog:
        """A page of the log as ``seat`` may read it: others' secret moves hidden until the end.

        ``page_size`` 0 reads to the end; larger than :data:`MAX_PAGE_SIZE` reads that many.
        """
        if page_size < 0:
            raise MalformedRequest("page_size", "must not be negative")
        if start < 0:
            raise MalformedRequest("from_index", "must not be negative")
        stop = None if page_size == 0 else start + min(page_size, MAX_PAGE_SIZE)
        stored, raw_entries = await self.store.log(game_id, start, stop)
        record = decode_record(stored.snapshot)
        self.check_reader(record, seat, token)
        rules = self.rules_of(record)
        over = rules.outcome(record.state) is not None
        entries = []
        for index, raw in enumerate(raw_entries, start=start):
            logged = decode_log_entry(record.game_type, raw)
            hidden = not over and logged.seat != seat and rules.is_secret(logged.action)
            action = None if hidden else logged.action
            entries.append(LogLine(index, logged.seat, action, logged.applied_at_ms))
        log_length = stored.version - 1
        next_index = stop if stop is not None and stop < log_length else None
        return ActionLog(
            game_type=record.game_type,
            config=record.config,
            seed=record.seed if over else None,
            seats=tuple(s.kind for s in record.seats),
            version=stored.version,
            entries=tuple(entries),
            next_index=next_index,
        )

    # -- steps -----------------------------------------------------------------------------

    def check_reader(self, record: GameRecord, seat: int | None, token: str | None) -> None:
        """A seat's reader must hold its token; a spectator needs none."""
        if seat is not None:
            self._check_seat(self.registry[record.game_type], seat, "seat")
            authorize(record, seat, token)

    @staticmethod
    def _check_seat(spec: GameSpec[Any, Any, Any, Any], seat: int, field_path: str) -> None:
        if not 0 <= seat < spec.seats:
            raise MalformedRequest(field_path, f"must be between 0 and {spec.seats - 1}")

    async def _check_unseen_changes(
        self,
        game_id: str,
        rules: Rules[Any, Any, Any],
        record: GameRecord,
        seat: int,
        expected: int,
        current: int,
    ) -> None:
        """Let a stale version through when nothing ``seat`` may see has changed since.

        The actions logged since ``expected`` must all be other seats' secret moves (the
        simultaneous Hearts pass): such a move changes nothing in ``seat``'s view but the fact
        that the other seat has chosen. Anything else, or a version from the future, is a
        conflict. The action itself is judged afterwards on the current position.

        Raises:
            VersionConflict: something ``seat`` may see changed, or ``expected`` is ahead.
        """
        if expected > current:
            raise VersionConflict(expected, current)
        _, entries = await self.store.log(game_id, expected - 1, current - 1)
        for raw in entries:
            logged = decode_log_entry(record.game_type, raw)
            if logged.seat == seat or not rules.is_secret(logged.action):
                raise VersionConflict(expected, current)

    def _new_versions(self, game_type: str, moves: Sequence[Move]) -> list[NewVersion]:
        """The log entries and events of ``moves``, stamped with the time now."""
        now_ms = int(self._clock() * 1000)
        return [
            NewVersion(
                entry=encode_log_entry(game_type, move.seat, move.action, now_ms),
                events=encode_events(game_type, move.events),
            )
            for move in moves
        ]

    async def state_at(self, game_id: str, version: int) -> GameRecord:
        """The game as it was at ``version``, rebuilt from its seed and log."""
        stored, entries = await self.store.log(game_id, 0, version - 1)
        record = decode_record(stored.snapshot)
        rules = self.rules_of(record)
        state = rules.new_game(record.seed)
        for raw in entries:
            logged = decode_log_entry(record.game_type, raw)
            state = rules.apply(state, logged.seat, logged.action)
        return replace(record, state=state)

    async def _replayed_view(self, game_id: str, reply: bytes, seat: int) -> SeatView:
        """The answer a repeated request got the first time (AIP-155 idempotency).

        Only the version a request reached is remembered (8 bytes rather than a snapshot
        per move); the game at that version is rebuilt from the seed and the log, as any
        replay is. Retries are rare, so their cost matters less than every move's.
        """
        version = int.from_bytes(reply[:VERSION_BYTES], "big")
        record = await self.state_at(game_id, version)
        return seat_view(self.rules_of(record), game_id, record, version, seat)
