"""``python -m bench.tournament``: every tournament within a time bound, and the goals.

The bound (``--seconds``, wall time) is shared out between the four tournaments; one that
finishes early leaves its time to the next. A tournament cut short reports the hands it
played, and its goal says how many were missing. ``--quick`` plays a few hands of each.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from bench.tournament import hearts, spiel, teams
from bench.tournament.report import Goal, Section, goal_lines, write_markdown
from bench.tournament.runner import run_bounded
from bench.tournament.seats import HEURISTIC, SEARCH, resolve
from bench.tournament.stats import estimate, timing_text
from engine_service.registry import REGISTRY

HEARTS_HANDS_GOAL = 400
GUANDAN_DEALS_GOAL = 400
KLABERJASS_GAMES_GOAL = 200
SHARES = (0.4, 0.25, 0.2, 0.15)
"""Parts of the time bound: Hearts (a), Hearts (b), Guandan, Klaberjass."""


def _parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a few hands of each (smoke run)")
    parser.add_argument("--hearts-deals", type=int, default=100, help="deals, 4 hands each")
    parser.add_argument("--guandan-seeds", type=int, default=200, help="seeds, 2 deals each")
    parser.add_argument("--klaberjass-seeds", type=int, default=100, help="seeds, 2 games each")
    parser.add_argument("--seconds", type=float, default=5400.0, help="wall-time bound")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes")
    parser.add_argument("--ms-per-move", type=float, default=50.0, help="ISMCTS CPU target")
    parser.add_argument("--ismcts-sims", type=int, default=0, help="0: calibrate to the target")
    parser.add_argument("--uct-c", type=float, default=2.0, help="ISMCTS exploration constant")
    parser.add_argument("--search-budget", type=int, default=None, help="our playouts per move")
    parser.add_argument("--only", default="hearts,guandan,klaberjass", help="games to run")
    parser.add_argument("--output", type=Path, default=Path("results/tournament.md"))
    args = parser.parse_args()
    if args.quick:
        args.hearts_deals, args.guandan_seeds, args.klaberjass_seeds = 2, 3, 2
    return args


def _kinds_note() -> list[str]:
    return [
        f"the `search` bot is not registered for {game} yet: the heuristic stands in for it"
        for game, spec in REGISTRY.items()
        if resolve(spec, SEARCH) != SEARCH
    ]


def _times(section: Section, times: dict[str, list[float]]) -> None:
    for kind in sorted(times):
        section.add(f"decision CPU time, {kind}: {timing_text(times[kind])}")


def _merge(blocks: list[dict[str, list[float]]]) -> dict[str, list[float]]:
    merged: dict[str, list[float]] = {}
    for times in blocks:
        for kind, values in times.items():
            merged.setdefault(kind, []).extend(values)
    return merged


def hearts_alone(args: argparse.Namespace, settings: hearts.Settings, deadline: float) -> Section:
    """(a) our search bot alone among three ISMCTS bots."""
    section = Section("Hearts (a): search bot alone among three OpenSpiel ISMCTS bots")
    play = partial(hearts.play_block, lineup=(SEARCH, hearts.ISMCTS), settings=settings)
    blocks = run_bounded(play, args.hearts_deals, args.jobs, deadline)
    hands = 4 * len(blocks)
    diff = estimate([b.hero_minus_others for b in blocks])
    ours = estimate([sum(b.hero) / 4 for b in blocks])
    theirs = estimate([sum(b.others) / 4 for b in blocks])
    section.add(f"hands: {hands} ({len(blocks)} deals x 4 rotations)")
    section.add(f"search points per hand: {ours.text()}")
    section.add(f"ISMCTS points per hand (their average): {theirs.text()}")
    section.add(f"search minus ISMCTS average, per hand: {diff.text()} (95% CI, per deal)")
    section.add(f"moons shot: {sum(b.moons for b in blocks)}")
    _times(section, _merge([b.times_ms for b in blocks]))
    met = hands >= HEARTS_HANDS_GOAL and diff.mean <= -1.0
    gap = f"{diff.text()} points per hand over {hands} hands"
    section.goals.append(Goal("Hearts: search >= 1.0 point per hand under ISMCTS", met, gap))
    return section


def hearts_among_heuristics(
    args: argparse.Namespace, settings: hearts.Settings, deadline: float
) -> Section:
    """(b) search among three heuristics against ISMCTS among the same, on the same deals."""
    section = Section("Hearts (b): search or ISMCTS alone among three heuristics, same deals")
    half = time.monotonic() + (deadline - time.monotonic()) / 2
    lineups = ((SEARCH, HEURISTIC), (hearts.ISMCTS, HEURISTIC))
    runs = [
        run_bounded(
            partial(hearts.play_block, lineup=lineup, settings=settings),
            args.hearts_deals,
            args.jobs,
            half if lineup[0] == SEARCH else deadline,
        )
        for lineup in lineups
    ]
    deals = min(len(run) for run in runs)
    search, ismcts = runs[0][:deals], runs[1][:deals]
    margin_search = estimate([-b.hero_minus_others for b in search])
    margin_ismcts = estimate([-b.hero_minus_others for b in ismcts])
    edge = estimate(
        [-s.hero_minus_others + i.hero_minus_others for s, i in zip(search, ismcts, strict=True)]
    )
    section.add(f"hands: {4 * deals} per side ({deals} deals x 4 rotations)")
    section.add(f"search: heuristics' average minus search, per hand: {margin_search.text()}")
    section.add(f"ISMCTS: heuristics' average minus ISMCTS, per hand: {margin_ismcts.text()}")
    section.add(f"search's margin minus ISMCTS's margin (paired by deal): {edge.text()}")
    _times(section, _merge([b.times_ms for b in search + ismcts]))
    met = deals > 0 and edge.mean > 0
    section.goals.append(
        Goal("Hearts: search beats the heuristics by more than ISMCTS does", met, edge.text())
    )
    return section


def _pairs(
    title: str,
    pair: Callable[[int], teams.Pair],
    count: int,
    unit: str,
    goal: int,
    args: argparse.Namespace,
    deadline: float,
) -> Section:
    section = Section(title)
    pairs = run_bounded(pair, count, args.jobs, deadline)
    played = 2 * len(pairs)
    rate = estimate([p.score for p in pairs])
    section.add(f"{unit}: {played} ({len(pairs)} seeds x 2 seatings)")
    section.add(f"search win rate: {rate.text(percent=True)} (95% CI, per seed)")
    section.add(f"heuristic win rate: {100 - rate.mean * 100:.1f}%")
    _times(section, _merge([p.times_ms for p in pairs]))
    met = played >= goal and rate.mean >= 0.6
    detail = f"{rate.text(percent=True)} over {played} {unit}"
    section.goals.append(
        Goal(f"{title.split(':', maxsplit=1)[0]}: search wins >= 60% of {unit}", met, detail)
    )
    return section


def main() -> None:
    """Run the tournaments, print them and the goals, write ``--output``."""
    args = _parse()
    started = time.monotonic()
    games = set(args.only.split(","))
    cumulative = [sum(SHARES[: i + 1]) for i in range(len(SHARES))]
    deadlines = [started + share * args.seconds for share in cumulative]
    notes = _kinds_note()
    header = [f"- bound: {args.seconds:.0f} s wall, {args.jobs} processes"]
    sections: list[Section] = []
    if "hearts" in games:
        sims = args.ismcts_sims or spiel.calibrate(args.ms_per_move)
        settings = hearts.Settings(sims, args.uct_c, args.search_budget)
        header.append(
            f"- ISMCTS: {sims} simulations per decision (about {args.ms_per_move:.0f} ms of "
            f"CPU here), random rollouts, UCT c = {args.uct_c}, max-visit final policy"
        )
        header.append(f"- OpenSpiel Hearts parameters: {spiel.SPIEL_PARAMETERS}")
        notes += list(spiel.DIFFERENCES)
        for build, deadline in (
            (hearts_alone, deadlines[0]),
            (hearts_among_heuristics, deadlines[1]),
        ):
            print(build.__doc__, flush=True)
            sections.append(build(args, settings, deadline))
    if "guandan" in games:
        print("Guandan: a search team against a heuristic team", flush=True)
        pair = partial(teams.guandan_pair, budget=args.search_budget)
        title = "Guandan: two search bots against two heuristics, first deals"
        sections.append(
            _pairs(title, pair, args.guandan_seeds, "deals", GUANDAN_DEALS_GOAL, args, deadlines[2])
        )
    if "klaberjass" in games:
        print("Klaberjass: search against heuristic, games to 500", flush=True)
        pair = partial(teams.klaberjass_pair, budget=args.search_budget)
        title = "Klaberjass: search against heuristic, games to 500"
        sections.append(
            _pairs(
                title,
                pair,
                args.klaberjass_seeds,
                "games",
                KLABERJASS_GAMES_GOAL,
                args,
                deadlines[3],
            )
        )
    header.append(f"- took {time.monotonic() - started:.0f} s")
    print("Goals:")
    for line in goal_lines(sections):
        print(line)
    for note in notes:
        print(f"note: {note}")
    write_markdown(args.output, header, sections, notes)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
