"""What "nothing was written" compares: each key's content, read by its type.

``DUMP`` bytes are not that: a hash large enough to be a hash table is dumped in the order of
its table, which an incremental rehash (run by mere reads) or a replica's reload can change
while not a field changes. So each key is read as what it holds: a hash's fields sorted, a
list's items, a sorted set's members and scores, a stream's entries, a string's bytes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import redis


def content(client: redis.Redis, key: bytes | str) -> Any:
    """The content of ``key`` (``None`` when it does not exist)."""
    kind = client.type(key)
    kind = kind.decode() if isinstance(kind, bytes) else kind
    readers = {
        "string": lambda: client.get(key),
        "hash": lambda: sorted(client.hgetall(key).items()),
        "list": lambda: client.lrange(key, 0, -1),
        "zset": lambda: client.zrange(key, 0, -1, withscores=True),
        "set": lambda: sorted(client.smembers(key)),
        "stream": lambda: client.xrange(key),
        "none": lambda: None,
    }
    return readers[kind]()


def contents(client: redis.Redis, keys: Iterable[bytes | str]) -> dict[bytes | str, Any]:
    """The content of each of ``keys``."""
    return {key: content(client, key) for key in keys}
