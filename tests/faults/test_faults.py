"""Short runs of ``make faults``' scenarios, each with the checks of the long one.

Each test starts its own redis-server and engine server processes on loopback, puts a few
seconds of load on them through real gRPC channels, breaks one process on purpose (``kill -9``
by PID, or SIGSTOP and SIGCONT; a Sentinel or Cluster master ``kill -9``ed and its replica
promoted) and then holds the stored games to everything the clients
were told (:func:`engine_service.devtools.fault_load.verify`). Each phase lasts until the
load shows its state (an acknowledged action, a refusal in the fault, a success after it), not
for a guessed time. Speeds are reported by ``make faults``, never asserted here.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from engine_service.devtools.faults import (
    Outcome,
    Timing,
    cluster_failover,
    engine_kill,
    redis_kill,
    redis_pause,
    sentinel_failover,
)

WORKERS = 6
SHORT = Timing(before=1.0, outage=1.0, after=1.0)


def codes(counts: dict[str, int]) -> set[str]:
    return {key.split(":")[1] for key in counts}


def passed(outcome: Outcome) -> None:
    """No broken promise; the engine's log explains one when there is."""
    problems = outcome.problems()
    assert not problems, (problems, [log[-3000:] for log in outcome.engine_logs])
    assert outcome.verdict.acknowledged > 0, "the load acknowledged nothing before the fault"


@pytest.mark.parametrize("persistence", ["everysec", "always"])
def test_redis_killed_and_restarted_from_its_append_only_file_loses_nothing_acknowledged(
    tmp_path: Path, persistence: str
) -> None:
    outcome = asyncio.run(redis_kill(tmp_path, persistence, SHORT, WORKERS))
    passed(outcome)
    assert "UNAVAILABLE" in codes(outcome.during)
    assert outcome.verdict.acks_lost == outcome.verdict.games_lost == 0


def test_redis_without_persistence_loses_its_games_and_clients_see_not_found(
    tmp_path: Path,
) -> None:
    """The contrast: what lived in memory only is gone, and the service says so plainly."""
    outcome = asyncio.run(redis_kill(tmp_path, "none", SHORT, WORKERS))
    passed(outcome)
    assert outcome.verdict.games_lost > 0 and outcome.verdict.acks_lost > 0
    assert "NOT_FOUND" in codes(outcome.during + outcome.after)


def test_one_of_two_engine_processes_killed_the_other_serves_on(tmp_path: Path) -> None:
    outcome = asyncio.run(engine_kill(tmp_path, SHORT, WORKERS))
    passed(outcome)
    assert outcome.after["SubmitAction:OK"] > 0
    assert outcome.verdict.acks_lost == outcome.verdict.games_lost == 0


def test_redis_frozen_past_the_deadline_times_calls_out_then_recovers(tmp_path: Path) -> None:
    """Calls end in the freeze with DEADLINE_EXCEEDED or UNAVAILABLE, and OK after it.

    The freeze lasts until a call ended refused, however busy the machine is.
    """
    frozen = Timing(before=SHORT.before, outage=SHORT.outage, after=SHORT.after, deadline=1.0)
    outcome = asyncio.run(redis_pause(tmp_path, frozen, WORKERS))
    passed(outcome)
    assert codes(outcome.during) & {"DEADLINE_EXCEEDED", "UNAVAILABLE"}
    assert outcome.after["SubmitAction:OK"] > 0


@pytest.mark.parametrize("wait_replicas", [0, 1])
def test_a_sentinel_master_killed_under_load_fails_over_by_itself(
    tmp_path: Path, wait_replicas: int
) -> None:
    """With WAIT 1 nothing acknowledged is lost; without, a loss is reported, not promised."""
    outcome = asyncio.run(sentinel_failover(tmp_path, wait_replicas, SHORT, WORKERS))
    passed(outcome)
    assert codes(outcome.during) & {"UNAVAILABLE", "DEADLINE_EXCEEDED"}
    assert outcome.after["SubmitAction:OK"] > 0
    if wait_replicas:
        assert outcome.verdict.acks_lost == outcome.verdict.games_lost == 0


def test_a_cluster_master_killed_under_load_is_replaced_by_its_replica(tmp_path: Path) -> None:
    """The master killed serves games in play; its replica takes over, nothing is lost.

    Whether a client sees the failover depends on timing: redis-py's cluster client tries a
    command again on a refreshed slot map, so a call in flight may wait through the promotion
    and succeed. What is promised is what ``passed`` checks, and calls succeeding after it.
    """
    outcome = asyncio.run(cluster_failover(tmp_path, SHORT, WORKERS))
    passed(outcome)
    assert outcome.after["SubmitAction:OK"] > 0
