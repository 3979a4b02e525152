"""The capacity model's arithmetic, on made-up figures worked out by hand.

``docs/capacity.md``'s planning table is nothing but these functions applied to measured
figures, so an error here would be a wrong plan with real-looking numbers.
"""

from __future__ import annotations

import doctest
from dataclasses import replace

import pytest

from bench import capacity, capacity_model
from bench.capacity_model import (
    GIB,
    Assumptions,
    Costs,
    Cpu,
    Machine,
    finished_games_kept,
    mix,
    moves_per_core,
    need,
    predicted_rate,
)

KIND = Costs(
    game="example",
    engine_cpu_us=1000.0,
    redis_cpu_us=100.0,
    live_bytes=100_000.0,
    finished_bytes=200_000.0,
    actions_per_game=500.0,
)
PLAN = Assumptions(
    seconds_per_move=5.0,
    headroom=0.5,
    cores_per_pod=2,
    dataset_bytes_per_master=GIB,
    finished_kept_seconds=3600.0,
    pod_redis_cpu=0.01,
    fixed_redis_cpu=0.1,
)


def test_a_plan_worked_out_by_hand():
    n = need(KIND, 100_000, PLAN)
    assert n.moves_per_second == 20_000
    # 500 moves/s per core at 50 % of 1,000 µs: 40 cores, 20 pods of 2.
    assert n.engine_cores == pytest.approx(40.0)
    assert n.pods == 20
    # 20,000 x 100 µs = 2 s/s, plus 0.1 fixed and 20 pods x 0.01: 2.3 s/s at 50 %: 5 masters.
    assert n.redis_cpu == pytest.approx(2.3)
    assert n.masters_for_cpu == 5
    # A game lasts 500 x 5 s = 2,500 s, kept an hour: 1.44 finished games per table.
    assert n.finished_games == pytest.approx(144_000)
    assert n.live_bytes == pytest.approx(1e10)
    assert n.finished_bytes == pytest.approx(2.88e10)
    # 3.88e10 bytes in 1 GiB masters: 36.1, so 37.
    assert n.masters_for_memory == 37
    assert n.masters == 37


def test_a_small_plan_still_needs_one_of_each():
    n = need(KIND, 1, PLAN)
    assert (n.pods, n.masters_for_cpu, n.masters_for_memory) == (1, 1, 1)


def test_the_cpu_side_scales_with_the_move_rate_and_live_memory_does_not():
    slow = need(KIND, 100_000, PLAN)
    fast = need(KIND, 100_000, replace(PLAN, seconds_per_move=2.5))
    assert fast.moves_per_second == 2 * slow.moves_per_second
    assert fast.engine_cores == pytest.approx(2 * slow.engine_cores)
    assert fast.live_bytes == slow.live_bytes
    assert fast.finished_games == pytest.approx(2 * slow.finished_games)


def test_headroom_and_cpu_per_move_set_the_rate_of_a_core():
    assert moves_per_core(500.0, 1.0) == pytest.approx(2000.0)
    assert moves_per_core(500.0, 0.7) == pytest.approx(1400.0)


def test_finished_games_kept_are_the_finish_rate_times_the_ttl():
    week = replace(PLAN, finished_kept_seconds=7 * 24 * 3600.0)
    assert finished_games_kept(1, KIND, week) == pytest.approx(604_800 / 2_500)


def test_an_even_mix_needs_what_its_halves_need_together():
    short = replace(KIND, game="short", actions_per_game=100.0, finished_bytes=50_000.0)
    long = replace(KIND, game="long", actions_per_game=300.0, engine_cpu_us=3000.0)
    both = need(mix([short, long]), 200_000, PLAN)
    halves = [need(kind, 100_000, PLAN) for kind in (short, long)]
    assert both.finished_games == pytest.approx(sum(h.finished_games for h in halves))
    assert both.finished_bytes == pytest.approx(sum(h.finished_bytes for h in halves))
    assert both.live_bytes == pytest.approx(sum(h.live_bytes for h in halves))
    assert both.engine_cores == pytest.approx(sum(h.engine_cores for h in halves))


@pytest.mark.parametrize(
    ("per_move", "machine", "limit", "rate"),
    [
        (Cpu(1000.0, 100.0, 100.0), Machine(1, 1, 4), "engine processes", 1000.0),
        (Cpu(100.0, 1000.0, 100.0), Machine(4, 1, 8), "Redis masters", 1000.0),
        (Cpu(100.0, 100.0, 1000.0), Machine(4, 4, 8), "load generator", 1000.0),
        (Cpu(1000.0, 500.0, 500.0), Machine(2, 2, 2), "shared cores", 1000.0),
    ],
)
def test_the_lowest_ceiling_predicts_the_rate(per_move, machine, limit, rate):
    bound = predicted_rate(per_move, machine)
    assert (bound.limit, bound.moves_per_second) == (limit, pytest.approx(rate))


def test_idle_work_leaves_less_for_the_moves():
    per_move, machine = Cpu(1000.0, 500.0, 500.0), Machine(2, 2, 2)
    idle = predicted_rate(per_move, machine, Cpu(100_000.0, 100_000.0, 0.0))
    assert idle.moves_per_second == pytest.approx(900.0)


@pytest.mark.parametrize("module", [capacity_model, capacity])
def test_doctests(module):
    assert doctest.testmod(module).failed == 0
