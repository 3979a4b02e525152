"""Turn the figures of one ``make bench`` run into a Markdown table and PNG plots."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

GOAL_P50 = 1.25
GOAL_FLOOR = 1.0
"""SubmitAction's server CPU per call at most the floor's, and its calls/s at least the floor's."""
FLOOR_SLACK = {"guandan": 1.2, "klaberjass": 1.2}
"""How far the games with more to judge per move than Hearts may be from the floor."""
GOAL_PEER = 1.0
"""A Play session's CPU per move and p50 at most boardgame.io's in memory."""
GOAL_REDIS_SHARE = 0.6
"""Redis CPU per move at most this share of :data:`REDIS_BEFORE_US`."""
REDIS_BEFORE_US = {1: 204, 16: 149, 64: 134}
"""Redis CPU µs per move before Play and the kept snapshots, by games in flight, measured as
in part 7 with SubmitAction and a WatchGame per seat (4 s per side, two rounds)."""
GOAL_OPENSPIEL = 1.0
GOAL_SNAPSHOT = 600
GOAL_DELIVERY_P50 = 2.0
GOAL_IDLE_THROUGHPUT = 0.9
GOAL_BESIDE_BOTS_P99 = 1.2


def _fmt(value: float, digits: int = 2) -> str:
    return "n/a" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def _table(header: list[str], rows: list[list[Any]]) -> list[str]:
    align = ["---"] + ["---:"] * (len(header) - 1)
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    return lines + ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]


def rules_section(figures: dict[str, Any]) -> list[str]:
    rows = [
        [
            r["game"],
            r["games"],
            _fmt(r["games_per_second"], 1),
            _fmt(r["micros_per_action"], 1),
            round(r["actions"] / r["games"]),
            f"{r['heuristic_wins']:.1%} of {r['heuristic_games']} (even share "
            f"{r['even_share']:.0%})",
        ]
        for r in figures["rules"]
    ]
    settings = figures["settings"]
    lines = [
        f"### 1. Rules alone, one core ({settings['rules_games']} random games each, or "
        f"{settings['rules_seconds']:.0f} s of CPU)",
        "",
    ]
    header = ["game", "games", "games/s", "µs/action", "actions/game", "heuristic seat 0 wins"]
    lines += _table(header, rows)
    spiel = figures.get("openspiel")
    ours = figures["hearts_one_deal"]
    lines += ["", f"Hearts beside OpenSpiel's Hearts ({ours['games']} one-deal games each, "]
    lines[-1] += "passing on, random play driven from Python):"
    lines += [""]
    rows = [["ours (`target=1`, classic)", *_rate_cells(ours), ""]]
    if spiel is None:
        rows.append(["OpenSpiel", "not installed", "", "", ""])
    else:
        ratio = ours["games_per_second"] / spiel["games_per_second"]
        rows.append(["OpenSpiel 2.0 (`pyspiel`)", *_rate_cells(spiel), ""])
        rows.append(["**ours / OpenSpiel**", f"**{ratio:.2f}**", "", "", ""])
    return lines + _table(["Hearts, one deal", "games/s", "µs/action", "actions/game", ""], rows)


def _rate_cells(rate: dict[str, Any]) -> list[str]:
    return [
        _fmt(rate["games_per_second"], 0),
        _fmt(rate["micros_per_action"], 2),
        str(round(rate["actions"] / rate["games"])),
    ]


def service_section(figures: dict[str, Any]) -> list[str]:
    settings = figures["settings"]
    lines = [
        f"### 2. SubmitAction beside the floor server (grpc.aio, one process each, "
        f"{settings['seconds']} s per run, real Redis, loopback)",
        "",
        "Every seat human-driven by the benchmark, so one call applies exactly one "
        "action. Floor: the same kind of server (`new_grpc_server`, grpc.aio over "
        "redis.asyncio), handler = one Redis GET + one Lua compare-and-set of a snapshot-sized "
        "value that also XADDs it to a stream. Server CPU is the server process's own "
        "CPU time per call, the steadiest figure on a shared machine.",
        "",
    ]
    rows = []
    for game, levels in figures["service"].items():
        for row in levels:
            real, base = row["engine"], row["floor"]
            errors = {**real["errors"], **{f"floor {k}": v for k, v in base["errors"].items()}}
            rows.append(
                [
                    game,
                    row["in_flight"],
                    f"{real['p50_ms']:.2f} / {base['p50_ms']:.2f} = **{row['p50_ratio']:.2f}**",
                    f"{real['p99_ms']:.2f} / {base['p99_ms']:.2f} = {row['p99_ratio']:.2f}",
                    f"{real['throughput']:.0f} / {base['throughput']:.0f} = "
                    f"**{row['throughput_ratio']:.2f}**",
                    f"{real['cpu_us_per_call']} / {base['cpu_us_per_call']} = "
                    f"**{row['cpu_ratio']:.2f}**",
                    ", ".join(f"{k} {v}" for k, v in errors.items()) or "none",
                ]
            )
    header = [
        "game",
        "in flight",
        "p50 ms engine / floor",
        "p99 ms",
        "calls/s",
        "server CPU µs/call",
        "errors",
    ]
    return lines + _table(header, rows)


def scaling_section(figures: dict[str, Any]) -> list[str]:
    settings = figures["settings"]
    lines = [
        f"### 3. Scaling: engine process groups on one address (`--processes N`, SO_REUSEPORT), "
        f"one Redis, {settings['scaling_in_flight']} in flight",
        "",
        "Each count is one `python -m engine_service --processes N` (the launcher, as "
        "deployed); the groups take turns. CPU µs per call: the servers' own (every process "
        "of the group), this load generator's and Redis's. The load generator and Redis run "
        "on the same cores, so the cores allow at most cores / (server + load generator + "
        "Redis CPU per call) calls per second whatever the processes: the CPU bound column, "
        "as a multiple of one process's calls/s.",
        "",
    ]
    rows = []
    for game, runs in figures["scaling"].items():
        single = runs[0]["throughput"]
        for run in runs:
            spread = run.get("round_throughput", [])
            rows.append(
                [
                    game,
                    run["processes"],
                    f"{run['throughput']:.0f}",
                    f"**{_fmt(run['throughput'] / single if single else math.nan)}**",
                    " / ".join(f"{x:.0f}" for x in spread) or "n/a",
                    f"{run['p50_ms']:.2f}",
                    f"{run['p99_ms']:.2f}",
                    f"{run['cpu_us_per_call']} / {run.get('client_cpu_us_per_call', 'n/a')} / "
                    f"{run.get('redis_cpu_us_per_call', 'n/a')}",
                    _fmt(_ceiling(runs[0], run)),
                    _load(run.get("load_average")),
                ]
            )
    header = [
        "game",
        "processes",
        "calls/s",
        "x one process",
        "calls/s per round",
        "p50 ms",
        "p99 ms",
        "CPU µs/call server / load generator / Redis",
        "CPU bound, x one process",
        "load average before → after",
    ]
    return lines + _table(header, rows)


def _ceiling(single: dict[str, Any], run: dict[str, Any]) -> float:
    """The calls/s the shared cores allow ``run``, as a multiple of ``single``'s calls/s.

    Every call costs server, load-generator and Redis CPU time, all on the same cores: at
    most ``cores`` seconds of CPU per second between them.
    """
    cores = run.get("cores")
    others = run.get("client_cpu_us_per_call", 0) + run.get("redis_cpu_us_per_call", 0)
    total = run["cpu_us_per_call"] + others
    if not cores or not total or not single["throughput"]:
        return math.nan
    return float(cores * 1e6 / total / single["throughput"])


def _load(load: list[float] | None) -> str:
    if not load:
        return "n/a"
    return (
        " / ".join(f"{x:.2f}" for x in load[:3]) + " → " + " / ".join(f"{x:.2f}" for x in load[3:])
    )


def fanout_section(figures: dict[str, Any]) -> list[str]:
    settings = figures["settings"]
    lines = [
        f"### 5. Fan-out: submit to delivery, N watchers on one engine process "
        f"({settings['fanout_game']}, one SubmitAction at a time, {settings['fanout_seconds']} s "
        "per side)",
        "",
        "Each watcher watches its own game as seat 0, with views; the calls replay moves of "
        "watched games round-robin, and a delivery runs from sending SubmitAction to that "
        "game's watcher receiving the version it made. Floor: the floor server's SubmitAction "
        "(GET + Lua compare-and-set + XADD) and one XREAD BLOCK reader per process over every "
        "watched stream, delivered on a gRPC server stream (`/bench.Floor/Watch`). For "
        "reference, the floor with its own Redis connection blocked in XREAD per watcher "
        "(`/bench.Floor/WatchOwn`). Server CPU is per SubmitAction and its delivery.",
        "",
    ]
    rows = []
    for row in figures["deliveries"]:
        real, base, own = row["engine"], row["floor"], row["floor_own"]
        errors = {
            **real["errors"],
            **{f"floor {k}": v for k, v in base["errors"].items()},
            **{f"own {k}": v for k, v in own["errors"].items()},
        }
        rows.append(
            [
                row["watchers"],
                real["deliveries"],
                f"{real['p50_ms']:.2f} / {base['p50_ms']:.2f} = **{row['p50_ratio']:.2f}**",
                f"{real['p99_ms']:.2f} / {base['p99_ms']:.2f} = {row['p99_ratio']:.2f}",
                f"{real['submit_p50_ms']:.2f} / {base['submit_p50_ms']:.2f}",
                f"{real['cpu_us_per_delivery']} / {base['cpu_us_per_delivery']} = "
                f"{row['cpu_ratio']:.2f}",
                f"{own['p50_ms']:.2f} / {own['p99_ms']:.2f}",
                ", ".join(f"{k} {v}" for k, v in errors.items()) or "none",
            ]
        )
    header = [
        "watchers",
        "deliveries",
        "delivery p50 ms engine / floor",
        "delivery p99 ms",
        "SubmitAction reply p50 ms",
        "server CPU µs/delivery",
        "floor, connection per watcher: p50 / p99 ms",
        "errors",
    ]
    lines += _table(header, rows)
    idle = figures.get("idle_watchers")
    if idle is None:
        return lines
    real, base = idle["with_watchers"], idle["without"]
    errors = {**real["errors"], **{f"without {k}": v for k, v in base["errors"].items()}}
    lines += [
        "",
        f"SubmitAction with {idle['watchers']} idle watchers open (games nobody moves in) on "
        "the process, beside a process without watchers, started in the same run and taking "
        f"turns ({idle['in_flight']} in flight):",
        "",
    ]
    row = [
        idle["watchers"],
        idle["in_flight"],
        f"{real['throughput']:.0f} / {base['throughput']:.0f} = **{idle['throughput_ratio']:.2f}**",
        f"{real['p50_ms']:.2f} / {base['p50_ms']:.2f} = {idle['p50_ratio']:.2f}",
        f"{real['cpu_us_per_call']} / {base['cpu_us_per_call']} = {idle['cpu_ratio']:.2f}",
        ", ".join(f"{k} {v}" for k, v in errors.items()) or "none",
    ]
    header = [
        "idle watchers",
        "in flight",
        "calls/s with / without",
        "p50 ms",
        "server CPU µs/call",
        "errors",
    ]
    return lines + _table(header, [row])


def _setting_name(setting: dict[str, Any]) -> str:
    where = (
        f"{setting['workers']} timer worker(s)"
        if setting["workers"]
        else f"on the event loop, share {setting['share']:g}"
    )
    return f"{setting['moves']} moves / {setting['seconds'] * 1000:g} ms per slice, {where}"


def bots_section(figures: dict[str, Any]) -> list[str]:
    settings = figures["settings"]
    lines = [
        "### 6. Bot work beside people (Hearts, one engine process per bot setting, "
        f"{settings['bot_seconds']} s per side and level)",
        "",
        "Normal traffic: games of one human seat (the benchmark, random legal moves) and three "
        "random bots; only SubmitAction is timed (the move and the bots' replies). Floor: the "
        "same traffic on the same process alone; beside it, an all-bot Hearts game to 10,000 "
        "(four random bots, created as a new user would) played on by the process's timer loop "
        "in bounded slices, ended after each round. The sides take turns. CreateGame of the "
        "all-bot game is beside CreateGame of an all-human game (no bot work). Load average: "
        "1/5/15 min before and after each setting, on a machine shared with other work.",
        "",
    ]
    rows = []
    for run in figures["bot_work"]:
        for row in run["levels"]:
            real, base = row["beside"], row["alone"]
            errors = {**real["errors"], **{f"alone {k}": v for k, v in base["errors"].items()}}
            rows.append(
                [
                    _setting_name(run["setting"]),
                    row["in_flight"],
                    f"{real['p50_ms']:.2f} / {base['p50_ms']:.2f} = {row['p50_ratio']:.2f}",
                    f"{real['p99_ms']:.2f} / {base['p99_ms']:.2f} = **{row['p99_ratio']:.2f}**",
                    f"{real['throughput']:.0f} / {base['throughput']:.0f}",
                    f"{real['turn_waits']} / {base['turn_waits']}",
                    ", ".join(f"{k} {v}" for k, v in errors.items()) or "none",
                ]
            )
    header = [
        "bot setting",
        "in flight",
        "p50 ms beside / alone",
        "p99 ms",
        "calls/s",
        "waits for the timer loop",
        "errors",
    ]
    lines += _table(header, rows)
    rows = []
    for run in figures["bot_work"]:
        long_game, load = run["long_game"], run["load_average"]
        rows.append(
            [
                _setting_name(run["setting"]),
                f"{long_game['moves_per_second']:.0f}",
                f"{long_game['create_p50_ms']:.2f} / {long_game['floor_create_p50_ms']:.2f} = "
                f"{long_game['create_ratio']:.2f}",
                f"{long_game['create_max_ms']:.2f}",
                long_game["moves_at_create"],
                long_game["idle_rounds"],
                " / ".join(f"{x:.2f}" for x in load[:3])
                + " → "
                + " / ".join(f"{x:.2f}" for x in load[3:]),
            ]
        )
    header = [
        "bot setting",
        "all-bot game: bot moves/s",
        "its CreateGame p50 ms / all-human's",
        "its CreateGame max ms",
        "bot moves in its CreateGame",
        "rounds it made no move",
        "load average before → after",
    ]
    return [*lines, "", *_table(header, rows)]


def storage_section(figures: dict[str, Any]) -> list[str]:
    lines = ["### 4. Storage per game", ""]
    rows = [
        [
            s["game"],
            f"{s['snapshot_bytes_mean']} / {s['snapshot_bytes_max']}",
            s["live_games"],
            s["live_snapshot_bytes_mean"],
            s["redis_bytes_per_game"],
            f"{s['game_hash_bytes_per_game']} / {s['log_bytes_per_game']} / "
            f"{s.get('events_bytes_per_game', 0)}",
        ]
        for s in figures["storage"]
    ]
    header = [
        "game",
        "snapshot bytes mean / max over a whole game",
        "live games",
        "their mean snapshot",
        "Redis bytes per live game",
        "of which game hash (snapshot + remembered request versions) / log / event stream",
    ]
    return lines + _table(header, rows)


def goals_section(figures: dict[str, Any]) -> list[str]:
    rows = []
    for game, levels in figures.get("service", {}).items():
        goals = floor_goals(game)
        for row in levels:
            for key, name, _ in RATIOS:
                if key in goals:
                    rows.append(_ratio_goal(f"{game} {name}", row, key, goals[key], "floor"))
    rows += peer_goals(figures.get("peers"))
    for row in figures.get("deliveries", []):
        rows.append(
            _goal(
                f"delivery p50 with {row['watchers']} watchers",
                "≤ 2 x floor",
                row["p50_ratio"],
                row["p50_ratio"] <= GOAL_DELIVERY_P50,
            )
        )
    idle = figures.get("idle_watchers")
    if idle is not None:
        rows.append(
            _goal(
                f"SubmitAction calls/s with {idle['watchers']} idle watchers",
                "≥ 0.9 x without",
                idle["throughput_ratio"],
                idle["throughput_ratio"] >= GOAL_IDLE_THROUGHPUT,
            )
        )
    for run in figures.get("bot_work", []):
        for row in run["levels"]:
            rows.append(
                _goal(
                    f"SubmitAction p99 at {row['in_flight']} in flight beside an all-bot game "
                    f"({_setting_name(run['setting'])})",
                    "≤ 1.2 x alone",
                    row["p99_ratio"],
                    row["p99_ratio"] <= GOAL_BESIDE_BOTS_P99,
                )
            )
    spiel = figures.get("openspiel")
    if spiel is not None:
        ratio = figures["hearts_one_deal"]["games_per_second"] / spiel["games_per_second"]
        rows.append(
            _goal("Hearts games/s", "≥ 1.0 x OpenSpiel", round(ratio, 2), ratio >= GOAL_OPENSPIEL)
        )
    for s in figures.get("storage", []):
        if s["game"] == "hearts":
            rows.append(
                _goal(
                    "Hearts snapshot, largest in a game",
                    "≤ 600 bytes",
                    s["snapshot_bytes_max"],
                    s["snapshot_bytes_max"] <= GOAL_SNAPSHOT,
                )
            )
    return ["### Goals", "", *_table(["figure", "goal", "measured", "met"], rows)]


def _goal(name: str, goal: str, value: Any, met: bool) -> list[Any]:
    return [name, goal, value, "yes" if met else "**no**"]


def floor_goals(game: str) -> dict[str, float]:
    """The goal of each engine ÷ floor ratio of ``game`` that has one (calls/s: at least)."""
    slack = FLOOR_SLACK.get(game, 1.0)
    return {
        "p50_ratio": GOAL_P50,
        "throughput_ratio": round(GOAL_FLOOR / slack, 3),
        "cpu_ratio": GOAL_FLOOR * slack,
    }


def _ratio_goal(name: str, row: dict[str, Any], key: str, goal: float, of: str) -> list[Any]:
    """A goal on ``row[key]``: at least ``goal`` for calls/s, at most it for anything else."""
    value = row[key]
    at_least = key == "throughput_ratio"
    sign = "≥" if at_least else "≤"
    met = value >= goal if at_least else value <= goal
    return _goal(f"{name} at {row['in_flight']} in flight", f"{sign} {goal:g} x {of}", value, met)


def peer_goals(part: dict[str, Any] | None) -> list[list[Any]]:
    """Part 7's goals: a Play session beside boardgame.io in memory, and Redis's work per move."""
    if part is None:
        return []
    rows = []
    for row in part["rows"]:
        games = row["games"]
        for side in ("engine Play", "engine Play WS"):
            for key, name in (("cpu", "CPU per move"), ("p50", "p50")):
                value = row[f"{side}_{key}_ratio"]
                rows.append(
                    _goal(
                        f"{side} {name} at {games} in flight",
                        f"≤ {GOAL_PEER:g} x boardgame.io in memory",
                        value,
                        value <= GOAL_PEER,
                    )
                )
        before = REDIS_BEFORE_US.get(games)
        for side, summary in row["sides"].items():
            if before is None or not side.startswith("engine"):
                continue
            share = round(summary["redis_cpu_us_per_move"] / before, 2)
            rows.append(
                _goal(
                    f"{side} Redis CPU per move at {games} in flight",
                    f"≤ {GOAL_REDIS_SHARE:g} x {before} µs",
                    share,
                    share <= GOAL_REDIS_SHARE,
                )
            )
    return rows


def plots_section(figures: dict[str, Any]) -> list[str]:
    """Links to the PNG plots written beside the report (``figures["plots"]``)."""
    lines = ["### Plots", ""]
    return lines + [f"![{name}]({name})" for name in figures.get("plots", [])]


def markdown(figures: dict[str, Any]) -> str:
    """The whole report as Markdown."""
    sections = [rules_section(figures)] if "rules" in figures else []
    if "service" in figures:
        sections += [
            service_section(figures),
            scaling_section(figures),
            storage_section(figures),
        ]
        if "deliveries" in figures:
            sections.append(fanout_section(figures))
        if "bot_work" in figures:
            sections.append(bots_section(figures))
    sections.append(goals_section(figures))
    if figures.get("plots"):
        sections.append(plots_section(figures))
    return "\n\n".join("\n".join(s) for s in sections) + "\n"


def plots(figures: dict[str, Any], folder: Path) -> list[Path]:
    """PNG plots of the figures; none when matplotlib is missing.

    Per game, engine and floor share a colour pair (dark: engine, light: floor); ratios show
    the pooled figure with the spread of the rounds the sides took turns in.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # noqa: F401  (loaded before the plotting helpers)
    except ImportError:
        return []
    written = []
    if figures.get("rules"):
        written.append(_rules_plot(figures, folder / "rules.png"))
    if figures.get("service"):
        written.append(_service_plot(figures["service"], folder / "service.png"))
        for game, levels in figures["service"].items():
            written.append(_ratio_plot(game, levels, folder / f"ratios-{game}.png"))
    if figures.get("scaling"):
        written.append(_scaling_plot(figures["scaling"], folder / "scaling.png"))
    if figures.get("deliveries"):
        written.append(_fanout_plot(figures, folder / "fanout.png"))
    return written


def _pair(index: int) -> tuple[Any, Any]:
    """The dark and light colour of pair ``index`` (matplotlib's tab20 comes in pairs)."""
    import matplotlib.pyplot as plt

    cmap: Any = plt.get_cmap("tab20")  # a ListedColormap, whose stubs say only Colormap
    colours = cmap.colors
    return colours[(2 * index) % 20], colours[(2 * index + 1) % 20]


def _levels_axis(axis: Any, levels: list[int]) -> None:
    """A log-2 axis of in-flight levels, ticked at the levels measured, as integers."""
    axis.set_xscale("log", base=2)
    axis.set_xticks(levels)
    axis.set_xticklabels([str(x) for x in levels])
    axis.minorticks_off()


def _rules_plot(figures: dict[str, Any], path: Path) -> Path:
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    rows = figures["rules"]
    names = [r["game"] for r in rows]
    left.bar(names, [r["micros_per_action"] for r in rows], color=[_pair(i)[0] for i in range(3)])
    left.set(ylabel="µs per action", title="rules alone, random games, one core")
    for x, r in enumerate(rows):
        left.annotate(
            f"{r['games_per_second']:.0f} games/s",
            (x, r["micros_per_action"]),
            ha="center",
            va="bottom",
            fontsize="small",
        )
    ours, spiel = figures["hearts_one_deal"], figures.get("openspiel")
    labels, rates = ["ours"], [ours["games_per_second"]]
    if spiel is not None:
        labels.append("OpenSpiel")
        rates.append(spiel["games_per_second"])
    dark, light = _pair(0)
    right.bar(labels, rates, color=[dark, light][: len(rates)])
    for x, rate in enumerate(rates):
        right.annotate(f"{rate:.0f}", (x, rate), ha="center", va="bottom")
    title = "Hearts one deal beside OpenSpiel" if spiel else "Hearts one deal (no OpenSpiel)"
    right.set(ylabel="games per second", title=title)
    return _save(fig, path)


def _service_plot(service: dict[str, Any], path: Path) -> Path:
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    levels: list[int] = []
    for index, (game, rows) in enumerate(service.items()):
        x = [r["in_flight"] for r in rows]
        levels = sorted({*levels, *x})
        for who, style, colour in zip(
            ("engine", "floor"), ("-o", "--s"), _pair(index), strict=True
        ):
            left.plot(
                x, [r[who]["p50_ms"] for r in rows], style, color=colour, label=f"{game} {who}"
            )
            right.plot(
                x, [r[who]["throughput"] for r in rows], style, color=colour, label=f"{game} {who}"
            )
    for axis, title, unit in ((left, "SubmitAction p50", "ms"), (right, "throughput", "calls/s")):
        _levels_axis(axis, levels)
        axis.set(xlabel="calls in flight", ylabel=unit, title=title)
        axis.legend(fontsize="small")
    return _save(fig, path)


RATIOS = (
    ("p50_ratio", "p50", "p50 latency"),
    ("p99_ratio", "p99", "p99 latency"),
    ("throughput_ratio", "calls/s", "calls/s"),
    ("cpu_ratio", "server CPU per call", "server CPU per call"),
)
"""Each engine ÷ floor ratio: its key, its name in the goals, its name in the plots."""


def _ratio_plot(game: str, rows: list[dict[str, Any]], path: Path) -> Path:
    """Engine ÷ floor per in-flight level: pooled, with the rounds' lowest and highest."""
    import matplotlib.pyplot as plt

    fig, axis = plt.subplots(figsize=(7, 4.5))
    x = [r["in_flight"] for r in rows]
    goals = floor_goals(game)
    for index, (key, _, name) in enumerate(RATIOS):
        goal = goals.get(key)
        colour = _pair(index)[0]
        pooled = [r[key] for r in rows]
        spread = [[v[key] for v in r.get("rounds", [])] or [r[key]] for r in rows]
        low, high = _error_bars(pooled, spread)
        shifted = [level * 2 ** (0.06 * (index - 1.5)) for level in x]  # bars side by side
        axis.errorbar(
            shifted, pooled, yerr=[low, high], fmt="-o", capsize=3, color=colour, label=name
        )
        if goal is not None:
            axis.axhline(goal, color=colour, linestyle=":", linewidth=1)
    axis.axhline(1.0, color="grey", linewidth=0.8)
    _levels_axis(axis, x)
    axis.set(
        xlabel="calls in flight",
        ylabel="engine ÷ floor",
        title=f"{game}: engine ÷ floor (bars: spread of the rounds; dotted: goals)",
    )
    axis.legend(fontsize="small")
    return _save(fig, path)


def _error_bars(pooled: list[float], spread: list[list[float]]) -> tuple[list[float], list[float]]:
    """Bars from each pooled figure down to its rounds' lowest and up to their highest.

    A pooled percentile need not lie between the rounds' (it is of all their calls at once).
    """
    low = [max(0.0, p - min(s)) for p, s in zip(pooled, spread, strict=True)]
    high = [max(0.0, max(s) - p) for p, s in zip(pooled, spread, strict=True)]
    return low, high


def _scaling_plot(scaling: dict[str, Any], path: Path) -> Path:
    import matplotlib.pyplot as plt

    fig, axis = plt.subplots(figsize=(7, 4.5))
    counts: list[int] = []
    for index, (game, runs) in enumerate(scaling.items()):
        dark, light = _pair(index)
        n = [r["processes"] for r in runs]
        counts = sorted({*counts, *n})
        single = runs[0]["throughput"] or 1.0
        pooled = [r["throughput"] / single for r in runs]
        spread = [
            [t / single for t in r.get("round_throughput", [])] or [p]
            for r, p in zip(runs, pooled, strict=True)
        ]
        low, high = _error_bars(pooled, spread)
        axis.errorbar(n, pooled, yerr=[low, high], fmt="-o", capsize=3, color=dark, label=game)
        axis.plot(
            n,
            [_ceiling(runs[0], r) for r in runs],
            "--",
            color=light,
            label=f"{game}: CPU bound of these cores",
        )
    axis.plot(counts, counts, ":", color="grey", label="one process's throughput x N")
    axis.set_xticks(counts)
    axis.set(
        xlabel="engine processes", ylabel="calls/s ÷ one process", title="scaling on one address"
    )
    axis.legend(fontsize="small")
    return _save(fig, path)


def _fanout_plot(figures: dict[str, Any], path: Path) -> Path:
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    rows = figures["deliveries"]
    x = [r["watchers"] for r in rows]
    sides = (("engine", "engine"), ("floor", "floor"), ("floor_own", "floor, reader per watcher"))
    for index, (who, name) in enumerate(sides):
        dark, light = _pair(index)
        left.plot(x, [r[who]["p50_ms"] for r in rows], "-o", color=dark, label=f"{name} p50")
        left.plot(x, [r[who]["p99_ms"] for r in rows], "--", color=light, label=f"{name} p99")
    left.set_xscale("log")
    left.set_xticks(x)
    left.set_xticklabels([str(w) for w in x])
    left.minorticks_off()
    left.set(xlabel="open watchers", ylabel="ms", title="submit to delivery")
    left.legend(fontsize="small")
    idle = figures.get("idle_watchers")
    if idle is not None:
        dark, light = _pair(0)
        values = [idle["with_watchers"]["throughput"], idle["without"]["throughput"]]
        right.bar([f"{idle['watchers']} idle watchers", "none"], values, color=[dark, light])
        right.set(
            ylabel="SubmitAction calls/s",
            title=f"calls/s beside idle watchers ({idle['in_flight']} in flight)",
        )
    else:
        right.axis("off")
    return _save(fig, path)


def _save(fig: Any, path: Path) -> Path:
    import matplotlib.pyplot as plt

    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
