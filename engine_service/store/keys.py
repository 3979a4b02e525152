"""The Redis key schema: each game's keys, and the indexes across games, in 16 slot groups.

Every key carries a hash tag ``{sNN}``: the game's group, from a checksum of its id. A game's
own keys and the indexes that list it share that tag, so on a Redis Cluster one Lua script
can write the game and its index entries atomically (all keys in one slot), while the 16
groups spread the games over the cluster's nodes. Readers of an index (the timer loop,
ListGames) ask all 16 groups.

Per game (``<id>`` in group ``NN``):

* ``ce:{sNN}:<id>:game``: hash with ``v`` (version), ``s`` (snapshot), ``o`` (the record as
  created, which a replay starts from), ``t`` (last write, ms since the epoch), ``n`` (the
  id of its rematch, once there is one), per remembered request ``r:<seat>:<request id>``
  (the version it reached and a fingerprint of the request) and, every
  :data:`CHECKPOINT_EVERY` versions, a checkpoint: ``c:<b>`` the snapshot and ``cv:<b>``
  the version of the first write that reached bucket ``b`` (versions ``b * 64`` and up),
  so rebuilding any version replays fewer than 64 log entries, whatever the log's length.
* ``ce:{sNN}:<id>:log``: list of encoded log entries, oldest first; entry ``i`` made version
  ``i + 2``. Kept whole for the life of the game, so it can always be replayed.
* ``ce:{sNN}:<id>:events``: stream with one entry per version after the first, ID
  ``<version>-0``, fields ``a`` (the log entry) and ``e`` (the encoded events), trimmed to
  about the newest ``event_retention`` versions.

Per group:

* ``ce:{sNN}:req:<64 hex>``: the first reply to a CreateGame with a request id, sealed
  (AES-GCM) under a key derived from that id; the name holds only a hash of the id, and
  the group comes from that hash. The game created gets an id of the same group, so one
  script writes the game and the reply (one slot). It expires with the game's first TTL.

* ``ce:{sNN}:due``: sorted set of the games that need the service to act, scored by when
  (ms since the epoch): a human seat's deadline, or now for bots still to move.
* ``ce:{sNN}:list:<state>`` for ``waiting``, ``running`` and ``over``: sorted sets of
  ``<created ms, 13 digits>:<id>`` members, all scored 0, so a lexicographic range walks
  them newest first with an exact cursor.
"""

from __future__ import annotations

import secrets
import zlib
from typing import Final

GROUPS: Final = 16
LIST_STATES: Final = ("waiting", "running", "over")
CHECKPOINT_EVERY: Final = 64
"""Versions per checkpoint bucket: a rebuild replays at most this many entries, less one."""
GAME_ID_DRAWS: Final = 1000
"""Random ids drawn at most to find one in a given group ((15/16)**1000 < 1e-28 to fail)."""


def group_of(game_id: str) -> int:
    """The slot group of a game.

    >>> group_of("0" * 32), group_of("x")
    (0, 3)
    """
    return zlib.crc32(game_id.encode()) % GROUPS


def _tag(group: int) -> str:
    return f"ce:{{s{group:02d}}}"


def game_key(game_id: str) -> str:
    """The key of a game's hash (version, snapshot, origin, replies)."""
    return f"{_tag(group_of(game_id))}:{game_id}:game"


def log_key(game_id: str) -> str:
    """The key of a game's action log."""
    return f"{_tag(group_of(game_id))}:{game_id}:log"


def events_key(game_id: str) -> str:
    """The key of a game's event stream."""
    return f"{_tag(group_of(game_id))}:{game_id}:events"


def new_game_id(group: int | None = None) -> str:
    """A fresh random game id (128 bits), in ``group`` when given.

    >>> group_of(new_game_id(5))
    5
    """
    for _ in range(GAME_ID_DRAWS):
        game_id = secrets.token_hex(16)
        if group is None or group_of(game_id) == group:
            return game_id
    raise RuntimeError(f"no game id of group {group} in {GAME_ID_DRAWS} draws")  # pragma: no cover


def request_key(digest: bytes) -> tuple[int, str]:
    """The group and key of a CreateGame request's reply, from the hash of its id.

    >>> request_key(bytes(32))
    (0, 'ce:{s00}:req:0000000000000000000000000000000000000000000000000000000000000000')
    """
    group = digest[0] % GROUPS
    return group, f"{_tag(group)}:req:{digest.hex()}"


def checkpoint_bucket(old_version: int, new_version: int) -> int | None:
    """The checkpoint bucket a write from ``old_version`` to ``new_version`` opens, if any.

    >>> checkpoint_bucket(63, 64), checkpoint_bucket(64, 70), checkpoint_bucket(1, 200)
    (1, None, 3)
    """
    bucket = new_version // CHECKPOINT_EVERY
    return bucket if bucket > old_version // CHECKPOINT_EVERY else None


def due_key(group: int) -> str:
    """The key of a group's index of games the service must act on, by when."""
    return f"{_tag(group)}:due"


def list_key(group: int, state: str) -> str:
    """The key of a group's index of games in ``state``, newest first by member."""
    return f"{_tag(group)}:list:{state}"


def list_member(created_at_ms: int, game_id: str) -> str:
    """A game's member in the list indexes: sortable by creation time, then id.

    >>> list_member(1700000000000, "ab")
    '1700000000000:ab'
    """
    return f"{created_at_ms:013d}:{game_id}"


def game_of_member(member: bytes | str) -> str:
    """The game id of a list-index member."""
    text = member.decode() if isinstance(member, bytes) else member
    return text.partition(":")[2]


def stream_id(version: int) -> str:
    """The event-stream entry ID of a version."""
    return f"{version}-0"


def version_of_stream_id(entry_id: bytes | str) -> int:
    """The version an event-stream entry ID stands for.

    >>> version_of_stream_id(b"17-0")
    17
    """
    text = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
    return int(text.partition("-")[0])
