"""``make faults``: break Redis and the engine under load and hold the stored games to account.

Each scenario runs real processes on loopback (:mod:`engine_service.devtools.fault_processes`),
a load of concurrent clients through a real gRPC channel
(:mod:`engine_service.devtools.fault_load`), then the fault:

* ``redis-kill``: ``kill -9`` of Redis mid-load, down for a while, started again on the same
  port and data folder, for each durability setting (no persistence, append-only file with
  ``appendfsync everysec``, with ``appendfsync always``);
* ``engine-kill``: ``kill -9`` of one of two engine processes behind one round-robin channel;
* ``redis-pause``: Redis frozen with SIGSTOP, then SIGCONT;
* ``sentinel-failover``: ``kill -9`` of the master three sentinels watch, with
  ``--redis-wait-replicas`` 0 and 1; the sentinels promote one of its two replicas;
* ``cluster-failover``: ``kill -9`` of a master of a three-master Redis Cluster; the cluster
  promotes its replica by itself.

Afterwards every acknowledged game and action must be stored (where the setting promises it),
every stored game must replay to its snapshot, no client may have seen INTERNAL, and calls
must succeed again without anyone restarting the engine. The figures (acknowledged actions
lost, SubmitAction calls per second before the fault, codes during the fault, how long it
lasted, seconds to the first success after it) are printed as a Markdown report.
``tests/faults`` runs the same scenarios shortly, with the same checks.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from engine_service.devtools.fault_failover import Failover, cluster_master, sentinel_master
from engine_service.devtools.fault_load import (
    CALL_SECONDS,
    NEVER,
    RETRIED,
    Ledger,
    Load,
    Verdict,
    verify,
)
from engine_service.devtools.fault_processes import (
    EngineProcess,
    engine_process,
    redis_process,
)
from engine_service.devtools.local import redis_cluster, redis_sentinel
from engine_service.store.keys import game_key

WARM_UP = 0.5
"""Seconds of load left out of the calls-per-second figure (connections, first games)."""
DURABLE = ("everysec", "always")
ALLOWED = frozenset({"OK", *RETRIED})
"""The codes a scenario's clients may see: success, and what they retry."""
CLUSTER_NODE_TIMEOUT_MS = 1000
"""How long cluster nodes wait before they call a silent master failing (Redis's default: 15 s)."""
CHANNELS = 4
POLL_SECONDS = 0.05
"""How often a phase looks at the ledger for the state it waits for."""
"""Client connections the workers share."""


Fault = Callable[[Ledger], None]
"""Breaks something; given what the load has done so far (to aim at the games in play)."""
PHASE_CAP_SECONDS = 120.0
"""The longest a phase waits for what it must see before the scenario goes on regardless."""


@dataclass(frozen=True)
class Timing:
    """How long each part of a scenario lasts at least.

    Seconds of load before the fault, of the fault itself, and after it ends; each call's
    deadline (a frozen Redis shows as DEADLINE_EXCEEDED once the fault outlasts it). Each
    phase then goes on until the load shows what the phase is for (:func:`_under_load`), so
    a busy machine makes a scenario longer, never different.
    """

    before: float = 8.0
    outage: float = 5.0
    after: float = 5.0
    deadline: float = CALL_SECONDS


@dataclass
class Outcome:
    """One scenario's figures and what it broke."""

    scenario: str
    setting: str
    submits_per_second: float
    during: Counter[str]
    after: Counter[str]
    recovery_seconds: float | None
    fault_seconds: float
    verdict: Verdict
    expected_loss: bool = False
    engine_logs: list[str] = field(default_factory=list)

    def problems(self) -> list[str]:
        """Each broken promise, in words; empty when the scenario passed."""
        found: list[str] = []
        codes = {key.split(":")[1] for key in self.during + self.after}
        allowed = set(ALLOWED)
        if self.expected_loss and self.verdict.games_lost:
            allowed.add("NOT_FOUND")  # a game lost where loss is reported: calls on it find none
        if forbidden := codes & NEVER:
            found.append(f"clients saw {sorted(forbidden)}")
        if unexpected := codes - allowed - NEVER:
            found.append(f"unexpected codes {sorted(unexpected)}")
        if self.recovery_seconds is None:
            found.append("no call succeeded after the fault")
        if self.verdict.not_replaying:
            found.append(f"{len(self.verdict.not_replaying)} stored games do not replay")
        if not self.expected_loss and (self.verdict.acks_lost or self.verdict.games_lost):
            found.append(
                f"{self.verdict.acks_lost} acknowledged actions and "
                f"{self.verdict.games_lost} games lost"
            )
        return found


def _outcome(
    scenario: str,
    setting: str,
    ledger: Ledger,
    marks: tuple[float, float, float, float],
    verdict: Verdict,
) -> Outcome:
    """Figures from the ledger.

    ``marks``: when the load started, the fault began, it ended, and the load stopped.
    """
    started, fault, restored, ended = marks
    return Outcome(
        scenario=scenario,
        setting=setting,
        submits_per_second=ledger.rate("SubmitAction", started + WARM_UP, fault),
        during=ledger.codes(fault, restored),
        after=ledger.codes(restored, ended),
        recovery_seconds=ledger.first_ok_after(restored),
        fault_seconds=restored - fault,
        verdict=verdict,
    )


async def _under_load(
    targets: list[str],
    workers: int,
    timing: Timing,
    fault: Fault,
    restore: Callable[[], None],
) -> tuple[Ledger, tuple[float, float, float, float]]:
    """Run load around a fault; the ledger and the four marks of :func:`_outcome`.

    Load until an action was acknowledged, then ``fault(ledger)``; while the fault lasts (when it
    lasts at all), load until some call ended refused; then ``restore()`` (in a thread: it
    may wait for a restarted Redis), and load until an action was acknowledged again. Each
    phase lasts at least its ``timing`` seconds.
    """
    load = Load(targets, workers, timing.deadline)
    ledger = load.ledger
    started = time.monotonic()
    load.start()
    try:
        await _phase(timing.before, lambda: ledger.acknowledged > 0)
        fault_at = time.monotonic()
        fault(ledger)
        if timing.outage:
            await _phase(timing.outage, lambda: _refused_since(ledger, fault_at))
        await asyncio.to_thread(restore)
        restored = time.monotonic()
        await _phase(timing.after, lambda: ledger.codes(restored)["SubmitAction:OK"] > 0)
    finally:
        ended = time.monotonic()
        await load.finish()
    return load.ledger, (started, fault_at, restored, ended)


def playing(ledger: Ledger, workers: int) -> list[str]:
    """The keys of the games the load plays now: the newest one per client, and as many more."""
    return [game_key(game_id) for game_id in list(ledger.acks)[-2 * workers :]]


async def _phase(seconds: float, seen: Callable[[], bool]) -> None:
    """Wait ``seconds``, then until ``seen()`` holds (at most ``PHASE_CAP_SECONDS`` more).

    A phase that never sees its state ends at the cap; the scenario's checks then say what
    was missing (no acknowledged action, no refusal, no success after the fault).
    """
    await asyncio.sleep(seconds)
    give_up = time.monotonic() + PHASE_CAP_SECONDS
    while not seen() and time.monotonic() < give_up:
        await asyncio.sleep(POLL_SECONDS)


def _refused_since(ledger: Ledger, moment: float) -> bool:
    """Whether a call that ended after ``moment`` was refused (any code but OK)."""
    return any(not key.endswith(":OK") for key in ledger.codes(moment))


async def _scenario(
    names: tuple[str, str],
    redis_url: str,
    engines: list[EngineProcess],
    targets: list[str],
    timing: Timing,
    workers: int,
    fault: Fault,
    restore: Callable[[], None],
) -> Outcome:
    """Run the load around ``fault``, then hold the stored games to the ledger."""
    ledger, marks = await _under_load(targets, workers, timing, fault, restore)
    outcome = _outcome(*names, ledger, marks, await verify(redis_url, ledger))
    outcome.engine_logs = [engine.log_text() for engine in engines]
    return outcome


async def redis_kill(folder: Path, persistence: str, timing: Timing, workers: int) -> Outcome:
    """``kill -9`` Redis under load, then start it again from its data folder on its port."""
    with (
        redis_process(folder / f"redis-{persistence}", persistence) as server,
        engine_process(server.url, folder, volatile=persistence not in DURABLE) as engine,
    ):
        outcome = await _scenario(
            ("redis-kill", persistence),
            server.url,
            [engine],
            [engine.address] * CHANNELS,
            timing,
            workers,
            lambda _: server.kill(),
            server.start,
        )
    outcome.expected_loss = persistence not in DURABLE  # the games were in memory only
    return outcome


async def redis_pause(folder: Path, timing: Timing, workers: int) -> Outcome:
    """Redis frozen (SIGSTOP) for ``timing.outage`` seconds under load, then SIGCONT."""
    with (
        redis_process(folder / "redis-pause", "everysec") as server,
        engine_process(server.url, folder) as engine,
    ):
        return await _scenario(
            ("redis-pause", "everysec"),
            server.url,
            [engine],
            [engine.address] * CHANNELS,
            timing,
            workers,
            lambda _: server.pause(),
            server.resume,
        )


async def engine_kill(folder: Path, timing: Timing, workers: int) -> Outcome:
    """``kill -9`` of one of two engine processes; clients balance over both (round-robin).

    Nothing is restored: the survivor serves on, so the fault's end is right after the kill.
    """
    with (
        redis_process(folder / "redis-engine-kill", "everysec") as server,
        engine_process(server.url, folder) as doomed,
        engine_process(server.url, folder) as survivor,
    ):
        return await _scenario(
            ("engine-kill", "2 processes"),
            server.url,
            [survivor],
            [f"ipv4:{doomed.address},{survivor.address}"] * CHANNELS,
            dataclasses.replace(timing, outage=0.0, after=timing.after + timing.outage),
            workers,
            lambda _: doomed.kill(),
            lambda: None,
        )


async def _failover(
    names: tuple[str, str],
    redis_url: str,
    master: Callable[[str], Failover],
    folder: Path,
    timing: Timing,
    workers: int,
    wait_replicas: int = 0,
) -> Outcome:
    """``kill -9`` of the master ``master`` finds; the fault lasts until its replica took over.

    Nothing is restored by hand: the fault's end is when the promotion shows (the sentinels
    name the replica, or it is a master of a whole cluster again), and "first OK" counts from
    there. Without ``WAIT`` (``wait_replicas`` 0) a replica may lack the last writes its
    master acknowledged, so loss is reported but not a broken promise.
    """
    flags = [f"--redis-wait-replicas={wait_replicas}"]
    with engine_process(redis_url, folder, flags=flags) as engine:
        failover = master(redis_url)
        outcome = await _scenario(
            names,
            redis_url,
            [engine],
            [engine.address] * CHANNELS,
            dataclasses.replace(timing, outage=0.0),
            workers,
            lambda ledger: failover.kill(playing(ledger, workers)),
            failover.wait_promoted,
        )
    outcome.expected_loss = wait_replicas == 0
    return outcome


async def sentinel_failover(
    folder: Path, wait_replicas: int, timing: Timing, workers: int
) -> Outcome:
    """The Sentinel master killed; two replicas, so ``WAIT 1`` is met again after the promotion."""
    with redis_sentinel(replicas=2) as url:
        return await _failover(
            ("sentinel-failover", f"--redis-wait-replicas {wait_replicas}"),
            url,
            sentinel_master,
            folder,
            timing,
            workers,
            wait_replicas,
        )


async def cluster_failover(folder: Path, timing: Timing, workers: int) -> Outcome:
    """A cluster master killed; its only replica is promoted, so nothing could ``WAIT`` on it."""
    with redis_cluster(node_timeout_ms=CLUSTER_NODE_TIMEOUT_MS) as url:
        return await _failover(
            ("cluster-failover", "3 masters, 1 replica each"),
            url,
            cluster_master,
            folder,
            timing,
            workers,
        )


async def throughput(folder: Path, persistence: str, seconds: float, workers: int) -> float:
    """SubmitAction calls per second on a fresh Redis of ``persistence``, no fault."""
    with (
        redis_process(folder / f"rate-{persistence}", persistence) as server,
        engine_process(server.url, folder, volatile=persistence not in DURABLE) as engine,
    ):
        load = Load([engine.address] * CHANNELS, workers)
        started = time.monotonic()
        load.start()
        await asyncio.sleep(seconds)
        ended = time.monotonic()
        await load.finish()
    return load.ledger.rate("SubmitAction", started + WARM_UP, ended)


async def costs(folder: Path, rounds: int, seconds: float, workers: int) -> dict[str, list[float]]:
    """Calls per second of each setting, round after round.

    The settings take turns, so a shared machine's other work weighs on all of them alike.
    """
    rates: dict[str, list[float]] = {name: [] for name in ("none", *DURABLE)}
    for _ in range(rounds):
        for name, values in rates.items():
            values.append(await throughput(folder, name, seconds, workers))
    return rates


def cost_table(rates: dict[str, list[float]], seconds: float) -> str:
    """The median and the spread of each setting's rounds."""
    lines = [
        f"SubmitAction calls/s without faults, {len(next(iter(rates.values())))} rounds of "
        f"{seconds:g} s per setting, taking turns:",
        "",
        "| Redis setting | median calls/s | rounds | vs none |",
        "|---|---|---|---|",
    ]
    base = statistics.median(rates["none"])
    for name, values in rates.items():
        median = statistics.median(values)
        shown = " ".join(f"{v:.0f}" for v in values)
        lines.append(f"| {name} | {median:.0f} | {shown} | {median / base:.2f} |")
    return "\n".join(lines) + "\n"


def _codes(counts: Counter[str]) -> str:
    return (
        ", ".join(f"{key} {n}" for key, n in sorted(counts.items()) if not key.endswith(":OK"))
        or "-"
    )


def report(outcomes: list[Outcome], timing: Timing, workers: int) -> str:
    """The Markdown report of ``make faults``."""
    lines = [
        f"Fault scenarios: {workers} concurrent clients playing all-human Hearts games over "
        f"gRPC, {timing.before:g} s of load, {timing.outage:g} s of fault, {timing.after:g} s "
        "after it.",
        "",
        "| scenario | setting | acknowledged actions | lost | games lost | SubmitAction/s "
        "before | failed calls during the fault | after | fault lasted (s) | first OK after (s) "
        "| replay | verdict |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for o in outcomes:
        recovery = "-" if o.recovery_seconds is None else f"{o.recovery_seconds:.2f}"
        replay = "all" if not o.verdict.not_replaying else f"{len(o.verdict.not_replaying)} not"
        problems = o.problems()
        verdict = "pass" if not problems else "FAIL: " + "; ".join(problems)
        lines.append(
            f"| {o.scenario} | {o.setting} | {o.verdict.acknowledged} | {o.verdict.acks_lost} "
            f"| {o.verdict.games_lost} of {o.verdict.games} | {o.submits_per_second:.0f} "
            f"| {_codes(o.during)} | {_codes(o.after)} | {o.fault_seconds:.2f} | {recovery} "
            f"| {replay} | {verdict} |"
        )
    return "\n".join(lines) + "\n"


@contextlib.contextmanager
def scratch() -> Iterator[Path]:
    """A data folder on disk (not tmpfs, so fsync costs what it costs) removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="cardengine-faults-") as name:
        yield Path(name)


async def run_all(
    timing: Timing, workers: int, rounds: int
) -> tuple[list[Outcome], dict[str, list[float]]]:
    """Every scenario, one after another, each with its own processes; then the costs."""
    outcomes = []
    with scratch() as folder:
        for persistence in ("none", *DURABLE):
            outcomes.append(await redis_kill(folder, persistence, timing, workers))
        outcomes.append(await engine_kill(folder, timing, workers))
        outcomes.append(await redis_pause(folder, timing, workers))
        for wait_replicas in (0, 1):
            outcomes.append(await sentinel_failover(folder, wait_replicas, timing, workers))
        outcomes.append(await cluster_failover(folder, timing, workers))
        rates = await costs(folder, rounds, timing.before, workers) if rounds else {}
    return outcomes, rates


def main(argv: list[str] | None = None) -> None:
    """Run every scenario, print the report; exit 1 when one broke a promise."""
    parser = argparse.ArgumentParser(prog="faults", description=__doc__)
    parser.add_argument("--workers", type=int, default=16, help="concurrent clients (16)")
    parser.add_argument(
        "--before", type=float, default=Timing.before, help="least seconds of load before the fault"
    )
    parser.add_argument(
        "--outage", type=float, default=Timing.outage, help="least seconds the fault lasts"
    )
    parser.add_argument(
        "--after", type=float, default=Timing.after, help="least seconds of load after it"
    )
    parser.add_argument(
        "--rounds", type=int, default=3, help="rounds of the cost figures (0: none)"
    )
    parser.add_argument("--output", type=Path, help="also write the report here")
    args = parser.parse_args(argv)
    timing = Timing(args.before, args.outage, args.after)
    outcomes, rates = asyncio.run(run_all(timing, args.workers, args.rounds))
    text = report(outcomes, timing, args.workers)
    if rates:
        text += "\n" + cost_table(rates, timing.before)
    print(text)
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(text)
    if any(o.problems() for o in outcomes):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
