"""The service's use cases, each a few named steps over rules, bots, codec and store.

Every call loads the game from the store, works on immutable values and, for a move, writes
the result back with one compare-and-set. Nothing is cached between calls, so any number of
processes can serve the same games; a rejected move writes nothing at all. The use cases are
coroutines only because the store is: they know nothing of gRPC.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol, TypeVar

from engine_service.app.idempotency import (
    FirstCreation,
    Request,
    move_reply,
    replayed_version,
    request_digest,
    seal,
    unseal,
)
from engine_service.app.play import (
    REQUEST_BUDGET,
    SLICE_BUDGET,
    BotBudget,
    Move,
    Reached,
    SeatView,
    check_offered,
    listing_of,
    play_bots,
    seat_view,
    step,
)
from engine_service.app.recent import RecentSnapshots
from engine_service.app.seats import authorize, new_token
from engine_service.app.settle import Settled, due_slice, new_versions, settle
from engine_service.app.shared_steps import SharedSteps
from engine_service.app.spans import span
from engine_service.codec.record import (
    decode_log_entry,
    decode_record,
    encode_record,
)
from engine_service.core.errors import (
    EngineError,
    GameNotFound,
    MalformedRequest,
    VersionConflict,
)
from engine_service.core.protocol import GameSpec, Rules
from engine_service.core.record import (
    ClockPolicy,
    ExpiryAction,
    GameRecord,
    PlayerKind,
    SeatRecord,
)
from engine_service.core.table import (
    SeatHandedOver,
    TableChange,
    check_can_act,
    check_change,
    initial_clocks,
    is_secret,
    outcome_of,
    tick_clocks,
)
from engine_service.registry import REGISTRY
from engine_service.store.protocol import (
    FirstReply,
    GameIndex,
    GameStore,
    Listing,
    RequestReplayed,
    StoredGame,
)

WRITE_ATTEMPTS: Final = 8
"""How often a move whose write lost a race is judged again (simultaneous moves only)."""
MAX_UNSEEN: Final = 16
"""Most versions a stale ``expected_version`` may lag and still be checked for unseen
changes: more than any table's seats' secret moves in a row, and a bound on the log read."""
MAX_PAGE_SIZE: Final = 1000
"""Most log entries one GetActionLog page holds (AIP-158: larger sizes are lowered to it, and
page_size 0 asks for it), so a read costs at most a page, however long the log."""


@dataclass(frozen=True, slots=True)
class CreatedGame:
    """A new game: its id, one token per human seat, the admin token and the spectator's view."""

    game_id: str
    tokens: Mapping[int, str]
    admin_token: str
    view: SeatView


@dataclass(frozen=True, slots=True)
class NewGame:
    """What a game is created with, beside its type and seats (all but ``config`` optional).

    Attributes:
        config: the game's own options.
        seed: fixes every shuffle; ``None`` picks one.
        clock: the turn clock of the human seats (T-R4); ``None``: no clock.
        labels: the creator's tags, for listings.
        rematch_of: the finished game this one is the rematch of (T-R9).
    """

    config: Any
    seed: int | None = None
    clock: ClockPolicy | None = None
    labels: tuple[tuple[str, str], ...] = ()
    rematch_of: str = ""


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


class _LostRace(Exception):
    """A write's compare-and-set found another writer's version in place."""

    def __init__(self, conflict: VersionConflict) -> None:
        super().__init__(str(conflict))
        self.conflict = conflict


class Store(GameStore, GameIndex, Protocol):
    """A game store that keeps the indexes across games too (as the Redis store does)."""


Change = tuple[int, TableChange]
"""A table change and the seat it concerns."""

Clock = Callable[[], float]
"""Seconds since the Unix epoch; the only time the use cases read (log times, turn clocks)."""
T = TypeVar("T")


class Engine:
    """Create games, show views, apply actions and table changes, let bots play, over a store.

    Bot work per call is bounded by ``budget`` (T-R10); a game left with bots to move is due
    at once in the store's index, and the timer loop (:mod:`engine_service.app.timers`)
    moves it on through :meth:`advance`, in slices bounded by ``slice_budget``, as it fires
    turn clocks.
    """

    def __init__(
        self,
        store: Store,
        registry: Mapping[str, GameSpec[Any, Any, Any, Any]] = REGISTRY,
        clock: Clock = time.time,
        budget: BotBudget = REQUEST_BUDGET,
        work_clock: Clock = time.perf_counter,
        slice_budget: BotBudget = SLICE_BUDGET,
    ) -> None:
        self.store = store
        self.registry = registry
        self.budget = budget
        self.slice_budget = slice_budget
        self._clock = clock
        self._work_clock = work_clock
        self.recent = RecentSnapshots()
        self.shared_steps = SharedSteps()

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

    def now_ms(self) -> int:
        """The time now, in milliseconds since the Unix epoch."""
        return int(self._clock() * 1000)

    # -- use cases -----------------------------------------------------------------------

    async def create_game(
        self,
        game_type: str,
        seats: Sequence[PlayerKind],
        new: NewGame,
        request: Request | None = None,
    ) -> CreatedGame:
        """Deal a new game, let bots make their opening moves (bounded), store it.

        With ``request``, a repeated request id gets the first reply back and nothing is
        created, even when the copies arrive at once (the store keeps one reply per id,
        written with the game).

        Raises:
            MalformedRequest: unknown game type, the wrong number of seats, or a forfeiting
                clock for a game without a forfeit; REQUEST_ID_REUSED, the id was used for
                another request.
        """
        named = None if request is None else request_digest(request.request_id)
        if request is not None and named is not None:
            kept = await self.store.first_reply(named)
            if kept is not None:
                return self._created_again(request, kept)
        spec = self.spec(game_type)
        if len(seats) != spec.seats:
            raise MalformedRequest("seats", f"{game_type} needs exactly {spec.seats} seats")
        for index, kind in enumerate(seats):
            check_offered(spec, kind, f"seats[{index}]")
        if new.clock is not None and new.clock.on_expiry.bot is not None:
            check_offered(spec, new.clock.on_expiry.bot, "clock.on_expiry")
        forfeits = new.clock is not None and new.clock.on_expiry is ExpiryAction.FORFEIT
        if forfeits and spec.sides is None:
            raise MalformedRequest(
                "clock.on_expiry", f"{game_type} has no forfeit (T-R5)", "NO_FORFEIT_IN_GAME"
            )
        game_seed = secrets.randbits(63) if new.seed is None else new.seed
        tokens: dict[int, str] = {}
        seat_records = []
        for index, kind in enumerate(seats):
            digest = b""
            if kind is PlayerKind.HUMAN:
                tokens[index], digest = new_token()
            seat_records.append(SeatRecord(kind, digest))
        admin_token, admin_digest = new_token()
        rules = spec.make_rules(new.config)
        now = self.now_ms()
        record = GameRecord(
            game_type=game_type,
            config=new.config,
            seed=game_seed,
            seats=tuple(seat_records),
            state=rules.new_game(game_seed),
            admin_sha256=admin_digest,
            clock=new.clock,
            clocks=initial_clocks(new.clock, spec.seats),
            labels=new.labels,
            created_at_ms=now,
            rematch_of=new.rematch_of,
        )
        origin = tick_clocks(rules, record, None, now)
        record, moves = play_bots(spec, rules, origin, 1, now, self.budget, self._work_clock)
        game_id = self.store.new_game_id(named)
        snapshot = encode_record(record)
        version = 1 + len(moves)
        first_reply = None
        if request is not None and named is not None:
            first = FirstCreation(game_id, version, tokens, admin_token, snapshot)
            first_reply = FirstReply(named, seal(request, first))
        try:
            await self.store.create(
                game_id,
                encode_record(origin),
                snapshot,
                new_versions(game_type, moves, now),
                listing_of(rules, record, now),
                first_reply,
            )
        except RequestReplayed as replayed:
            assert request is not None and replayed.found.replay is not None
            return self._created_again(request, replayed.found.replay)
        view = seat_view(rules, game_id, record, version, None)
        return CreatedGame(game_id, tokens, admin_token, view)

    def _created_again(self, request: Request, sealed: bytes) -> CreatedGame:
        """The first reply to a CreateGame request, opened from what the store kept."""
        first = unseal(request, sealed)
        record = decode_record(first.snapshot)
        view = seat_view(self.rules_of(record), first.game_id, record, first.version, None)
        return CreatedGame(first.game_id, first.tokens, first.admin_token, view)

    async def read(
        self, game_id: str, seat: int | None, token: str | None
    ) -> tuple[StoredGame, GameRecord]:
        """The stored game and its record, once ``seat``'s token is checked.

        ``seat`` ``None`` is a spectator. For the calls that read a game and write nothing.
        """
        with span("redis.load"):
            stored = await self.store.load(game_id)
        record = decode_record(stored.snapshot)
        self.check_reader(record, seat, token)
        return stored, record

    async def view(self, game_id: str, seat: int | None, token: str | None) -> SeatView:
        """A seat's view (token checked) or the spectator's view (``seat is None``)."""
        stored, record = await self.read(game_id, seat, token)
        return seat_view(self.rules_of(record), game_id, record, stored.version, seat)

    async def submit(
        self,
        game_id: str,
        seat: int,
        token: str | None,
        expected_version: int,
        request: Request,
        action_game: str,
        action: Any,
    ) -> Reached:
        """Apply ``seat``'s action, then the bots' replies, with one compare-and-set.

        Returns the game as the write left it, from which the caller builds the seat's view
        (or not: a brief answer needs the version only). A request id the seat used before
        gets the first reply (the game at the version that request reached) and changes
        nothing, also when the copies race: a copy that loses the compare-and-set to its twin
        answers with the twin's reply, not ABORTED.

        A stale ``expected_version`` is accepted when only other seats' secret moves came in
        since (:meth:`_check_unseen_changes`). When the write loses a race, the move is judged
        again on the new position, still against the client's version, so a visible change
        gives ABORTED.

        Raises:
            MalformedRequest: bad seat, an action of another game type, or REQUEST_ID_REUSED
                (the seat used the id for another request).
            Unauthenticated, PermissionDenied: the token is not ``seat``'s.
            VersionConflict: the game changed, for this seat, since ``expected_version``.
            IllegalAction: the rules forbid the action, the game is over (T-R1) or a bot
                plays the seat (T-R2); nothing is written.
        """
        return await self._retrying(
            lambda: self._submit_once(
                game_id, seat, token, expected_version, request, action_game, action
            )
        )

    async def _submit_once(
        self,
        game_id: str,
        seat: int,
        token: str | None,
        expected_version: int,
        request: Request,
        action_game: str,
        action: Any,
    ) -> Reached:
        """One try of :meth:`submit`, on the snapshot this process last wrote or a fresh load.

        The kept snapshot (:mod:`~.recent`) serves only a move made on its very version, and
        only an answer that is a successful write is taken from it.
        """
        kept = self.recent.at(game_id, expected_version)
        if kept is not None:
            try:
                return await self._submit_on(
                    kept.stored, game_id, seat, token, request, action_game, action, kept.record
                )
            except (EngineError, _LostRace):  # judged on a stale snapshot, perhaps: again
                self.recent.forget(game_id)
        with span("redis.load"):
            stored = await self.store.load(game_id, f"{seat}:{request.request_id}")
        return await self._submit_on(
            stored, game_id, seat, token, request, action_game, action, None, expected_version
        )

    async def _submit_on(
        self,
        stored: StoredGame,
        game_id: str,
        seat: int,
        token: str | None,
        request: Request,
        action_game: str,
        action: Any,
        record: GameRecord | None = None,
        expected_version: int | None = None,
    ) -> Reached:
        """Check, apply and compare-and-set ``seat``'s action on ``stored``.

        ``record`` is ``stored``'s record when the caller has it decoded already.

        When ``stored`` carries the request's remembered reply, that is the answer.
        ``expected_version``, when it differs from the stored one, is the client's older
        version: accepted if only changes ``seat`` may not see came since.
        """
        request_key = f"{seat}:{request.request_id}"
        if record is None:
            record = decode_record(stored.snapshot)
        spec = self.registry[record.game_type]
        self._check_seat(spec, seat, "seat")
        authorize(record, seat, token)
        if stored.replay is not None:
            return await self._first_answer(game_id, stored, request)
        if action_game != record.game_type:
            raise MalformedRequest("action", f"this game is {record.game_type}, not {action_game}")
        check_can_act(record, seat)
        rules = spec.make_rules(record.config)
        if expected_version is not None and expected_version != stored.version:
            await self._check_unseen_changes(
                game_id, rules, record, seat, expected_version, stored.version
            )
        now = self.now_ms()
        with span("rules.apply"):
            record, move = step(spec, rules, record, seat, action, now)
        try:
            record, version = await self.finish(
                game_id, stored.version, spec, rules, record, [move], now, (request_key, request)
            )
        except RequestReplayed as replayed:
            return await self._first_answer(game_id, replayed.found, request)
        return Reached(rules, game_id, record, version)

    async def change_table(
        self,
        game_id: str,
        permit: Callable[[GameRecord], None],
        changes: Callable[[GameSpec[Any, Any, Any, Any], GameRecord], Sequence[Change]],
    ) -> tuple[GameRecord, int]:
        """Apply table changes (T-R2 to T-R8) and the bots' replies with one compare-and-set.

        ``permit`` checks the caller's credential, ``changes`` says what changes for the game
        as it is now; both run again when the write loses a race, since table changes do not
        depend on a version the caller saw.

        Raises:
            Unauthenticated, PermissionDenied: from ``permit``.
            IllegalAction: a change the table rules refuse (:func:`check_change`).
        """

        async def attempt() -> tuple[GameRecord, int]:
            stored = await self.store.load(game_id)
            record = decode_record(stored.snapshot)
            permit(record)
            spec = self.registry[record.game_type]
            rules = spec.make_rules(record.config)
            now = self.now_ms()
            moves = []
            for seat, change in changes(spec, record):
                if isinstance(change, SeatHandedOver):
                    check_offered(spec, change.kind, "player_type")
                check_change(rules, record, seat, change)
                record, move = step(spec, rules, record, seat, change, now)
                moves.append(move)
            return await self.finish(game_id, stored.version, spec, rules, record, moves, now)

        return await self._retrying(attempt)

    async def advance(self, game_id: str) -> Listing | None:
        """Do what is due in a game: fire an expired turn clock, then let bots play a slice.

        This is the timer loop's step. Whichever process gets here first does it; the others
        lose the compare-and-set and do nothing, so it happens exactly once.

        Returns where the write left the game (when it is due next), ``None`` when nothing was
        written. The write announces nothing to the timer loops: the loop that made it plans
        the game's next time itself.
        """
        try:
            stored = await self.store.load(game_id)
        except GameNotFound:
            await self.store.drop_due(game_id)
            return None
        settled = due_slice(stored.snapshot, stored.version, self.now_ms(), self.slice_budget)
        if settled is None:
            return None
        try:
            await self._write(game_id, stored.version, settled, announce=False)
        except (_LostRace, GameNotFound):
            return None
        return settled.listing

    async def finish(
        self,
        game_id: str,
        base_version: int,
        spec: GameSpec[Any, Any, Any, Any],
        rules: Rules[Any, Any, Any],
        record: GameRecord,
        moves: Sequence[Move],
        now: int,
        remembered: tuple[str, Request] | None = None,
    ) -> tuple[GameRecord, int]:
        """Let bots reply (bounded) to ``moves`` and write it all with one compare-and-set.

        ``moves`` were made on version ``base_version``; returns the record and the version
        reached. ``remembered`` is the reply's key in the game and the request it answers.

        Raises:
            _LostRace: another writer changed the game since ``base_version``.
            RequestReplayed: ... and it was the same request, already answered.
        """
        settled = settle(
            spec, rules, record, base_version, moves, now, self.budget, self._work_clock
        )
        await self._write(game_id, base_version, settled, remembered)
        return settled.record, settled.version

    async def _write(
        self,
        game_id: str,
        base_version: int,
        settled: Settled,
        remembered: tuple[str, Request] | None = None,
        *,
        announce: bool = True,
    ) -> None:
        """One compare-and-set of a settled write on ``base_version``; raises _LostRace."""
        request_key = None if remembered is None else remembered[0]
        reply = b"" if remembered is None else move_reply(settled.version, remembered[1])
        try:
            with span("redis.compare_and_set"):
                await self.store.save(
                    game_id,
                    base_version,
                    settled.snapshot,
                    settled.versions,
                    settled.listing,
                    request_key,
                    reply,
                    announce,
                )
        except VersionConflict as conflict:
            raise _LostRace(conflict) from conflict
        self.recent.wrote(game_id, settled.version, settled.snapshot, settled.record)

    async def _retrying(self, attempt: Callable[[], Awaitable[T]]) -> T:
        """Run a write again when it lost a compare-and-set race, at most WRITE_ATTEMPTS times."""
        for tries in range(1, WRITE_ATTEMPTS + 1):
            try:
                return await attempt()
            except _LostRace as lost:
                if tries == WRITE_ATTEMPTS:
                    raise lost.conflict from None
        raise AssertionError("unreachable")  # pragma: no cover

    async def action_log(
        self,
        game_id: str,
        seat: int | None,
        token: str | None,
        start: int = 0,
        page_size: int = 0,
    ) -> ActionLog:
        """A page of the log as ``seat`` may read it: others' secret moves hidden until the end.

        ``page_size`` 0, or larger than :data:`MAX_PAGE_SIZE`, reads that many (AIP-158: the
        server's default), so no request reads more than a page of the log.
        """
        if page_size < 0:
            raise MalformedRequest("page_size", "must not be negative")
        if start < 0:
            raise MalformedRequest("from_index", "must not be negative")
        stop = start + min(page_size or MAX_PAGE_SIZE, MAX_PAGE_SIZE)
        stored, raw_entries = await self.store.log(game_id, start, stop)
        record = decode_record(stored.snapshot)
        self.check_reader(record, seat, token)
        rules = self.rules_of(record)
        over = outcome_of(rules, record) is not None
        entries = []
        for index, raw in enumerate(raw_entries, start=start):
            logged = decode_log_entry(record.game_type, raw)
            hidden = not over and logged.seat != seat and is_secret(rules, logged.action)
            action = None if hidden else logged.action
            entries.append(LogLine(index, logged.seat, action, logged.applied_at_ms))
        log_length = stored.version - 1
        next_index = stop if stop < log_length else None
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

    def check_seat_of(self, record: GameRecord, seat: int) -> None:
        """Raise MalformedRequest unless ``seat`` is one of the game's."""
        self._check_seat(self.registry[record.game_type], seat, "seat")

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
            VersionConflict: something ``seat`` may see changed, ``expected`` is ahead, or
                more than :data:`MAX_UNSEEN` versions behind.
        """
        if expected > current or current - expected > MAX_UNSEEN:
            raise VersionConflict(expected, current)
        _, entries = await self.store.log(game_id, expected - 1, current - 1)
        for raw in entries:
            logged = decode_log_entry(record.game_type, raw)
            if logged.seat == seat or not is_secret(rules, logged.action):
                raise VersionConflict(expected, current)

    async def state_at(self, game_id: str, version: int) -> GameRecord:
        """The game as it was at ``version``: the checkpoint before it and the log from there.

        A checkpoint is kept every :data:`~engine_service.store.keys.CHECKPOINT_EVERY`
        versions, so this replays a few dozen entries however long the game has run.
        """
        _, snapshot, entries = await self.store.checkpoint(game_id, version)
        return self._replayed(snapshot, entries)

    async def replay_from_origin(self, game_id: str, version: int) -> GameRecord:
        """The game at ``version`` rebuilt from the record as created and the whole log.

        For checks that the log replays to what was stored; the service itself rebuilds
        from checkpoints (:meth:`state_at`).
        """
        origin, entries = await self.store.origin(game_id, version - 1)
        return self._replayed(origin, entries)

    def _replayed(self, snapshot: bytes, entries: Sequence[bytes]) -> GameRecord:
        """A stored record moved on by the logged entries after it."""
        record = decode_record(snapshot)
        spec = self.registry[record.game_type]
        rules = spec.make_rules(record.config)
        for raw in entries:
            logged = decode_log_entry(record.game_type, raw)
            record = step(spec, rules, record, logged.seat, logged.action, logged.applied_at_ms)[0]
        return record

    async def _first_answer(self, game_id: str, stored: StoredGame, request: Request) -> Reached:
        """The answer a repeated request got the first time (AIP-155 idempotency).

        Only the version a request reached is remembered (with the request's fingerprint,
        40 bytes rather than a snapshot per move). A retry usually finds the game still at
        that version, and its snapshot loaded; otherwise the game is rebuilt from the
        checkpoint before that version, so a retry costs the same however long the log.
        """
        assert stored.replay is not None
        version = replayed_version(stored.replay, request)
        if version == stored.version:
            record = decode_record(stored.snapshot)
        else:
            record = await self.state_at(game_id, version)
        return Reached(self.rules_of(record), game_id, record, version)
