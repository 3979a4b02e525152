"""The watch use case: every version of a game after the one a client has, as it may see it.

A watcher first catches up from the store (the event stream keeps recent versions), then
follows new versions through the process's :class:`~engine_service.store.protocol.EventFeed`,
whichever process wrote them. It keeps the game's state at the last version it sent and
applies each logged action to it (once per process for all its watchers of the game:
:mod:`~.shared_steps`), so every update carries the viewer's view at exactly that version;
versions it already sent are dropped and a gap is filled from the store, so a stream never
skips or repeats a version. A watcher too far behind for the feed to keep what it has
not taken (see :mod:`~engine_service.store.redis_feed`) gets what it missed read back from the
store and merged into one update, so a slow reader catches up instead of being cut off.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine_service.app.engine import Engine
from engine_service.app.play import SeatView, seat_view, step
from engine_service.app.shared_steps import SharedSteps
from engine_service.codec.record import (
    LoggedAction,
    decode_log_entry,
    decode_record,
    visible_events,
)
from engine_service.core.errors import MalformedRequest, VersionExpired
from engine_service.core.protocol import GameSpec, Outcome, Rules
from engine_service.core.record import GameRecord
from engine_service.core.table import outcome_of
from engine_service.store.protocol import EventFeed, StoredVersion


@dataclass(frozen=True, slots=True)
class Update:
    """One version as the viewer may see it.

    Attributes:
        version: the version reached.
        seat: whose action made it; ``None`` for the current view a watch from 0 starts with.
        applied_at_ms: when that action was applied (0 when unknown).
        events: the event messages the viewer may see, in order.
        view: the viewer's view at ``version``; ``None`` for an events-only watch.
        first_version: 0 for one version; else the first of the versions this update
            merges (the watcher was behind): ``events`` are all of theirs, the rest the
            last one's.
    """

    version: int
    seat: int | None
    applied_at_ms: int
    events: Sequence[Any]
    view: SeatView | None
    first_version: int = 0


@dataclass(frozen=True, slots=True)
class Idle:
    """Nothing happened for a while; ``version`` is the last one sent."""

    version: int


@dataclass(frozen=True, slots=True)
class Ended:
    """The game (of ``game_type``) is over at ``version``; nothing follows."""

    game_type: str
    version: int
    outcome: Outcome


WatchItem = Update | Idle | Ended


@dataclass
class _Position:
    """Where one watcher stands: the game at the last version it sent."""

    game_id: str
    viewer: int | None
    events_only: bool
    spec: GameSpec[Any, Any, Any, Any]
    rules: Rules[Any, Any, Any]
    record: GameRecord
    version: int
    steps: SharedSteps

    def advance(
        self, versions: Sequence[StoredVersion], check: Callable[[GameRecord], None]
    ) -> Update:
        """Apply the next versions' actions and describe them for the viewer, as one update.

        ``check`` raises when the viewer may no longer read the game (its token reissued at
        that version, T-R7): then nothing of that version or later is described.
        """
        events: list[Any] = []
        for stored in versions:
            logged, self.record = self.steps.apply(
                self.game_id, stored.version, self.record, stored.entry, self._apply
            )
            check(self.record)
            events += visible_events(stored.events, self.viewer)
        self.version = versions[-1].version
        return Update(
            version=self.version,
            seat=logged.seat,
            applied_at_ms=logged.applied_at_ms,
            events=events,
            view=None if self.events_only else self.view(),
            first_version=versions[0].version if len(versions) > 1 else 0,
        )

    def _apply(self, record: GameRecord, entry: bytes) -> tuple[LoggedAction, GameRecord]:
        """A stored log entry decoded and applied to ``record``."""
        logged = decode_log_entry(record.game_type, entry)
        after = step(
            self.spec, self.rules, record, logged.seat, logged.action, logged.applied_at_ms
        )[0]
        return logged, after

    def view(self) -> SeatView:
        """The viewer's view of the last version sent."""
        return seat_view(self.rules, self.game_id, self.record, self.version, self.viewer)

    def ended(self) -> Ended | None:
        """The end of the stream, once the game is over."""
        outcome = outcome_of(self.rules, self.record)
        if outcome is None:
            return None
        return Ended(self.record.game_type, self.version, outcome)


async def _kept_after(
    engine: Engine, game_id: str, version: int, newest: int
) -> list[StoredVersion]:
    """The kept versions after ``version``, knowing that ``newest`` exists.

    Raises:
        VersionExpired: the version after ``version`` is no longer kept, so nothing from it
            on can be sent without a gap.
    """
    found = await engine.store.versions_after(game_id, version)
    if version < newest and (not found or found[0].version != version + 1):
        raise VersionExpired(
            f"versions after {version} are no longer kept; reload the view with "
            "GetGameView and watch from its version"
        )
    return found


async def watch(
    engine: Engine,
    feed: EventFeed,
    game_id: str,
    seat: int | None,
    token: str | None,
    from_version: int,
    *,
    events_only: bool = False,
    idle_seconds: float = 15.0,
) -> AsyncGenerator[WatchItem, None]:
    """Every version after ``from_version`` (0: the current view first), then each new one.

    Raises:
        MalformedRequest: ``from_version`` is beyond the game's version, or a bad seat.
        Unauthenticated, PermissionDenied: the token is not ``seat``'s, at the start or at a
            later version (its token reissued): the stream then ends before that version.
        GameNotFound: no such game.
        VersionExpired: the versions after ``from_version`` are no longer kept.
        ShuttingDown: from the feed; the client watches again.
    """
    stored = await engine.store.load(game_id)
    record = decode_record(stored.snapshot)
    engine.check_reader(record, seat, token)
    if from_version > stored.version:
        raise MalformedRequest(
            "from_version", f"the game is at version {stored.version}, not {from_version}"
        )
    subscription = await feed.subscribe(game_id, stored.version)
    try:
        rules = engine.rules_of(record)
        start = from_version or stored.version
        pending = await _kept_after(engine, game_id, start, stored.version)
        if start < stored.version:
            record = await engine.state_at(game_id, start)
        spec = engine.registry[record.game_type]
        position = _Position(
            game_id, seat, events_only, spec, rules, record, start, engine.shared_steps
        )
        if from_version == 0:
            view = None if events_only else position.view()
            yield Update(position.version, None, 0, (), view)
        elif not pending and position.ended() is None:
            # Nothing to send yet: a heartbeat at once still tells the client the stream is
            # open, so one that hears nothing within a bound knows to open it again.
            yield Idle(position.version)

        passed: object = None  # the seats the token last passed against

        def check(record: GameRecord) -> None:
            # The seat's token may have been reissued (T-R7) at this version: the stream
            # ends as a GetGameView with that token would, before showing the seat's cards.
            # A step that changes no seat keeps the very same seats, and so the same tokens.
            nonlocal passed
            if record.seats is not passed:
                engine.check_reader(record, seat, token)
                passed = record.seats

        while True:
            for stored_version in pending:
                if stored_version.version == position.version + 1:
                    yield position.advance([stored_version], check)
            if (ended := position.ended()) is not None:
                yield ended
                return
            item = await subscription.next(idle_seconds)
            if item is None:
                yield Idle(position.version)
                pending = []
            elif item.version > position.version + 1:
                # The feed dropped what this watcher had not taken (it was far behind):
                # what it missed is read back from the store and sent as one update.
                missed = await _kept_after(engine, game_id, position.version, item.version)
                yield position.advance(missed, check)
                pending = []
            else:
                pending = [item]
    finally:
        subscription.close()
