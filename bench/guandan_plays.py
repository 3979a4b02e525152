"""``python -m bench.guandan_plays``: how long listing a Guandan hand's plays takes, on one core.

Each sample is a seeded 27-card opening hand holding both wilds (the other 25 cards drawn
from the rest of the 108-card deck) at a random level 2..14. The script times
``plays(hand, level, top, GuandanConfig())`` once per hand when leading and when following a
pair, and prints the median, 99th percentile and mean in milliseconds. ``--profile`` prints
the top of a cProfile run of the leading case instead.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import random
import statistics
import time

from engine_service.core.cards import Suit
from engine_service.games.guandan.cards import Hand, deck, hand_of, kind_of
from engine_service.games.guandan.combos import plays
from engine_service.games.guandan.config import GuandanConfig
from engine_service.games.guandan.reading import Reading, Shape

CONFIG = GuandanConfig()
TOPS: dict[str, Reading | None] = {
    "lead": None,
    "on pair of 8s": Reading(Shape.PAIR, 8, 2),
}


def opening_hands(count: int, seed: int) -> list[tuple[Hand, int]]:
    """``count`` (hand, level) samples: 27 cards with both wilds of a random level."""
    rng = random.Random(seed)
    samples = []
    for _ in range(count):
        level = rng.randint(2, 14)
        wild = kind_of(level, Suit.HEARTS)
        rest = list(deck())
        rest.remove(wild)
        rest.remove(wild)
        samples.append((hand_of([wild, wild, *rng.sample(rest, 25)]), level))
    return samples


def timings_ms(
    samples: list[tuple[Hand, int]], top: Reading | None
) -> tuple[list[float], list[float], int]:
    """Wall-clock and CPU milliseconds per call, and the total number of plays listed.

    The CPU time of this thread leaves out time lost to other processes on a busy machine.
    """
    wall, cpu = [], []
    listed = 0
    for hand, level in samples:
        start_wall, start_cpu = time.perf_counter_ns(), time.thread_time_ns()
        found = plays(hand, level, top, CONFIG)
        cpu.append((time.thread_time_ns() - start_cpu) / 1e6)
        wall.append((time.perf_counter_ns() - start_wall) / 1e6)
        listed += len(found)
    return wall, cpu, listed


def summary(times: list[float]) -> str:
    """Median, 99th percentile, mean and maximum."""
    p99 = statistics.quantiles(times, n=100)[98]
    return (
        f"median {statistics.median(times):.3f}  p99 {p99:.3f}"
        f"  mean {statistics.fmean(times):.3f}  max {max(times):.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    samples = opening_hands(args.hands, args.seed)
    timings_ms(samples[:50], None)
    if args.profile:
        with cProfile.Profile() as profile:
            timings_ms(samples, None)
        pstats.Stats(profile).sort_stats("tottime").print_stats(15)
        return
    print(f"plays() on {len(samples)} 27-card hands with both wilds (seed {args.seed}), ms:")
    for name, top in TOPS.items():
        wall, cpu, listed = timings_ms(samples, top)
        print(f"  {name} ({listed / len(samples):.0f} plays per hand)")
        print(f"    wall  {summary(wall)}")
        print(f"    cpu   {summary(cpu)}")


if __name__ == "__main__":
    main()
