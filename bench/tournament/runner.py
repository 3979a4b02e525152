"""Blocks of a tournament run in worker processes until they are done or the time is up.

Each block (one deal with all its rotations) is independent and seeded by its index, so the
results do not depend on how many processes ran them or in what order; the time bound only
decides how many blocks there are. Blocks already started when the bound passes are
finished, so a run overshoots by at most one block per process.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import TypeVar

T = TypeVar("T")


def run_bounded(
    fn: Callable[[int], T], count: int, jobs: int, deadline: float, start: int = 0
) -> list[T]:
    """``fn(start) .. fn(count - 1)``, those started before ``deadline`` (``time.monotonic``).

    ``fn`` must pickle (a module-level function or a ``functools.partial`` of one) when
    ``jobs > 1``. Results come back in index order, from ``start`` without a gap (blocks are
    started in order and every started one is finished); a failing block raises here.
    """
    if jobs <= 1:
        results: list[T] = []
        for index in range(start, count):
            if time.monotonic() >= deadline:
                break
            results.append(fn(index))
        return results
    done: dict[int, T] = {}
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        running: dict[Future[T], int] = {}
        following = start
        while following < count or running:
            while following < count and len(running) < jobs and time.monotonic() < deadline:
                running[pool.submit(fn, following)] = following
                following += 1
            if not running:
                break
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                done[running.pop(future)] = future.result()
    return [done[index] for index in sorted(done)]
