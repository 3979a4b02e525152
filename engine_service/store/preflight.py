"""Start-up checks of the Redis the games are kept in: would it lose them?

Redis is the only copy of every game, so two configurations lose games silently:

* a ``maxmemory-policy`` that evicts: ``allkeys-*`` may delete any key, ``volatile-*`` any
  key with a TTL, and every game key has one. Under memory pressure games would vanish
  mid-play (NOT_FOUND) instead of the service answering UNAVAILABLE, as ``noeviction`` makes
  it. This is refused, whatever ``maxmemory`` is now (it can be raised or set at any time).
* no persistence (``appendonly no`` and no ``save`` points): a restart of Redis loses every
  game. This is refused unless ``allow_volatile`` (``--allow-volatile-redis``) says it is
  acceptable (tests, demos, a Redis whose replicas persist). A refusal costs one flag to get
  past; a warning in a log is easily missed, and the loss is found only when players are.

Snapshots alone (``save`` points, no append-only file) are warned about: a crash loses what
was acknowledged since the last snapshot. A replica is warned about: it refuses writes
(UNAVAILABLE) until it is promoted. Where ``CONFIG GET`` is not allowed (managed Redis
services rename or forbid it) or Redis cannot be reached yet, the checks are skipped with a
warning and the server starts; its health status tells whether Redis answers.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import redis.exceptions as errors

from engine_service.store.url_secrets import redacted

log = logging.getLogger(__name__)
_SETTINGS = ("maxmemory-policy", "appendonly", "save")


class RedisRefused(RuntimeError):
    """The Redis would lose games; the message says why and what to change."""


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def problems(config: Mapping[str, str], allow_volatile: bool) -> tuple[list[str], list[str]]:
    """What refuses the start and what only deserves a warning, for a Redis's ``config``.

    >>> problems({"maxmemory-policy": "noeviction", "appendonly": "yes", "save": ""}, False)
    ([], [])
    >>> refusals, _ = problems({"maxmemory-policy": "volatile-lru", "appendonly": "yes"}, False)
    >>> "volatile-lru" in refusals[0]
    True
    """
    refusals: list[str] = []
    warnings: list[str] = []
    policy = config.get("maxmemory-policy", "noeviction")
    if policy != "noeviction":
        refusals.append(
            f"its maxmemory-policy is {policy}: under memory pressure Redis would delete games "
            "(every game key has a TTL, so volatile-* policies evict them too). Set "
            "maxmemory-policy noeviction (CONFIG SET maxmemory-policy noeviction, and in "
            "redis.conf): a full Redis then refuses writes and calls get UNAVAILABLE"
        )
    aof = config.get("appendonly", "no") == "yes"
    snapshots = config.get("save", "").strip()
    if not aof and not snapshots:
        message = (
            "it keeps nothing on disk (appendonly no, no save points): a restart of Redis "
            "loses every game. Turn on the append-only file (CONFIG SET appendonly yes, and "
            "appendonly yes in redis.conf)"
        )
        if allow_volatile:
            warnings.append(f"{message}; started anyway (--allow-volatile-redis)")
        else:
            refusals.append(
                f"{message}, or start with --allow-volatile-redis "
                "(ENGINE_ALLOW_VOLATILE_REDIS=1) if losing every game then is acceptable"
            )
    elif not aof:
        warnings.append(
            f"it persists by snapshots only (save {snapshots}): a crash of Redis loses every "
            "move acknowledged since the last snapshot; appendonly yes keeps them"
        )
    return refusals, warnings


async def _config(client: Any) -> dict[str, str]:
    found: dict[str, str] = {}
    for name in _SETTINGS:
        reply = await client.config_get(name)
        found.update({_text(key): _text(value) for key, value in dict(reply).items()})
    return found


async def _is_replica(client: Any) -> bool:
    info = await client.info("replication")
    return bool(info.get("role") == "slave")


async def check_redis(client: Any, url: str, allow_volatile: bool = False) -> None:
    """Refuse a Redis that would lose games; warn about one that might, or that is unchecked.

    Raises:
        RedisRefused: an evicting ``maxmemory-policy``, or no persistence without
            ``allow_volatile``.
    """
    where = redacted(url)
    try:
        config = await _config(client)
        replica = await _is_replica(client)
    except errors.ResponseError as error:  # CONFIG renamed or forbidden (managed Redis)
        log.warning(
            "cannot read the Redis configuration; eviction and persistence are not checked",
            extra={"redis": where, "error": str(error)},
        )
        return
    except (errors.ConnectionError, errors.TimeoutError) as error:
        log.warning(
            "Redis cannot be reached; its configuration is not checked",
            extra={"redis": where, "error": str(error)},
        )
        return
    refusals, warnings = problems(config, allow_volatile)
    if replica:
        warnings.append("it is a replica: it refuses writes (UNAVAILABLE) until promoted")
    for warning in warnings:
        log.warning("Redis may lose games", extra={"redis": where, "problem": warning})
    if refusals:
        raise RedisRefused(
            f"refusing to keep games in the Redis at {where}: " + "; ".join(refusals)
        )
