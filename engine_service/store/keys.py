"""The Redis key schema: each game's keys, and the indexes across games, in 1,024 slot groups.

Every key of a game carries a hash tag: its group's. A game's own keys and the index entries
that list it share that tag, so on a Redis Cluster one Lua script writes the game and its
index entries atomically (all in one slot).

The groups spread the games over any cluster evenly. Group ``g``'s tag is chosen (once, at
import, by a fixed search) to hash into the 16 slots ``16 g`` to ``16 g + 15``, so the groups
lie evenly along the 16,384 slots; ``redis-cli --cluster rebalance`` gives each master an
equal contiguous run of slots, hence ``1024 / masters`` groups, give or take one (at 24
masters 42 or 43, at 100 masters 10 or 11). A game's group is written into its id (the top
ten bits), and a process hands out groups in turn (:data:`GROUP_STRIDE`) from a random start,
so the groups hold equal numbers of games, not merely equal odds.

Readers that span games (the timer loop, ListGames) read every group's index through one
script per master (:mod:`engine_service.store.node_reads`), not one command per group.

Per game (``<id>``, tag ``T`` of its group):

* ``ce:{T}:<id>:game``: hash with ``v`` (version), ``s`` (snapshot), ``o`` (the record as
  created, which a replay starts from), ``t`` (last write, ms since the epoch), ``n`` (the
  id of its rematch, once there is one), ``l`` (the list index holding it: ``waiting``,
  ``running`` or ``over``), ``d`` (its entry in the due index, ms; absent when none), ``x``
  (when its keys' expiry was last set, ms), per remembered request ``r:<seat>:<request id>``
  (the version it reached and a fingerprint of the request) and, every
  :data:`CHECKPOINT_EVERY` versions, a checkpoint: ``c:<b>`` the snapshot and ``cv:<b>``
  the version of the first write that reached bucket ``b`` (versions ``b * 64`` and up),
  so rebuilding any version replays fewer than 64 log entries, whatever the log's length.
* ``ce:{T}:<id>:log``: list of encoded log entries, oldest first; entry ``i`` made version
  ``i + 2``. Kept whole for the life of the game, so it can always be replayed.
* ``ce:{T}:<id>:events``: stream with one entry per version after the first, ID
  ``<version>-0``, fields ``a`` (the log entry) and ``e`` (the encoded events), trimmed to
  about the newest ``event_retention`` versions.

Per group:

* ``ce:{T}:req:<64 hex>``: the first reply to a CreateGame with a request id, sealed
  (AES-GCM) under a key derived from that id; the name holds only a hash of the id, and
  the group comes from that hash. The game created gets an id of the same group, so one
  script writes the game and the reply (one slot). It expires with the game's first TTL.
* ``ce:{T}:due``: sorted set of the games that need the service to act, scored by when
  (ms since the epoch): a human seat's deadline, or now for bots still to move.
* ``ce:{T}:list:<state>`` for ``waiting``, ``running`` and ``over``: sorted sets of
  ``<created ms, 13 digits>:<id>`` members, all scored 0, so a lexicographic range walks
  them newest first with an exact cursor.

Across groups, ``ce:timers`` (sorted set: the running timer loops, scored by when each
lapses) shares the groups' due indexes among the processes, and the Pub/Sub channel
``ce:due`` tells them of a game due before their next look (:mod:`.due_notices`).

Games stored under the earlier schema (16 groups, tags ``{s00}`` to ``{s15}``) are moved
to this one by ``python -m engine_service.store.migrate``.
"""

from __future__ import annotations

import itertools
import secrets
import string
import zlib
from typing import Final

from redis.crc import REDIS_CLUSTER_HASH_SLOTS, key_slot

GROUPS: Final = 1024
GROUP_BITS: Final = 10
"""The bits of a game id (its first ten) that name its group."""
SLOTS_PER_GROUP: Final = REDIS_CLUSTER_HASH_SLOTS // GROUPS
LIST_STATES: Final = ("waiting", "running", "over")
CHECKPOINT_EVERY: Final = 64
"""Versions per checkpoint bucket: a rebuild replays at most this many entries, less one."""
TIMERS_KEY: Final = "ce:timers"
DUE_CHANNEL: Final = "ce:due"
ID_HEX: Final = 32


def _group_tags() -> tuple[str, ...]:
    """One hash tag per group, ``g<hex>``, each hashing into its group's run of slots.

    Tried in order ``g0``, ``g1``, ...; the first tag to land in a group's run is its tag
    (about 3,600 tries in all, a few milliseconds).
    """
    tags: list[str | None] = [None] * GROUPS
    missing = GROUPS
    for number in itertools.count():
        tag = f"g{number:x}"
        group = key_slot(tag.encode()) // SLOTS_PER_GROUP
        if tags[group] is None:
            tags[group] = tag
            missing -= 1
            if not missing:
                return tuple(tag for tag in tags if tag is not None)
    raise AssertionError("unreachable")  # pragma: no cover


GROUP_TAGS: Final = _group_tags()
_HEX: Final = frozenset(string.hexdigits)
GROUP_STRIDE: Final = 633
"""The step from one new game's group to the next: odd, so every group comes in turn, and
near ``GROUPS`` over the golden ratio, so any run of consecutive games is spread along the
slots (over every master) rather than bunched in one master's run of slots."""
_turns: Final = itertools.count(secrets.randbelow(GROUPS))


def group_of(game_id: str) -> int:
    """The slot group of a game: the top ten bits of an id this service made.

    Any other string (a client may send anything) gets a group from a checksum; no game
    has such an id, so it is simply not found there.

    >>> group_of("ffc" + "0" * 29), group_of("004" + "0" * 29), group_of("x")
    (1023, 1, 643)
    """
    if len(game_id) == ID_HEX and _HEX.issuperset(game_id):
        return int(game_id[:3], 16) >> (12 - GROUP_BITS)
    return zlib.crc32(game_id.encode()) % GROUPS


def group_tag(group: int) -> str:
    """The key prefix of a group: ``ce:{<its hash tag>}``.

    >>> from redis.crc import key_slot
    >>> key_slot(group_tag(5).encode()) // SLOTS_PER_GROUP
    5
    """
    return f"ce:{{{GROUP_TAGS[group]}}}"


def game_key(game_id: str) -> str:
    """The key of a game's hash (version, snapshot, origin, replies)."""
    return f"{group_tag(group_of(game_id))}:{game_id}:game"


def log_key(game_id: str) -> str:
    """The key of a game's action log."""
    return f"{group_tag(group_of(game_id))}:{game_id}:log"


def events_key(game_id: str) -> str:
    """The key of a game's event stream."""
    return f"{group_tag(group_of(game_id))}:{game_id}:events"


GAME_KEY_PATTERN: Final = "ce:{g*}:*:game"
"""A ``SCAN`` pattern matching every game's hash (:func:`game_key`) and nothing else."""


def new_game_id(group: int | None = None) -> str:
    """A fresh random game id of 32 hex digits, its first ten bits ``group``.

    Without a group, the next of this process's turn through the groups: every group gets
    games at the same rate, so keys and moves spread evenly over a cluster's masters.

    >>> group_of(new_game_id(5))
    5
    """
    chosen = next(_turns) * GROUP_STRIDE % GROUPS if group is None else group
    spare = ID_HEX * 4 - GROUP_BITS
    return f"{chosen << spare | secrets.randbits(spare):0{ID_HEX}x}"


def request_key(digest: bytes) -> tuple[int, str]:
    """The group and key of a CreateGame request's reply, from the hash of its id.

    >>> request_key(bytes(32))[0], request_key(bytes([4, 1]) + bytes(30))[0]
    (0, 1)
    """
    group = int.from_bytes(digest[:2], "big") % GROUPS
    return group, f"{group_tag(group)}:req:{digest.hex()}"


def checkpoint_bucket(old_version: int, new_version: int) -> int | None:
    """The checkpoint bucket a write from ``old_version`` to ``new_version`` opens, if any.

    >>> checkpoint_bucket(63, 64), checkpoint_bucket(64, 70), checkpoint_bucket(1, 200)
    (1, None, 3)
    """
    bucket = new_version // CHECKPOINT_EVERY
    return bucket if bucket > old_version // CHECKPOINT_EVERY else None


def due_key(group: int) -> str:
    """The key of a group's index of games the service must act on, by when."""
    return f"{group_tag(group)}:due"


def list_key(group: int, state: str) -> str:
    """The key of a group's index of games in ``state``, newest first by member."""
    return f"{group_tag(group)}:list:{state}"


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
