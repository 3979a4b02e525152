"""Is a stored game consistent? Its log must replay, from its origin record, to its snapshot.

Checked per game: the version is the log length plus one; every logged entry was allowed when
it was made (a move by the rules, a table change by the table rules); replaying the log from
the stored origin record (``o``, the game as created) with each entry's own time gives
exactly the stored snapshot bytes, clocks and table changes included; a game a client saw
finish has an outcome; no game a client saw is missing or stored at a lower version than a
reply showed (a lost acknowledged write); and the event stream (what watchers read) has one
entry per version it still keeps, ending at the stored version, each carrying the log entry
of that version. Works for every registered game through the generic ``Rules`` calls and the
codec.

The replay goes through :func:`engine_service.app.play.step`, the one function the engine
itself moves a game on with (and ``Engine.state_at`` replays with), so this check cannot
drift from how games are played. Reads with a plain (synchronous) redis-py client, the
game's hash, log and event stream in one transaction, so they match. On a Redis Cluster it
takes a client of every master and checks each game on the master that holds it (a game's
keys share one hash tag, so one slot, so one master).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, TypeAlias

import redis

from engine_service.app.play import step
from engine_service.codec.record import decode_log_entry, decode_record, encode_record
from engine_service.core.errors import IllegalAction
from engine_service.core.protocol import Rules
from engine_service.core.record import GameRecord
from engine_service.core.table import check_change, is_table_change, outcome_of
from engine_service.registry import REGISTRY
from engine_service.store.keys import (
    events_key,
    game_key,
    log_key,
    stream_id,
    version_of_stream_id,
)

GAME_KEYS = "ce:*:game"
"""A ``SCAN`` pattern wide enough for every game hash under any hash tag (``{sNN}`` or
``{g...}``): :func:`game_key` then decides which keys are this schema's game hashes."""
Servers: TypeAlias = "redis.Redis | Sequence[redis.Redis]"
"""One Redis, or every master of a cluster (a client each)."""


def check_game(
    client: redis.Redis, game_id: str, finished: bool = False, acknowledged: int = 0
) -> list[str]:
    """What is wrong with one stored game; empty when it is consistent.

    ``acknowledged``: the highest version a reply showed a client; a lower stored version
    means an acknowledged write was lost.
    """
    with client.pipeline(transaction=True) as pipe:
        pipe.hmget(game_key(game_id), ["v", "s", "o"])
        pipe.lrange(log_key(game_id), 0, -1)
        pipe.xrange(events_key(game_id))
        (raw_version, snapshot, origin), entries, stream = pipe.execute()
    if raw_version is None or snapshot is None or origin is None:
        return ["not stored"]
    version = int(raw_version)
    stored = decode_record(snapshot)
    spec = REGISTRY[stored.game_type]
    rules = spec.make_rules(stored.config)
    problems = []
    if version < acknowledged:
        problems.append(f"stored version {version} but a reply showed {acknowledged}")
    if version != len(entries) + 1:
        problems.append(f"version {version} but {len(entries)} log entries")
    problems += _stream_problems(version, entries, stream)
    record = decode_record(origin)
    for index, raw in enumerate(entries):
        logged = decode_log_entry(record.game_type, raw)
        refused = _refusal(rules, record, logged.seat, logged.action)
        if refused is not None:
            return [*problems, f"log entry {index} is illegal: {refused}"]
        record, _ = step(spec, rules, record, logged.seat, logged.action, logged.applied_at_ms)
    if encode_record(record) != snapshot:
        problems.append("the log does not replay to the stored snapshot")
    if finished and outcome_of(rules, stored) is None:
        problems.append("seen finished but has no outcome")
    return problems


def _refusal(rules: Rules[Any, Any, Any], record: GameRecord, seat: int, action: Any) -> str | None:
    """Why a logged entry was not allowed on ``record``, or ``None`` when it was."""
    if is_table_change(action):
        try:
            check_change(rules, record, seat, action)
        except IllegalAction as refused:
            return refused.violation.reason
        return None
    violation = rules.check(record.state, seat, action)
    return None if violation is None else violation.reason


def _stream_problems(
    version: int, entries: list[bytes], stream: list[tuple[bytes, dict[bytes, bytes]]]
) -> list[str]:
    """What is wrong with the event stream beside the log (it may be trimmed at the start)."""
    if version > 1 and not stream:
        return [f"version {version} but no event stream"]
    versions = [version_of_stream_id(entry_id) for entry_id, _ in stream]
    if versions and versions != list(range(versions[0], version + 1)):
        return [f"event stream has versions {versions[0]}..{versions[-1]}, not up to {version}"]
    for (entry_id, fields), number in zip(stream, versions, strict=True):
        logged = entries[number - 2] if 2 <= number <= len(entries) + 1 else None
        if entry_id.decode() != stream_id(number) or fields.get(b"a") != logged:
            return [f"event stream entry of version {number} is not its log entry"]
    return []


def _stored(servers: Servers) -> Iterator[tuple[redis.Redis, str]]:
    """Each stored game's id with the server holding it.

    The id is the third part of the key; a key the schema would not have made for that id
    (:func:`game_key` is the one source of the layout) is not a game hash and is skipped.
    """
    for client in [servers] if isinstance(servers, redis.Redis) else servers:
        for raw in client.scan_iter(GAME_KEYS, count=1000):
            key = raw.decode()
            parts = key.split(":")
            if len(parts) == 4 and game_key(parts[2]) == key:
                yield client, parts[2]


def stored_game_ids(servers: Servers) -> list[str]:
    """The id of every game stored in this Redis (or on these masters)."""
    return [game_id for _, game_id in _stored(servers)]


def check_all(
    servers: Servers, finished: set[str], acknowledged: Mapping[str, int] | None = None
) -> dict[str, list[str]]:
    """Problems by game id, over every stored game; only inconsistent games appear.

    ``finished``: games a client saw finish; ``acknowledged``: the highest version of each
    game replies showed. Either kind of game missing from the store is a problem too.
    """
    acknowledged = acknowledged or {}
    report = {}
    seen = set()
    for client, game_id in _stored(servers):
        seen.add(game_id)
        problems = check_game(client, game_id, game_id in finished, acknowledged.get(game_id, 0))
        if problems:
            report[game_id] = problems
    for game_id in (finished | acknowledged.keys()) - seen:
        report[game_id] = ["a client saw it but it is not stored"]
    return report
