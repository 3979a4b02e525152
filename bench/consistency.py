"""Is a stored game consistent? Its log must replay, from its origin record, to its snapshot.

Checked per game: the version is the log length plus one; every logged entry was allowed when
it was made (a move by the rules, a table change by the table rules); replaying the log from
the stored origin record (``o``, the game as created) with each entry's own time gives
exactly the stored snapshot bytes, clocks and table changes included; a game a client saw
finish has an outcome; and the event stream (what watchers read) has one entry per version it
still keeps, ending at the stored version, each carrying the log entry of that version. Works
for every registered game through the generic ``Rules`` calls and the codec.

The replay goes through :func:`engine_service.app.play.step`, the one function the engine
itself moves a game on with (and ``Engine.state_at`` replays with), so this check cannot
drift from how games are played. Reads with a plain (synchronous) redis-py client, the
game's hash, log and event stream in one transaction, so they match.
"""

from __future__ import annotations

from typing import Any

import redis

from engine_service.app.play import step
from engine_service.codec.record import decode_log_entry, decode_record, encode_record
from engine_service.core.errors import IllegalAction
from engine_service.core.protocol import Rules
from engine_service.core.record import GameRecord
from engine_service.core.table import check_change, is_table_change, outcome_of
from engine_service.games import REGISTRY
from engine_service.store.keys import (
    events_key,
    game_key,
    log_key,
    stream_id,
    version_of_stream_id,
)

GAME_KEYS = "ce:{s*}:*:game"
"""Every game hash (:func:`game_key`): ``ce:{sNN}:<id>:game``."""


def check_game(client: redis.Redis, game_id: str, finished: bool = False) -> list[str]:
    """What is wrong with one stored game; empty when it is consistent."""
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


def stored_game_ids(client: redis.Redis) -> list[str]:
    """The id of every game stored in this Redis.

    The id is the third part of the key; a key the schema would not have made for that id
    (:func:`game_key` is the one source of the layout) is not a game hash and is skipped.
    """
    found = []
    for raw in client.scan_iter(GAME_KEYS):
        key = raw.decode()
        parts = key.split(":")
        if len(parts) == 4 and game_key(parts[2]) == key:
            found.append(parts[2])
    return found


def check_all(client: redis.Redis, finished: set[str]) -> dict[str, list[str]]:
    """Problems by game id, over every stored game; only inconsistent games appear."""
    report = {}
    for game_id in stored_game_ids(client):
        problems = check_game(client, game_id, game_id in finished)
        if problems:
            report[game_id] = problems
    return report
