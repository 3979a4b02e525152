"""Is a stored game consistent? Its log must replay, from its seed, to its stored snapshot.

Checked per game: the version is the log length plus one; every logged action was legal when
it was played; replaying the log from the seed gives exactly the stored snapshot bytes; and a
game a client saw finish has an outcome. Works for every registered game through the generic
``Rules`` calls and the codec.
"""

from __future__ import annotations

from dataclasses import replace

import redis

from engine_service.codec.record import decode_log_entry, decode_record, encode_record
from engine_service.core.errors import GameNotFound
from engine_service.games import REGISTRY
from engine_service.store.redis_store import RedisGameStore

GAME_KEYS = "ce:*:game"


def check_game(client: redis.Redis, game_id: str, finished: bool = False) -> list[str]:
    """What is wrong with one stored game; empty when it is consistent."""
    try:
        stored, entries = RedisGameStore(client, ttl_seconds=1).log(game_id)
    except GameNotFound:
        return ["not stored"]
    record = decode_record(stored.snapshot)
    rules = REGISTRY[record.game_type].make_rules(record.config)
    problems = []
    if stored.version != len(entries) + 1:
        problems.append(f"version {stored.version} but {len(entries)} log entries")
    state = rules.new_game(record.seed)
    for index, raw in enumerate(entries):
        seat, action = decode_log_entry(record.game_type, raw)
        violation = rules.check(state, seat, action)
        if violation is not None:
            return [*problems, f"log entry {index} is illegal: {violation.reason}"]
        state = rules.apply(state, seat, action)
    if encode_record(replace(record, state=state)) != stored.snapshot:
        problems.append("the log does not replay to the stored snapshot")
    if finished and rules.outcome(record.state) is None:
        problems.append("seen finished but has no outcome")
    return problems


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
