"""``make bench``: every figure beside its floor, for every registered game.

1. Rules alone, one core: random games per second and µs per action; Hearts beside
   OpenSpiel's Hearts on the same number of one-deal games; the heuristic bot's win rate.
2. SubmitAction through a real engine server (``grpc.aio``) and Redis, at 1, 16 and 64 calls
   in flight, beside a floor server of the same kind started in the same run.
3. Throughput of 1, 2 and 4 engine processes serving one address: process groups of
   ``python -m engine_service --processes N`` (:mod:`engine_service.api.launcher`).
4. Snapshot bytes and Redis memory per live game.
5. Fan-out (Hearts): submit-to-delivery latency with 1, 100 and 1,000 open watchers beside the
   floor's XADD and XREAD BLOCK through the same kind of gRPC stream; and SubmitAction calls
   per second on a process holding 1,000 idle watchers beside one holding none.
6. Bot work beside people (Hearts): SubmitAction of a human seat with bots, at 1 and 16 in
   flight, alone beside the same while a long all-bot game is played on by the same process's
   timer loop; the all-bot game's CreateGame beside an all-human one, and its bot moves per
   second; once with the engine's bot settings and once with smaller slices.
7. Peers (Hearts, :mod:`bench.peers`): the engine beside a small Hearts of ours hosted by
   boardgame.io (in memory and FlatFile) and Colyseus, each in its own Node process, with 1, 16
   and 64 games at once, one move outstanding each, delivered once all four seats have it.

Writes ``bench.json``, ``bench.md`` and PNG plots (linked from ``bench.md``: rules beside
OpenSpiel, SubmitAction of engine and floor, engine ÷ floor per game with the spread of the
rounds, scaling, fan-out) to ``--out`` (default ``results/``) and prints the Markdown. Seeds
are fixed and every run is bounded in time; ``--quick`` is a smoke run of a few seconds per
part.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import redis

from bench import bots, fanout, peers, rules, service, storage
from bench.driver import record_scripts
from bench.report import markdown, plots
from bench.servers import engine_servers, floor_server
from engine_service.devtools.local import redis_server
from engine_service.registry import REGISTRY


@dataclass(frozen=True)
class Plan:
    """How much each part does."""

    rules_games: int
    rules_seconds: float
    deal_games: int
    win_games: int
    seconds: float
    levels: tuple[int, ...]
    scripts: int
    script_actions: int
    processes: tuple[int, ...]
    storage_games: int
    watchers: tuple[int, ...]
    idle_watchers: int
    fanout_seconds: float
    scaling_in_flight: int = 64
    idle_in_flight: int = 16
    fanout_game: str = "hearts"
    bot_settings: tuple[bots.BotSetting, ...] = (bots.ENGINE_DEFAULTS, bots.ON_EVENT_LOOP)
    bot_levels: tuple[int, ...] = (1, 16)
    bot_seconds: float = 12.0
    """A p99 needs thousands of calls per side: at 4 s the ratio moved by 0.8 between runs."""
    peers_levels: tuple[int, ...] = (1, 16, 64)
    peers_seconds: float = 4.0
    """Per side and number of games, shared by the rounds."""


FULL = Plan(
    rules_games=300,
    rules_seconds=20.0,
    deal_games=2000,
    win_games=300,
    seconds=4.0,
    levels=(1, 16, 64),
    scripts=3,
    script_actions=2000,
    processes=(1, 2, 4),
    storage_games=40,
    watchers=(1, 100, 1000),
    idle_watchers=1000,
    fanout_seconds=4.0,
)
QUICK = Plan(
    rules_games=3,
    rules_seconds=2.0,
    deal_games=20,
    win_games=3,
    seconds=0.3,
    levels=(1, 4),
    scripts=1,
    script_actions=60,
    processes=(1, 2),
    storage_games=2,
    watchers=(1, 10),
    idle_watchers=20,
    fanout_seconds=0.6,
    scaling_in_flight=4,
    idle_in_flight=4,
    bot_settings=(bots.ENGINE_DEFAULTS,),
    bot_levels=(1, 4),
    bot_seconds=0.6,
    peers_seconds=1.0,
)


PARTS = {"rules", "service", "peers"}


def rules_part(plan: Plan) -> dict[str, Any]:
    figures: dict[str, Any] = {"rules": []}
    for game in REGISTRY:
        rate = rules.rules_rate(game, plan.rules_games, plan.rules_seconds)
        wins, played = rules.heuristic_win_rate(game, plan.win_games, plan.rules_seconds)
        figures["rules"].append(
            {
                **asdict(rate),
                "games_per_second": rate.games_per_second,
                "micros_per_action": rate.micros_per_action,
                "heuristic_wins": wins,
                "heuristic_games": played,
                "even_share": 1 / REGISTRY[game].seats,
            }
        )
    ours, spiel = rules.hearts_beside_openspiel(plan.deal_games)
    figures["hearts_one_deal"] = _rate(ours)
    figures["openspiel"] = None if spiel is None else _rate(spiel)
    return figures


def _rate(rate: rules.RulesRate) -> dict[str, Any]:
    return {
        **asdict(rate),
        "games_per_second": rate.games_per_second,
        "micros_per_action": rate.micros_per_action,
    }


def service_parts(plan: Plan) -> dict[str, Any]:
    figures: dict[str, Any] = {"service": {}, "scaling": {}, "storage": []}
    with redis_server() as url, contextlib.closing(redis.Redis.from_url(url)) as store:
        with engine_servers(url) as engine, floor_server(url) as floor:
            scripts = {
                game: asyncio.run(
                    record_scripts(engine, store, game, plan.scripts, plan.script_actions)
                )
                for game in REGISTRY
            }
            for game in REGISTRY:
                figures["service"][game] = service.beside_floor(
                    engine, floor, store, scripts[game], plan.levels, plan.seconds
                )
            store.flushdb()
            figures["deliveries"] = fanout.deliveries(
                engine,
                floor,
                store,
                scripts[plan.fanout_game],
                plan.watchers,
                plan.fanout_seconds,
            )
        for game in REGISTRY:
            store.flushdb()
            figures["scaling"][game] = service.scaling(
                url, scripts[game], plan.processes, plan.scaling_in_flight, plan.seconds
            )
        store.flushdb()
        figures["idle_watchers"] = fanout.idle_watchers(
            url,
            scripts[plan.fanout_game],
            plan.idle_watchers,
            plan.idle_in_flight,
            plan.seconds,
        )
        store.flushdb()
        figures["bot_work"] = [
            bots.beside_bots(url, setting, plan.bot_levels, plan.bot_seconds)
            for setting in plan.bot_settings
        ]
    with redis_server() as url:
        figures["storage"] = [storage.storage(url, game, plan.storage_games) for game in REGISTRY]
    return figures


def run(plan: Plan, out: Path, parts: set[str] = PARTS) -> dict[str, Any]:
    """The chosen parts; writes the results to ``out`` and returns the figures."""
    started = time.perf_counter()
    figures: dict[str, Any] = {"settings": asdict(plan)}
    if "rules" in parts:
        figures.update(rules_part(plan))
    if "service" in parts:
        figures.update(service_parts(plan))
    if "peers" in parts:
        figures["peers"] = peers.peers(plan.peers_levels, plan.peers_seconds)
    figures["elapsed_seconds"] = round(time.perf_counter() - started, 1)
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench.json").write_text(json.dumps(figures, indent=2) + "\n")  # kept if a plot fails
    figures["plots"] = [path.name for path in plots(figures, out)]
    (out / "bench.json").write_text(json.dumps(figures, indent=2) + "\n")
    (out / "bench.md").write_text(report(figures))
    return figures


def report(figures: dict[str, Any]) -> str:
    """bench.md: every part's section, the peers' last."""
    served = "rules" in figures or "service" in figures
    text = markdown(figures) if served else ""
    if "peers" in figures:
        text += "\n" + "\n".join(peers.markdown(figures)) + "\n"
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a smoke run of a few seconds")
    parser.add_argument("--out", type=Path, default=Path("results"), help="where to write")
    parser.add_argument(
        "--only",
        choices=sorted(PARTS),
        help="run one part (rules alone, everything served, or the engine beside its peers)",
    )
    args = parser.parse_args()
    figures = run(QUICK if args.quick else FULL, args.out, {args.only} if args.only else PARTS)
    print(report(figures))
    print(f"written to {args.out}/ in {figures['elapsed_seconds']} s")


if __name__ == "__main__":
    main()
