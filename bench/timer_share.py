"""What the timer loops cost Redis while idle, with 1, 2 and 4 engine processes.

Each engine process runs a timer loop that looks for due games 20 times a second. The loops
divide the 1,024 slot groups among themselves (:mod:`engine_service.app.timers`), so adding
processes should leave the total the same and shrink each one's part. Measured on an idle
Redis (no games: the looking is all there is) over a few seconds after ``CONFIG RESETSTAT``:
commands per second in all and per process (``INFO commandstats``; the sorted-set reads the
look script makes count as commands too) and Redis's CPU per second.

Run as ``python -m bench.timer_share [--quick] [--baseline-tree PATH]``; part of ``make
capacity``. With a baseline tree (a worktree of an older commit) it measures that engine the
same way first, for the figures before and after.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import time
from pathlib import Path
from typing import Any

import redis

from bench.servers import engine_servers
from engine_service.devtools.local import redis_server

PROCESS_COUNTS = (1, 2, 4)
SETTLE_SECONDS = 2.5
"""Long enough for every loop to have renewed its place (each second) and seen the others."""


def _stats(client: redis.Redis) -> tuple[dict[str, int], float]:
    """Calls per command so far, and Redis's CPU seconds so far."""
    found: Any = client.info("commandstats")
    calls = {name.removeprefix("cmdstat_"): int(fields["calls"]) for name, fields in found.items()}
    cpu: Any = client.info("cpu")
    return calls, float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"])


def measure(processes: int, seconds: float, tree: Path | None = None) -> dict[str, Any]:
    """Idle timer loops of ``processes`` engine servers (of ``tree``) on one fresh Redis."""
    with redis_server() as url, contextlib.ExitStack() as servers:
        for _ in range(processes):
            servers.enter_context(engine_servers(url, tree=tree))
        client = redis.Redis.from_url(url)
        time.sleep(SETTLE_SECONDS)
        client.config_resetstat()
        _, cpu_before = _stats(client)
        time.sleep(seconds)
        calls, cpu_after = _stats(client)
        client.close()
    total = sum(count for name, count in calls.items() if name not in {"info", "config|resetstat"})
    reads = calls.get("zrangebyscore", 0)
    return {
        "engine": "this tree" if tree is None else f"baseline {tree}",
        "processes": processes,
        "commands_per_second": total / seconds,
        "commands_per_second_per_process": total / seconds / processes,
        "evalsha_per_second_per_process": calls.get("evalsha", 0) / seconds / processes,
        "group_reads_per_second_per_process": reads / seconds / processes,
        "redis_cpu_ms_per_second": (cpu_after - cpu_before) * 1000 / seconds,
    }


def markdown(rows: list[dict[str, Any]]) -> str:
    """The rows as a table."""
    lines = [
        "| engine | processes | Redis commands/s | per process | of which scripts | group "
        "indexes read/s per process | Redis CPU ms/s |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    lines += [
        f"| {r['engine']} | {r['processes']} | {r['commands_per_second']:,.0f} | "
        f"{r['commands_per_second_per_process']:,.0f} | "
        f"{r['evalsha_per_second_per_process']:,.1f} | "
        f"{r['group_reads_per_second_per_process']:,.0f} | {r['redis_cpu_ms_per_second']:.1f} |"
        for r in rows
    ]
    return "\n".join(lines)


def main() -> None:
    """Measure each process count, print the table, keep it in results/."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="two seconds per count")
    parser.add_argument("--out", type=Path, default=Path("results"))
    parser.add_argument(
        "--baseline-tree", type=Path, help="another checkout to measure the same way, first"
    )
    args = parser.parse_args()
    seconds = 2.0 if args.quick else 10.0
    trees = [args.baseline_tree, None] if args.baseline_tree else [None]
    rows = [measure(count, seconds, tree) for tree in trees for count in PROCESS_COUNTS]
    table = markdown(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "timer_share.json").write_text(json.dumps(rows, indent=2) + "\n")
    (args.out / "timer_share.md").write_text(table + "\n")
    print(table)


if __name__ == "__main__":
    main()
