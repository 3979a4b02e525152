"""Is a stored game consistent? Its log must replay, from its seed, to its stored snapshot.

Checked per game: the version is the log length plus one; every logged action was legal when
it was played; replaying the log from the seed gives exactly the stored snapshot bytes; a game
a client saw finish has an outcome; and the event stream (what watchers read) has one entry
per version it still keeps, ending at the stored version, each carrying the log entry of that
version. Works for every registered game through the generic ``Rules`` calls and the codec.

Reads with a plain (synchronous) redis-py client, the game's hash, log and event stream in one
transaction, so they match.
"""

from __future__ import annotations

from dataclasses import replace

import redis

from engine_service.codec.record import decode_log_entry, decode_record, encode_record
from engine_service.games import REGISTRY
from engine_service.store.keys import (
    events_key,
    game_key,
    log_key,
    stream_id,
    version_of_stream_id,
)

GAME_KEYS = "ce:*:game"


def check_game(client: redis.Redis, game_id: str, finished: bool = False) -> list[str]:
    """What is wrong with one stored game; empty when it is consistent."""
    with client.pipeline(transaction=True) as pipe:
        pipe.hmget(game_key(game_id), ["v", "s"])
        pipe.lrange(log_key(game_id), 0, -1)
        pipe.xrange(events_key(game_id))
        (raw_version, snapshot), entries, stream = pipe.execute()
    if raw_version is None or snapshot is None:
        return ["not stored"]
    version = int(raw_version)
    record = decode_record(snapshot)
    rules = REGISTRY[record.game_type].make_rules(record.config)
    problems = []
    if version != len(entries) + 1:
        problems.append(f"version {version} but {len(entries)} log entries")
    problems += _stream_problems(version, entries, stream)
    state = rules.new_game(record.seed)
    for index, raw in enumerate(entries):
        logged = decode_log_entry(record.game_type, raw)
        violation = rules.check(state, logged.seat, logged.action)
        if violation is not None:
            return [*problems, f"log entry {index} is illegal: {violation.reason}"]
        state = rules.apply(state, logged.seat, logged.action)
    if encode_record(replace(record, state=state)) != snapshot:
        problems.append("the log does not replay to the stored snapshot")
    if finished and rules.outcome(record.state) is None:
        problems.append("seen finished but has no outcome")
    return problems


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
    """The id of every game stored in this Redis."""
    return [key.decode().split("{")[1].split("}")[0] for key in client.scan_iter(GAME_KEYS)]


def check_all(client: redis.Redis, finished: set[str]) -> dict[str, list[str]]:
    """Problems by game id, over every stored game; only inconsistent games appear."""
    report = {}
    for game_id in stored_game_ids(client):
        problems = check_game(client, game_id, game_id in finished)
        if problems:
            report[game_id] = problems
    return report
