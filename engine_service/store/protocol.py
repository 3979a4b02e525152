"""The storage contract the use cases rely on."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Protocol


@dataclass(frozen=True, slots=True)
class StoredGame:
    """A game as loaded: its snapshot bytes, its version and, when asked, a remembered reply.

    Attributes:
        snapshot: the encoded game record.
        version: 1 at creation, plus one per logged action.
        replay: what the same request stored the first time (``None`` when it is new).
    """

    snapshot: bytes
    version: int
    replay: bytes | None = None


@dataclass(frozen=True, slots=True)
class Listing:
    """Where a game stands, for the indexes its write keeps (ListGames, the timer loop).

    Attributes:
        created_at_ms: when the game was created (its order in listings).
        state: ``waiting`` (a human must act), ``running`` (only bots) or ``over``.
        due_ms: when the service must act on it next (a deadline, or now for bots still to
            move); ``None`` when only a person can move it on.
        now_ms: the time of the write.
    """

    created_at_ms: int
    state: str
    due_ms: int | None
    now_ms: int


@dataclass(frozen=True, slots=True)
class GameSummary:
    """What listing and GetGame read of a game: its snapshot, version and table metadata.

    Attributes:
        updated_ms: the time of its last write.
        rematch_id: the game created as its rematch, ``""`` while there is none.
    """

    game_id: str
    snapshot: bytes
    version: int
    updated_ms: int
    rematch_id: str


@dataclass(frozen=True, slots=True)
class StoredVersion:
    """One version after the first, as kept in the game's event stream.

    Attributes:
        version: the version the action led to (2 for the first logged action).
        entry: the encoded log entry of that action (who did what, and when).
        events: the encoded events of that action, private parts included.
    """

    version: int
    entry: bytes
    events: bytes


@dataclass(frozen=True, slots=True)
class NewVersion:
    """A logged action and its events, to be written as the next version."""

    entry: bytes
    events: bytes


@dataclass(frozen=True, slots=True)
class FirstReply:
    """A CreateGame request's reply to remember: the hash of its id, and the sealed reply.

    Attributes:
        digest: the hash of the request id (the store's key holds nothing else of it).
        sealed: the reply, encrypted under a key only the request id gives.
    """

    digest: bytes
    sealed: bytes


@dataclass(frozen=True, slots=True)
class TimerShare:
    """Which part of the due index one timer loop reads: every ``count``-th group from ``index``.

    The running timer loops divide the groups among themselves (each its rank among their
    number), so the work of looking grows with the games, not with the processes.
    """

    index: int
    count: int

    def holds(self, group: int) -> bool:
        """Whether ``group`` is one of the groups this share reads."""
        return group % self.count == self.index


WHOLE: Final = TimerShare(0, 1)
"""The whole due index: what a loop reads that knows of no others."""


@dataclass(frozen=True, slots=True)
class DueNotice:
    """A game that a write made due before the timer loops' next look.

    Attributes:
        game_id: the game.
        group: its slot group (whose loop's share holds it).
        due_ms: when it is due (ms since the epoch).
    """

    game_id: str
    group: int
    due_ms: int


class RequestReplayed(Exception):
    """The request already has a stored reply, so the write was not made.

    ``found`` holds that reply (``replay``) and, for a move, the game as it is now.
    """

    def __init__(self, found: StoredGame) -> None:
        super().__init__("the request was already answered")
        self.found = found


class GameStore(Protocol):
    """Keeps each game's snapshot, version, action log and events; writes are compare-and-set.

    Every version after the first is one log entry and its events, written in the same atomic
    step as the snapshot, so an event exists exactly when its move does.
    """

    async def create(
        self,
        game_id: str,
        origin: bytes,
        snapshot: bytes,
        moves: Sequence[NewVersion],
        listing: Listing,
        first_reply: FirstReply | None = None,
    ) -> int:
        """Store a new game; returns its version (1 + len(moves)).

        ``origin`` is the record as created, before any logged action: replays start there.
        With ``first_reply``, the reply is kept under its digest in the same atomic write,
        unless one is kept there already: then nothing is written and RequestReplayed
        carries the kept reply (``game_id`` must come from :meth:`new_game_id` of the
        digest).
        """

    def new_game_id(self, digest: bytes | None = None) -> str:
        """A fresh game id; with a request's digest, one its reply can be written beside."""

    async def first_reply(self, digest: bytes) -> bytes | None:
        """The sealed reply kept for a CreateGame request's digest, if any."""

    async def load(self, game_id: str, request_key: str | None = None) -> StoredGame:
        """The current snapshot and version; raises GameNotFound."""

    async def save(
        self,
        game_id: str,
        expected_version: int,
        snapshot: bytes,
        moves: Sequence[NewVersion],
        listing: Listing,
        request_key: str | None = None,
        reply: bytes = b"",
        announce: bool = True,
    ) -> int:
        """Replace the snapshot if the version is still ``expected_version``.

        Appends ``moves``, updates the game's index entries from ``listing``, remembers
        ``reply`` under ``request_key`` (when given) and returns the new version; with
        ``announce``, a game left due before the timer loops' next look is announced to
        them. Raises VersionConflict when another writer got there first, GameNotFound if
        expired, and RequestReplayed (with the game as it is now) when another writer got
        there first with the same ``request_key``.
        """

    async def log(
        self, game_id: str, start: int = 0, stop: int | None = None
    ) -> tuple[StoredGame, list[bytes]]:
        """The current game and its log entries from ``start`` up to ``stop``, read together.

        ``stop`` is exclusive; ``None`` reads to the end. Raises GameNotFound.
        """

    async def origin(self, game_id: str, stop: int) -> tuple[bytes, list[bytes]]:
        """The record as created and the log entries before index ``stop``: a replay's input.

        Raises GameNotFound.
        """

    async def checkpoint(self, game_id: str, version: int) -> tuple[int, bytes, list[bytes]]:
        """A stored record at or before ``version`` and the log entries from it to ``version``.

        Returns its version, its bytes and the entries that lead on to ``version``: fewer
        than a checkpoint's span, however long the log. Raises GameNotFound.
        """

    async def versions_after(self, game_id: str, version: int) -> list[StoredVersion]:
        """The kept versions after ``version``, oldest first (older ones may be trimmed)."""


class GameIndex(Protocol):
    """The indexes across games that every write keeps: what is due, and listings."""

    async def timer_share(self, member: str, lapse_ms: int) -> TimerShare:
        """Renew timer loop ``member``'s place among the running loops; returns its share.

        A loop that does not renew within ``lapse_ms`` is dropped, and the others take over
        its groups at their next renewal.
        """

    async def leave_timers(self, member: str) -> None:
        """Drop timer loop ``member`` from the running loops (it is stopping)."""

    async def due_games(
        self, until_ms: int, limit: int, share: TimerShare = WHOLE
    ) -> list[tuple[str, int]]:
        """Games the service must act on by ``until_ms``, with when, earliest first.

        At most ``limit`` of them, and only the games in ``share`` of the index.
        """

    async def listed_before(
        self, states: Sequence[str], cursor: str | None, count: int
    ) -> list[str]:
        """The newest ``count`` list members in ``states`` below ``cursor`` (exclusive).

        Members sort by creation time, then id; ``None`` starts from the newest.
        """

    async def summaries(self, members: Sequence[str]) -> list[GameSummary | None]:
        """The summary of each listed game, ``None`` for one that expired.

        An expired game's list entries are dropped on the way.
        """

    async def summary(self, game_id: str) -> GameSummary:
        """One game's summary; raises GameNotFound."""

    async def claim_due(self, game_id: str, now_ms: int, lease_ms: int) -> bool:
        """Take a due game for ``lease_ms`` unless it is not due by ``now_ms`` (or taken).

        Its due time moves to the lease's end, so other processes leave it alone while this
        one works on it, and pick it up again if this one dies. The write that follows sets
        the real next due time. Returns whether this caller got it.
        """

    async def drop_due(self, game_id: str) -> None:
        """Forget a due entry whose game expired."""

    async def link_rematch(self, game_id: str, rematch_id: str) -> str:
        """Record ``rematch_id`` as the rematch of ``game_id`` unless it has one already.

        Returns the rematch the game has now (``rematch_id`` when this call set it).
        """


class FeedSubscription(Protocol):
    """One watcher's queue of a game's new versions."""

    async def next(self, timeout: float) -> StoredVersion | None:
        """The next version, or ``None`` after ``timeout`` seconds without one.

        Raises ShuttingDown when stopping.
        """

    def close(self) -> None:
        """Stop following the game."""


class EventFeed(Protocol):
    """Tells watchers of new versions written by any process."""

    async def subscribe(self, game_id: str, after_version: int) -> FeedSubscription:
        """Follow ``game_id`` from the version after ``after_version`` on.

        Earlier versions may come too; the caller drops what it already has.
        """
