"""The capacity model: engine pods, Redis masters and memory from measured per-move costs.

Pure arithmetic over the figures :mod:`bench.capacity` measures, kept apart from the
measuring so that a test can pin it down with made-up figures and the planning table in
``docs/capacity.md`` is nothing but these functions applied to that run's measurements.

The model is CPU-bound on both sides: a core (or a Redis master, which runs commands on one
thread) is planned at ``headroom`` of its time, so it serves ``headroom / CPU per move``
moves per second. Memory is bytes per game times games, with the finished games the service
keeps until their keys expire counted beside the live ones.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

GIB = 1024**3
MICRO = 1e-6
WEEK_SECONDS = 7 * 24 * 3600


@dataclass(frozen=True)
class Costs:
    """What one kind of table costs, as measured.

    Attributes:
        game: the game type, or ``mix`` for an even mix of them (:func:`mix`).
        engine_cpu_us: engine server CPU per SubmitAction that applies one action, µs.
        redis_cpu_us: Redis CPU per such SubmitAction, µs, without the idle pods' cost
            (:attr:`Assumptions.pod_redis_cpu` and :attr:`Assumptions.fixed_redis_cpu`).
        live_bytes: Redis memory per game in play, all included: its keys, its index
            entries and Redis's per-key overhead.
        finished_bytes: the same for a finished game, which stays until its keys expire.
        actions_per_game: actions from a game's creation to its end.
    """

    game: str
    engine_cpu_us: float
    redis_cpu_us: float
    live_bytes: float
    finished_bytes: float
    actions_per_game: float


@dataclass(frozen=True)
class Assumptions:
    """The planning choices the measurements do not make, each stated in the document.

    Attributes:
        seconds_per_move: how often a table moves, on average (people think; bots' replies
            come inside the people's calls and are not counted here).
        headroom: the share of a core's or a master's time it is planned to be busy.
        cores_per_pod: engine cores per pod (``--processes`` of the same number).
        dataset_bytes_per_master: data one master may hold: its RAM less what a fork for an
            append-only-file rewrite, fragmentation and client buffers need.
        finished_kept_seconds: how long a finished game stays (the service's game TTL, which
            every write refreshes; one week by default).
        pod_redis_cpu: Redis CPU seconds per second that each pod adds while idle: its
            timer loop looking for due games and its health checks (measured).
        fixed_redis_cpu: Redis CPU seconds per second that idle pods cost in all, however
            many (timer loops that share the due index among themselves; measured).
    """

    seconds_per_move: float = 5.0
    headroom: float = 0.7
    cores_per_pod: int = 2
    dataset_bytes_per_master: float = 16 * GIB
    finished_kept_seconds: float = WEEK_SECONDS
    pod_redis_cpu: float = 0.0
    fixed_redis_cpu: float = 0.0


@dataclass(frozen=True)
class Need:
    """What ``tables`` concurrent tables need under the assumptions."""

    tables: int
    moves_per_second: float
    engine_cores: float
    pods: int
    redis_cpu: float
    """Redis CPU seconds per second over all masters, the pods' idle cost included."""
    live_bytes: float
    finished_games: float
    finished_bytes: float
    masters_for_cpu: int
    masters_for_memory: int

    @property
    def masters(self) -> int:
        """Masters enough for both the CPU and the memory."""
        return max(self.masters_for_cpu, self.masters_for_memory)

    @property
    def total_bytes(self) -> float:
        """The live games and the finished games kept."""
        return self.live_bytes + self.finished_bytes


def moves_per_core(cpu_us: float, headroom: float) -> float:
    """Moves per second one core (or one Redis master) serves at ``headroom`` of its time.

    >>> moves_per_core(1000.0, 0.7)
    700.0
    """
    return headroom * 1e6 / cpu_us


def finished_games_kept(tables: float, costs: Costs, assumptions: Assumptions) -> float:
    """Finished games stored at any time: each table ends a game every game length, kept a TTL.

    A table finishes one game every ``actions_per_game * seconds_per_move`` seconds and starts
    the next; each finished game stays ``finished_kept_seconds``.
    """
    game_seconds = costs.actions_per_game * assumptions.seconds_per_move
    return tables * assumptions.finished_kept_seconds / game_seconds


def need(costs: Costs, tables: int, assumptions: Assumptions) -> Need:
    """Pods, masters and memory for ``tables`` concurrent tables of ``costs``' kind."""
    moves = tables / assumptions.seconds_per_move
    cores = moves / moves_per_core(costs.engine_cpu_us, assumptions.headroom)
    pods = max(1, math.ceil(cores / assumptions.cores_per_pod))
    idle = assumptions.fixed_redis_cpu + pods * assumptions.pod_redis_cpu
    redis_cpu = moves * costs.redis_cpu_us * MICRO + idle
    finished = finished_games_kept(tables, costs, assumptions)
    live_bytes = tables * costs.live_bytes
    finished_bytes = finished * costs.finished_bytes
    memory = (live_bytes + finished_bytes) / assumptions.dataset_bytes_per_master
    return Need(
        tables=tables,
        moves_per_second=moves,
        engine_cores=cores,
        pods=pods,
        redis_cpu=redis_cpu,
        live_bytes=live_bytes,
        finished_games=finished,
        finished_bytes=finished_bytes,
        masters_for_cpu=max(1, math.ceil(redis_cpu / assumptions.headroom)),
        masters_for_memory=max(1, math.ceil(memory)),
    )


def mix(kinds: Sequence[Costs]) -> Costs:
    """An even mix of table kinds, as one kind: each kind has the same share of tables.

    Every table moves at the same rate, so moves split evenly and CPU per move is the mean;
    live bytes are the mean too. Shorter games finish more often, so a kind's finished games
    weigh by ``1 / actions_per_game``, and the mix's game length is the harmonic mean.
    """
    count = len(kinds)
    rates = [1 / kind.actions_per_game for kind in kinds]
    return Costs(
        game="mix",
        engine_cpu_us=sum(kind.engine_cpu_us for kind in kinds) / count,
        redis_cpu_us=sum(kind.redis_cpu_us for kind in kinds) / count,
        live_bytes=sum(kind.live_bytes for kind in kinds) / count,
        finished_bytes=sum(
            kind.finished_bytes * rate for kind, rate in zip(kinds, rates, strict=True)
        )
        / sum(rates),
        actions_per_game=count / sum(rates),
    )


@dataclass(frozen=True)
class Cpu:
    """CPU time of the engine, Redis and the load generator: per move, or per second idle (µs)."""

    engine: float
    redis: float
    client: float


NO_CPU = Cpu(0.0, 0.0, 0.0)


@dataclass(frozen=True)
class Machine:
    """What runs on one machine: engine processes and Redis masters, on ``cores`` cores.

    ``cores`` may be a fraction: those that other work leaves.
    """

    processes: int
    masters: int
    cores: float


@dataclass(frozen=True)
class Bound:
    """A predicted rate and what sets it."""

    moves_per_second: float
    limit: str


def predicted_rate(per_move: Cpu, machine: Machine, idle: Cpu = NO_CPU) -> Bound:
    """The saturated SubmitAction rate of one machine running everything, from CPU per move.

    Four ceilings, the lowest wins: each engine process runs its requests on one core; each
    Redis master runs commands on one thread; the load generator is one process too; and the
    machine's cores are shared by all of them, so engine, Redis and load generator together
    spend at most ``cores`` seconds of CPU per second. What they spend idle (``idle``, µs per
    second: the timer loop's looks) is not theirs to spend on moves.

    >>> predicted_rate(Cpu(1000.0, 200.0, 500.0), Machine(1, 1, 2))
    Bound(moves_per_second=1000.0, limit='engine processes')
    >>> predicted_rate(Cpu(1000.0, 200.0, 500.0), Machine(2, 1, 2), Cpu(0.0, 3e5, 0.0))
    Bound(moves_per_second=1000.0, limit='shared cores')
    """
    second = 1e6
    ceilings = {
        "engine processes": (machine.processes * second - idle.engine) / per_move.engine,
        "Redis masters": (machine.masters * second - idle.redis) / per_move.redis,
        "load generator": (second - idle.client) / per_move.client,
        "shared cores": (machine.cores * second - idle.engine - idle.redis - idle.client)
        / (per_move.engine + per_move.redis + per_move.client),
    }
    limit = min(ceilings, key=lambda name: ceilings[name])
    return Bound(round(ceilings[limit], 1), limit)
