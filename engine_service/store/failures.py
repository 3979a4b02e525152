"""Which Redis errors mean "the storage cannot take this call now", and what to call them.

A client told UNAVAILABLE retries, perhaps on another server or after a failover; a client
told INTERNAL gives up. So every refusal by a healthy-but-troubled Redis is storage trouble:
out of memory under ``noeviction`` (OOM), a replica that cannot take writes (READONLY, as
right after a failover), a replica still loading its data (LOADING), a replica whose master
is gone (MASTERDOWN), too few replicas (NOREPLICAS), a cluster that is down or resharding
(CLUSTERDOWN, TRYAGAIN), a Redis busy in a script (BUSY) or unable to persist (MISCONF).
None of these leaves half a write behind: a game's writes are one ``MULTI``/``EXEC`` or one
script, which Redis refuses before it starts or runs whole.

redis-py turns some prefixes into classes (``OutOfMemoryError``, ``ReadOnlyError``...) and
leaves others as a plain ``ResponseError``, whose message then starts with the prefix (after
the pipeline's "Command # n (...) of pipeline caused error:" note, when it came from one).
"""

from __future__ import annotations

import traceback
from collections.abc import Mapping
from pathlib import Path
from typing import Final

import redis
import redis.asyncio.connection
import redis.exceptions as errors

STORAGE_PREFIXES: Final = frozenset(
    {
        "OOM",
        "READONLY",
        "LOADING",
        "MASTERDOWN",
        "NOREPLICAS",
        "CLUSTERDOWN",
        "TRYAGAIN",
        "BUSY",
        "MISCONF",
    }
)
"""Error prefixes by which Redis refuses a command for its own state, not the command's."""
_CLASSES: Final[Mapping[type[Exception], str]] = {
    errors.BusyLoadingError: "LOADING",
    errors.ConnectionError: "CONNECTION",
    errors.TimeoutError: "TIMEOUT",
    errors.OutOfMemoryError: "OOM",
    errors.ReadOnlyError: "READONLY",
    errors.MasterDownError: "MASTERDOWN",
    errors.ClusterDownError: "CLUSTERDOWN",
    errors.TryAgainError: "TRYAGAIN",
    errors.ClusterError: "CLUSTER",
    errors.SlotNotCoveredError: "CLUSTER",
}
"""redis-py's classes of storage trouble, most specific first."""
_PIPELINE_NOTE: Final = "caused error: "
_REDIS_PACKAGE: Final = Path(redis.__file__).parent
_CONNECTION_MODULE: Final = Path(redis.asyncio.connection.__file__)


def _is_none_error(error: BaseException) -> bool:
    """An ``AttributeError`` or ``TypeError`` about ``None``: what a write on no stream raises."""
    return isinstance(error, (AttributeError, TypeError)) and "NoneType" in str(error)


def _writes_tear_untranslated() -> bool:
    """Whether the installed redis-py lets a write on a torn-down connection out untranslated.

    redis-py up to 8.1 does (issue 4287); 8.2 checks for the missing stream first and raises
    ``ConnectionError``. Asked of redis-py itself, not of its version number: a write on a
    connection that never connected is the same emptied stream, and it fails before the
    coroutine's first ``await``, so no event loop is needed to see how.
    """
    probe = redis.asyncio.connection.Connection(host="127.0.0.1", port=1)
    write = probe._send_packed_command([b"PING\r\n"])
    try:
        write.send(None)
    except Exception as error:
        return _is_none_error(error)
    finally:
        write.close()
    return False


WRITES_TEAR_UNTRANSLATED: Final = _writes_tear_untranslated()
"""Whether :func:`storage_trouble` must look for redis-py's untranslated torn-write error."""


def _torn_down(error: BaseException) -> bool:
    """A connection closed under a call in flight, which redis-py lets out untranslated.

    When a cluster node fails, redis-py disconnects that node's connections while other
    calls are still writing on them; redis-py up to 8.1 then fails the write on the emptied
    stream with an ``AttributeError`` or ``TypeError`` about ``None`` (redis-py issue 4287)
    instead of a ``ConnectionError``. It is told apart from a bug of ours by where it was
    raised: the innermost frame of redis-py's own code is its asyncio connection module. On
    a redis-py that translates the error itself this never matches.
    """
    if not WRITES_TEAR_UNTRANSLATED or not _is_none_error(error):
        return False
    frames = [Path(frame.filename) for frame in traceback.extract_tb(error.__traceback__)]
    ours = [path for path in frames if path.is_relative_to(_REDIS_PACKAGE)]
    return bool(ours) and ours[-1] == _CONNECTION_MODULE


def _prefix(message: str) -> str:
    """The error code Redis put first in ``message`` (after redis-py's pipeline note)."""
    _, noted, rest = message.partition(_PIPELINE_NOTE)
    text = rest if noted else message
    return text.lstrip("('\"").split(" ", 1)[0].upper()


def storage_trouble(error: BaseException) -> str | None:
    """What kind of storage trouble ``error`` is (e.g. ``OOM``), ``None`` when it is none.

    >>> storage_trouble(errors.ResponseError("NOREPLICAS Not enough good replicas to write."))
    'NOREPLICAS'
    >>> storage_trouble(errors.ReadOnlyError("You can't write against a read only replica."))
    'READONLY'
    >>> storage_trouble(errors.ResponseError("WRONGTYPE Operation against a key")) is None
    True
    """
    for kind, name in _CLASSES.items():
        if isinstance(error, kind):
            return name
    if _torn_down(error):
        return "CONNECTION"
    if isinstance(error, errors.ResponseError):
        prefix = _prefix(str(error))
        return prefix if prefix in STORAGE_PREFIXES else None
    return None
