"""``python -m bench.spread``: how the service's Redis load spreads over a cluster's masters.

Each part starts its own Redis Cluster of loopback ``redis-server`` processes with no replicas
(a replica's work would only blur what each master does), an engine over it
(:func:`bench.servers.engine_servers`), and drives whole games through the public gRPC API
(:func:`bench.load.generate`):

1. **Spread at 3, 6, 12 and 24 masters.** After the load, per master: keys (``DBSIZE``),
   commands served (``INFO commandstats``, ``EVALSHA`` among them, counted from a
   ``CONFIG RESETSTAT`` just before the load) and games held. Goal: the busiest master holds
   at most 1.15 x the mean keys and serves at most 1.15 x the mean commands.
2. **A master added, then one drained, under load.** A fourth master joins and takes its share
   (``--cluster rebalance --cluster-use-empty-masters``); then one of the first three gives
   all its slots away and is removed and stopped. Reported: the status codes the load saw in
   each phase and for how long failures lasted; every stored game consistent and no
   acknowledged write lost (:func:`bench.consistency.check_all`); each master's share of the
   commands in a window before the add and one after the rebalance; how long each step took.
3. **Hot keys.** ``MONITOR`` on every master for a few seconds under load
   (:mod:`bench.hot_keys`): the ten keys written most and their share of all writes. Goal: no
   key takes more than 2 % of the writes.

Commands the measuring side sends itself (:data:`NOT_SERVICE`: ``INFO``, ``CONFIG``,
``CLUSTER``, the rebalance's ``MIGRATE``...) are left out of every command count.

Prints the tables and writes ``spread.md`` and ``spread.json`` to ``--out``. A goal not met is
a finding, printed; the exit status is non-zero only when the service misbehaved: a status
other than OK, ABORTED and UNAVAILABLE, an inconsistent game or a lost acknowledged write.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import redis

from bench.consistency import check_all, stored_game_ids
from bench.hot_keys import merged, watch_all
from bench.load import EXPECTED_CODES, Tally, generate
from bench.report import _table as table
from bench.servers import engine_servers
from engine_service.devtools.cluster_ops import ClusterAdmin
from engine_service.devtools.local import redis_cluster

GOAL_BUSIEST = 1.15
GOAL_KEY_SHARE = 0.02
GAP_SECONDS = 0.05
TOP_COMMANDS = 4
"""Commands listed per master: what its work is made of."""
TOLERATED_CODES = frozenset({"UNAVAILABLE"})
"""Counted apart: a caller retries it; any other code than these three is a failure."""
NOT_SERVICE = frozenset(
    {"info", "config", "cluster", "dbsize", "scan", "command", "hello", "monitor", "client"}
    | {"migrate", "restore-asking", "asking", "readonly", "ping"}
)
"""Command families sent by this tool, ``redis-cli --cluster`` and clients keeping their slot
maps: not the service's work, so not counted as commands served."""


@dataclass(frozen=True)
class Plan:
    """How much each part does."""

    sizes: tuple[int, ...]
    clients: int
    games: int
    seconds: float
    change_clients: int
    bound_seconds: float
    """The longest a background load (parts 2 and 3) may run; it is stopped once its part has
    measured what it needs, however long the cluster's changes took."""
    warmup_seconds: float
    window_seconds: float
    monitor_seconds: float
    monitor_lines: int
    hot_clients: int
    """Games played at once while part 3 watches: each game's own keys take about one such
    share of the writes, so this must be well above 50 for a 2 % bound to be about the
    shared keys rather than the number of games."""


FULL = Plan(
    sizes=(3, 6, 12, 24),
    clients=640,
    games=1536,
    seconds=60.0,
    change_clients=96,
    bound_seconds=900.0,
    warmup_seconds=10.0,
    window_seconds=10.0,
    monitor_seconds=6.0,
    monitor_lines=400_000,
    hot_clients=192,
)
"""Part 1 plays 640 games at once, 1,536 in all (more than the 1,024 slot groups, so that at
24 masters each holds about 64 games and a few games' state, hence keys, matters little)."""
QUICK = Plan(
    sizes=(3, 6),
    clients=96,
    games=96,
    seconds=15.0,
    change_clients=32,
    bound_seconds=300.0,
    warmup_seconds=3.0,
    window_seconds=3.0,
    monitor_seconds=3.0,
    monitor_lines=100_000,
    hot_clients=96,
)


# --- what each master did -------------------------------------------------------------------


@dataclass(frozen=True)
class MasterLoad:
    """One master's figures after a load (commands include those scripts ran)."""

    address: str
    keys: int
    games: int
    commands: int
    evalsha: int
    top_commands: dict[str, int]


def command_calls(client: redis.Redis) -> Counter[str]:
    """Calls per command since the last ``CONFIG RESETSTAT``, the service's only.

    ``INFO commandstats`` counts the commands a script runs as well as the ``EVALSHA``.
    """
    stats: dict[str, dict[str, Any]] = client.info("commandstats")
    calls = {name.removeprefix("cmdstat_"): int(s["calls"]) for name, s in stats.items()}
    return Counter({n: c for n, c in calls.items() if n.split("|")[0] not in NOT_SERVICE})


def commands_served(client: redis.Redis) -> int:
    """All the service's calls on this server since the last ``CONFIG RESETSTAT``."""
    return command_calls(client).total()


@contextlib.contextmanager
def master_clients(admin: ClusterAdmin) -> Iterator[dict[str, redis.Redis]]:
    """A plain client of every master the cluster has now, by address; closed on exit."""
    with contextlib.ExitStack() as stack:
        yield {
            m.address: stack.enter_context(contextlib.closing(admin.client(m.address)))
            for m in admin.masters()
        }


def master_loads(clients: dict[str, redis.Redis]) -> list[MasterLoad]:
    """Every master's figures; commands first, so these reads do not count in them."""
    calls = {address: command_calls(client) for address, client in clients.items()}
    return [
        MasterLoad(
            address,
            keys=int(client.dbsize()),
            games=len(stored_game_ids(client)),
            commands=calls[address].total(),
            evalsha=calls[address]["evalsha"],
            top_commands=dict(calls[address].most_common(TOP_COMMANDS)),
        )
        for address, client in clients.items()
    ]


def busiest_over_mean(values: Sequence[float]) -> float:
    """The largest value over the mean (1.0 is perfectly even; 0 values give 0)."""
    mean = statistics.fmean(values) if values else 0.0
    return max(values) / mean if mean else 0.0


# --- the load, in the background --------------------------------------------------------------


class BackgroundLoad(threading.Thread):
    """:func:`bench.load.generate` on its own event loop in a thread, while this one measures.

    It runs until :meth:`stop` (or for ``seconds`` at most), so it lasts as long as the cluster
    changes it watches take, however long that is. As a context manager it starts on entry
    and is stopped on exit, should a step in between fail.
    """

    def __init__(self, address: str, clients: int, seconds: float) -> None:
        super().__init__(name="load", daemon=True)
        self._arguments = (address, clients, 1_000_000, seconds)
        self.tally = Tally()
        self.started = self.ended = time.perf_counter()
        self.error: BaseException | None = None
        self._task: asyncio.Task[Any] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._running = threading.Event()

    def __enter__(self) -> BackgroundLoad:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def run(self) -> None:
        self.started = time.perf_counter()
        try:
            asyncio.run(self._generate())
        except asyncio.CancelledError:
            pass  # stopped
        except BaseException as error:  # re-raised by stop()
            self.error = error
        finally:
            self.ended = time.perf_counter()
            self._running.set()

    async def _generate(self) -> None:
        self._loop, self._task = asyncio.get_running_loop(), asyncio.current_task()
        self._running.set()
        await generate(*self._arguments, tally=self.tally)

    def stop(self) -> Tally:
        """End the load now (calls in flight are dropped, uncounted); what it counted."""
        self._running.wait()
        if self._loop is not None and self._task is not None:
            with contextlib.suppress(RuntimeError):  # its loop has closed: it ended by itself
                self._loop.call_soon_threadsafe(self._task.cancel)
        self.join()
        if self.error is not None:
            raise RuntimeError("the load generator failed") from self.error
        return self.tally

    @property
    def elapsed(self) -> float:
        """How long the load ran."""
        return self.ended - self.started


def code_totals(tally: Tally) -> Counter[str]:
    """Status codes over every RPC of the load."""
    total: Counter[str] = Counter()
    for codes in tally.codes.values():
        total.update(codes)
    return total


def codes_text(codes: Counter[str]) -> str:
    """``OK 10, ABORTED 2; UNAVAILABLE 1; other: INTERNAL 1`` (parts that are empty left out)."""
    groups = [
        {c: n for c, n in codes.items() if c in EXPECTED_CODES},
        {c: n for c, n in codes.items() if c in TOLERATED_CODES},
        unexpected(codes),
    ]
    parts = [", ".join(f"{c} {n}" for c, n in sorted(g.items())) for g in groups]
    if parts[2]:
        parts[2] = f"other: {parts[2]}"
    return "; ".join(part for part in parts if part) or "none"


def unexpected(codes: Counter[str]) -> dict[str, int]:
    """Codes that are failures (neither expected nor tolerated)."""
    return {c: n for c, n in codes.items() if c not in EXPECTED_CODES | TOLERATED_CODES}


@contextlib.contextmanager
def served_cluster(masters: int, processes: int) -> Iterator[tuple[ClusterAdmin, str]]:
    """A cluster of ``masters`` masters without replicas and an engine over it.

    Yields the cluster's admin and the engine's address; stops the engine, then every node.
    """
    with (
        redis_cluster(masters, replicas=0) as url,
        ClusterAdmin(url) as admin,
        engine_servers(url, processes) as address,
    ):
        yield admin, address


# --- part 1: spread at several sizes -----------------------------------------------------------


def spread_at(masters: int, plan: Plan, processes: int) -> dict[str, Any]:
    """Part 1 at one size: a fresh cluster, the load, then every master's figures."""
    with served_cluster(masters, processes) as (admin, address), master_clients(admin) as clients:
        for client in clients.values():
            client.config_resetstat()
        tally, elapsed = asyncio.run(generate(address, plan.clients, plan.games, plan.seconds))
        loads = master_loads(clients)
    return {
        "masters": masters,
        "seconds": round(elapsed, 1),
        "games_created": len(tally.games),
        "games_finished": len(tally.finished),
        "codes": dict(code_totals(tally)),
        "busiest_keys": round(busiest_over_mean([m.keys for m in loads]), 3),
        "busiest_commands": round(busiest_over_mean([m.commands for m in loads]), 3),
        "masters_with_games": sum(1 for m in loads if m.games),
        "load_average": round(os.getloadavg()[0], 1),
        "per_master": [asdict(m) for m in sorted(loads, key=lambda m: -m.commands)],
    }


def _spread(values: Sequence[int]) -> str:
    return f"{min(values)} / {statistics.median(values):g} / {max(values)}"


def _top(master: dict[str, Any]) -> str:
    return ", ".join(f"{name} {n}" for name, n in master["top_commands"].items())


def _met(value: float, goal: float) -> str:
    return f"**{value:.2f}**" if value > goal else f"{value:.2f}"


def spread_section(sizes: list[dict[str, Any]]) -> list[str]:
    """Part 1's tables: one row per size, then each size's masters."""
    rows = []
    for size in sizes:
        per = size["per_master"]
        commands = sum(m["commands"] for m in per)
        evalsha = sum(m["evalsha"] for m in per)
        rows.append(
            [
                size["masters"],
                f"{size['games_created']} ({size['games_finished']} finished)",
                _spread([m["keys"] for m in per]),
                _met(size["busiest_keys"], GOAL_BUSIEST),
                _spread([m["commands"] for m in per]),
                _met(size["busiest_commands"], GOAL_BUSIEST),
                f"{evalsha / commands:.0%}" if commands else "n/a",
                f"{size['masters_with_games']} of {size['masters']}",
                codes_text(Counter(size["codes"])),
                size["load_average"],
            ]
        )
    header = ["masters", "games created", "keys per master (min / median / max)"]
    header += ["busiest ÷ mean keys", "commands per master (min / median / max)"]
    header += ["busiest ÷ mean commands", "EVALSHA share", "masters holding a game", "load's codes"]
    header += ["machine load"]
    lines = ["## 1. Spread over the masters", ""]
    lines += [
        f"Goal: the busiest master holds at most {GOAL_BUSIEST}x the mean keys and serves at "
        f"most {GOAL_BUSIEST}x the mean commands (figures above the goal in bold). Commands "
        "count those scripts ran. Machine load: the 1-minute load average as the load ended; "
        "above the cores' count the masters compete for CPU, and a busy master then serves "
        "less than is asked of it (its callers wait, or see UNAVAILABLE), which evens out the "
        "commands but not the keys.",
        "",
        *table(header, rows),
    ]
    for size in sizes:
        detail = [
            [m["address"], m["keys"], m["games"], m["commands"], m["evalsha"], _top(m)]
            for m in size["per_master"]
        ]
        lines += ["", f"{size['masters']} masters, {size['seconds']} s of load:", ""]
        header = ["master", "keys", "games", "commands", "EVALSHA", "most called"]
        lines += table(header, detail)
    return lines


# --- part 2: a master added, one drained ------------------------------------------------------


@dataclass
class Timeline:
    """When each step of a cluster change began and ended (``time.perf_counter()``)."""

    steps: list[tuple[str, float, float]] = field(default_factory=list)

    @contextlib.contextmanager
    def step(self, name: str) -> Iterator[None]:
        """Time the enclosed block as step ``name``."""
        started = time.perf_counter()
        yield
        self.steps.append((name, started, time.perf_counter()))

    def phases(self, start: float, end: float) -> list[tuple[str, float, float]]:
        """The whole load cut into the steps and the stretches around them, in order.

        A stretch between two steps shorter than :data:`GAP_SECONDS` is left out.
        """
        cut: list[tuple[str, float, float]] = []
        previous, label = start, "before {}"
        for name, began, ended in self.steps:
            cut += [(label.format(name), previous, began), (name, began, ended)]
            previous, label = ended, f"between {name} and {{}}"
        last = self.steps[-1][0] if self.steps else "nothing"
        cut.append((f"after {last}", previous, end))
        return [phase for phase in cut if phase[2] - phase[1] >= GAP_SECONDS]


def command_window(clients: dict[str, redis.Redis], seconds: float) -> dict[str, int]:
    """Commands each master served over the next ``seconds`` (a difference of two readings)."""
    first = {address: commands_served(c) for address, c in clients.items()}
    time.sleep(seconds)
    return {address: commands_served(c) - first[address] for address, c in clients.items()}


def window_figures(window: dict[str, int], new: str | None = None) -> dict[str, Any]:
    """Busiest ÷ mean of one window, and the new master's share ÷ mean when there is one."""
    mean = statistics.fmean(window.values()) if window else 0.0
    figures: dict[str, Any] = {
        "commands": window,
        "busiest_over_mean": round(busiest_over_mean(list(window.values())), 3),
    }
    if new is not None:
        figures["new_over_mean"] = round(window.get(new, 0) / mean, 3) if mean else 0.0
    return figures


def failures_by_phase(tally: Tally, phases: list[tuple[str, float, float]]) -> list[dict[str, Any]]:
    """Per phase: its length, the failed calls' codes, and from when to when they came."""
    found = []
    for name, began, ended in phases:
        inside = [(t, code) for t, _, code in tally.failures if began <= t < ended]
        times = [t - began for t, _ in inside]
        found.append(
            {
                "phase": name,
                "seconds": round(ended - began, 2),
                "codes": dict(Counter(code for _, code in inside)),
                "first_s": round(min(times), 2) if times else None,
                "last_s": round(max(times), 2) if times else None,
            }
        )
    return found


def change_under_load(plan: Plan, processes: int) -> dict[str, Any]:
    """Part 2: add a fourth master, rebalance, drain one of the first three, all under load."""
    timeline = Timeline()
    with (
        served_cluster(3, processes) as (admin, address),
        BackgroundLoad(address, plan.change_clients, plan.bound_seconds) as load,
    ):
        time.sleep(plan.warmup_seconds)
        with master_clients(admin) as clients:
            before = window_figures(command_window(clients, plan.window_seconds))
        drained = admin.masters()[0].address
        with timeline.step("adding a master"):
            new = admin.add_master().address
        with timeline.step("rebalancing onto it"):
            admin.rebalance(empty=True)
        with master_clients(admin) as clients:
            after = window_figures(command_window(clients, plan.window_seconds), new)
        with timeline.step(f"draining {drained}"):
            admin.drain(drained)
        time.sleep(plan.window_seconds)  # callers after the drain, with a node gone
        tally = load.stop()
        with master_clients(admin) as clients:
            problems = check_all(list(clients.values()), tally.finished, tally.acknowledged)
        slots = {m.address: m.slots for m in admin.masters()}
    return {
        "seconds": round(load.elapsed, 1),
        "games_created": len(tally.games),
        "games_finished": len(tally.finished),
        "load_outlasted_changes": load.ended >= timeline.steps[-1][2],
        "steps_s": {name: round(ended - began, 2) for name, began, ended in timeline.steps},
        "codes": {name: dict(codes) for name, codes in sorted(tally.codes.items())},
        "phases": failures_by_phase(tally, timeline.phases(load.started, load.ended)),
        "window_before": before,
        "window_after": after,
        "new_master": new,
        "drained_master": drained,
        "slots_after": slots,
        "inconsistent_games": problems,
    }


def change_section(change: dict[str, Any]) -> list[str]:
    """Part 2's tables."""
    lines = ["## 2. A master added, then one drained, under load", ""]
    lines += [
        f"{change['seconds']} s of load, {change['games_created']} games created, "
        f"{change['games_finished']} finished. Steps: "
        + ", ".join(f"{name} {s} s" for name, s in change["steps_s"].items())
        + "."
        + ("" if change["load_outlasted_changes"] else " **The load ended before the drain.**"),
        "",
    ]
    rows = [[name, codes_text(Counter(codes))] for name, codes in change["codes"].items()]
    lines += [*table(["RPC", "status codes"], rows), ""]
    rows = [
        [
            p["phase"],
            p["seconds"],
            codes_text(Counter(p["codes"])) if p["codes"] else "none",
            "" if p["first_s"] is None else f"{p['first_s']} to {p['last_s']}",
        ]
        for p in change["phases"]
    ]
    lines += [*table(["phase", "s", "failed calls", "from … to (s into the phase)"], rows), ""]
    before, after = change["window_before"], change["window_after"]
    lines += [
        f"Commands per master, before the add (3 masters): {_window_text(before)}; busiest ÷ "
        f"mean {before['busiest_over_mean']:.2f}.",
        f"After the rebalance (4 masters): {_window_text(after, change['new_master'])}; busiest "
        f"÷ mean {after['busiest_over_mean']:.2f}, the new master's share ÷ mean "
        f"{after['new_over_mean']:.2f}.",
        f"Slots after the drain: {_window_text({'commands': change['slots_after']})}.",
        "",
    ]
    bad = change["inconsistent_games"]
    lines.append(
        f"Consistency after the changes: {len(bad)} game(s) inconsistent or with a lost "
        "acknowledged write."
        + "".join(f"\n- {game_id}: {'; '.join(p)}" for game_id, p in sorted(bad.items())[:20])
    )
    return lines


def _window_text(window: dict[str, Any], new: str | None = None) -> str:
    return ", ".join(
        f"{address}{' (new)' if address == new else ''} {n}"
        for address, n in sorted(window["commands"].items())
    )


# --- part 3: hot keys ---------------------------------------------------------------------------


def hot_keys(plan: Plan, processes: int) -> dict[str, Any]:
    """Part 3: writes per key on every master of three, watched for a few seconds under load."""
    with (
        served_cluster(3, processes) as (admin, address),
        BackgroundLoad(address, plan.hot_clients, plan.bound_seconds) as load,
        contextlib.ExitStack() as stack,
    ):
        time.sleep(plan.warmup_seconds)
        watchers = [
            stack.enter_context(contextlib.closing(admin.client(m.address, socket_timeout=0.5)))
            for m in admin.masters()
        ]
        counters = watch_all(watchers, plan.monitor_seconds, plan.monitor_lines)
        tally = load.stop()
    declared = merged(counter.per_key for counter in counters)
    run = merged(counter.run_per_key for counter in counters)
    declared_total, run_total = sum(declared.values()), sum(run.values())
    top_run = run.most_common(1)
    return {
        "seconds": plan.monitor_seconds,
        "games_at_once": plan.hot_clients,
        "lines": sum(counter.lines for counter in counters),
        "writes": declared_total,
        "keys_written": len(declared),
        "top": [
            {
                "key": key,
                "writes": n,
                "share": round(n / declared_total, 4),
                "run_share": round(run[key] / run_total, 4) if run_total else 0.0,
            }
            for key, n in declared.most_common(10)
        ],
        "largest_share": _share(declared.most_common(1), declared_total),
        "run_writes": run_total,
        "run_largest": top_run[0][0] if top_run else None,
        "run_largest_share": _share(top_run, run_total),
        "codes": dict(code_totals(tally)),
    }


def _share(top: list[tuple[str, int]], total: int) -> float:
    return round(top[0][1] / total, 4) if top and total else 0.0


def hot_section(hot: dict[str, Any]) -> list[str]:
    """Part 3's table."""
    share = hot["largest_share"]
    lines = ["## 3. Hot keys", ""]
    lines += [
        f"MONITOR on each of 3 masters for {hot['seconds']} s under load ({hot['games_at_once']} "
        f"games played at once): {hot['lines']} lines, "
        f"{hot['writes']} writes over {hot['keys_written']} keys (a script's declared keys "
        f"count once each). Largest share of all writes: {share:.2%} (goal: at most "
        f"{GOAL_KEY_SHARE:.0%}: {'met' if share <= GOAL_KEY_SHARE else '**not met**'}). "
        f"Counting instead the {hot['run_writes']} write commands that ran (scripts' own "
        f"included): largest share {hot['run_largest_share']:.2%}, `{hot['run_largest']}`. "
        f"Load's codes: {codes_text(Counter(hot['codes']))}.",
        "",
    ]
    rows = [
        [f"`{t['key']}`", t["writes"], f"{t['share']:.2%}", f"{t['run_share']:.2%}"]
        for t in hot["top"]
    ]
    header = ["key", "writes", "share of all writes", "share of write commands run"]
    return lines + table(header, rows)


# --- the run ------------------------------------------------------------------------------------


def run(plan: Plan, processes: int, out: Path) -> dict[str, Any]:
    """Every part in turn; writes ``spread.json`` and ``spread.md`` to ``out``."""
    figures: dict[str, Any] = {"plan": asdict(plan), "processes": processes}
    timed: dict[str, float] = {}
    parts: list[tuple[str, Callable[[], Any]]] = [
        ("spread", lambda: [spread_at(n, plan, processes) for n in plan.sizes]),
        ("change", lambda: change_under_load(plan, processes)),
        ("hot_keys", lambda: hot_keys(plan, processes)),
    ]
    for name, part in parts:
        started = time.perf_counter()
        figures[name] = part()
        timed[name] = round(time.perf_counter() - started, 1)
    figures["part_seconds"] = timed
    out.mkdir(parents=True, exist_ok=True)
    (out / "spread.json").write_text(json.dumps(figures, indent=2) + "\n")
    (out / "spread.md").write_text(markdown(figures))
    return figures


def markdown(figures: dict[str, Any]) -> str:
    """The report: every part's tables, and how long each part took."""
    timed = ", ".join(f"{name} {s} s" for name, s in figures["part_seconds"].items())
    lines = [
        "# Load spread over a Redis Cluster's masters",
        "",
        f"Engine processes: {figures['processes']}. Time per part: {timed}.",
        "",
        *spread_section(figures["spread"]),
        "",
        *change_section(figures["change"]),
        "",
        *hot_section(figures["hot_keys"]),
    ]
    return "\n".join(lines) + "\n"


def failures(figures: dict[str, Any]) -> list[str]:
    """What the service got wrong in the run (not the goals: those are findings)."""
    found = []
    for size in figures["spread"]:
        if bad := unexpected(Counter(size["codes"])):
            found.append(f"{size['masters']} masters: codes {bad}")
    change = figures["change"]
    for name, codes in change["codes"].items():
        if bad := unexpected(Counter(codes)):
            found.append(f"during the cluster change, {name}: codes {bad}")
    if change["inconsistent_games"]:
        found.append(f"{len(change['inconsistent_games'])} inconsistent game(s) after the change")
    if bad := unexpected(Counter(figures["hot_keys"]["codes"])):
        found.append(f"hot-key load: codes {bad}")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="3 and 6 masters, short loads")
    parser.add_argument(
        "--processes", type=int, default=1, help="engine processes on one address (SO_REUSEPORT)"
    )
    parser.add_argument("--out", type=Path, default=Path("results"))
    args = parser.parse_args()
    figures = run(QUICK if args.quick else FULL, args.processes, args.out)
    print(markdown(figures))
    if found := failures(figures):
        sys.exit("the service misbehaved: " + "; ".join(found))


if __name__ == "__main__":
    main()
