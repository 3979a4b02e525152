"""``python -m bench.guandan_bots``: the Guandan heuristic team against a random team.

Each seed's first deal (level 2, no tribute, a seeded leader) is played twice: once with the
heuristic bots in seats 0 and 2 and the opponents in 1 and 3, once with the seats swapped,
so that neither team profits from where it sits. A deal is won by the team of its first
finisher (G-R24); every deal is played to its end. The bots are driven exactly as the
service drives them: ``bot.choose(rules.view(state, seat), rules.legal_actions(state, seat),
rng)``.

The script prints the heuristic team's deal win rate per seating and in total, the
heuristic bot's CPU milliseconds per decision (its ``choose`` call alone, this thread only,
so that other processes on a busy machine do not count), and deals per second for the whole
loop (rules, views and both bots), per wall-clock and per CPU second. Last, random full deals
per CPU second of the rules alone (four random bots, ``--random-deals`` seeded first deals).

``--whole-matches`` plays each seed's whole match instead and counts every deal: later deals
are played at other levels, with tribute and returns, but tribute favours the previous
deal's winners, so the first-deal figure is the fair one.

``--against cheapest`` plays against :class:`CheapestPlayBot` instead of random bots: a
yardstick for changes to the heuristic, which beats random play nearly always.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from engine_service.core.protocol import Bot
from engine_service.games.guandan.actions import GuandanAction, PassTurn, PlayCards, ReturnCard
from engine_service.games.guandan.cards import is_wild, rank_of, strength
from engine_service.games.guandan.ordering import key
from engine_service.games.guandan.rules import GuandanRules
from engine_service.games.guandan.state import partner_of, team_of
from engine_service.games.guandan.view import GuandanView
from engine_service.registry import REGISTRY

GuandanBot = Bot[GuandanView, GuandanAction]


class CheapestPlayBot:
    """The first, plan-free Guandan bot: always the cheapest ordinary play, never a bomb.

    It leads its cheapest play (no bomb, fewest wilds, lowest key, most cards), beats an
    opponent with its cheapest ordinary play, passes on its partner, and returns its weakest
    allowed card.
    """

    def choose(
        self, view: GuandanView, legal: Sequence[GuandanAction], rng: random.Random
    ) -> GuandanAction:
        """Pick by the rules in the class docstring."""
        returns = [a for a in legal if isinstance(a, ReturnCard)]
        if returns:
            return min(returns, key=lambda a: (strength(rank_of(a.card), view.level), a.card))

        def cost(play: PlayCards) -> tuple[bool, int, int, int]:
            wilds = sum(is_wild(k, view.level) for k in play.cards)
            shape = play.reading.shape
            return shape.is_bomb, wilds, key(play.reading, view.level), -len(play.cards)

        plays = [a for a in legal if isinstance(a, PlayCards)]
        if view.top is None:
            return min(plays, key=cost)
        ordinary = [p for p in plays if not p.reading.shape.is_bomb]
        if view.top.seat == partner_of(view.seat or 0) or not ordinary:
            return PassTurn()
        return min(ordinary, key=cost)


@dataclass
class Tally:
    """Deals won by the heuristic team, and the heuristic bot's decision times."""

    deals: int = 0
    won: int = 0
    decision_ms: list[float] = field(default_factory=list)


def play_deals(
    rules: GuandanRules,
    bots: list[GuandanBot],
    heuristic_team: int,
    seed: int,
    tally: Tally,
    *,
    whole_match: bool,
) -> None:
    """Play match ``seed``'s first deal (or all its deals) and record who won each deal."""
    rng = random.Random(seed)
    state = rules.new_game(seed)
    first: int | None = None
    while rules.outcome(state) is None:
        seat = rules.current_seats(state)[0]
        view = rules.view(state, seat)
        legal = rules.legal_actions(state, seat)
        started = time.thread_time()
        action = bots[seat].choose(view, legal, rng)
        if team_of(seat) == heuristic_team:
            tally.decision_ms.append((time.thread_time() - started) * 1000)
        deal = state.deal_number
        state = rules.apply(state, seat, action)
        if first is None and state.finished:
            first = state.finished[0]
        if state.deal_number != deal or rules.outcome(state) is not None:
            assert first is not None
            tally.deals += 1
            tally.won += team_of(first) == heuristic_team
            first = None
            if not whole_match:
                return


def random_deal_rate(rules: GuandanRules, deals: int) -> tuple[float, float]:
    """Deals per CPU second and µs per action of first deals played by four random bots."""
    random_bot = REGISTRY["guandan"].bots["random"]
    actions = 0
    started = time.process_time()
    for seed in range(deals):
        rng = random.Random(seed)
        state = rules.new_game(seed)
        while state.deal_number == 0 and rules.outcome(state) is None:
            seat = rules.current_seats(state)[0]
            legal = rules.legal_actions(state, seat)
            state = rules.apply(state, seat, random_bot.choose(None, legal, rng))
            actions += 1
    elapsed = time.process_time() - started
    return deals / elapsed, elapsed / actions * 1e6


def main() -> None:
    """Play the seeded deals in both seatings and print one table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1000, help="seeds (matches per seating)")
    parser.add_argument(
        "--whole-matches", action="store_true", help="count every deal of whole matches"
    )
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--against", choices=("random", "cheapest"), default="random")
    parser.add_argument("--random-deals", type=int, default=300, help="deals for the rules rate")
    args = parser.parse_args()
    spec = REGISTRY["guandan"]
    rules = spec.make_rules(spec.config_type())
    assert isinstance(rules, GuandanRules)
    heuristic = spec.bots["heuristic"]
    other = spec.bots["random"] if args.against == "random" else CheapestPlayBot()
    seatings = {
        "heuristic in seats 0+2": (0, [heuristic, other, heuristic, other]),
        "heuristic in seats 1+3": (1, [other, heuristic, other, heuristic]),
    }
    total = Tally()
    rows = []
    started, started_cpu = time.perf_counter(), time.process_time()
    for name, (team, bots) in seatings.items():
        tally = Tally()
        for seed in range(args.first_seed, args.first_seed + args.deals):
            play_deals(rules, bots, team, seed, tally, whole_match=args.whole_matches)
        rows.append((name, tally))
        total.deals += tally.deals
        total.won += tally.won
        total.decision_ms += tally.decision_ms
    elapsed, elapsed_cpu = time.perf_counter() - started, time.process_time() - started_cpu
    rows.append(("total", total))

    what = "every deal of whole matches" if args.whole_matches else "the first deal"
    print(f"## Guandan: heuristic team against {args.against} team, {what} of {args.deals} seeds")
    print("| seating | deals | won | win rate |")
    print("|---|---:|---:|---:|")
    for name, tally in rows:
        print(f"| {name} | {tally.deals} | {tally.won} | {tally.won / tally.deals:.1%} |")
    samples = sorted(total.decision_ms)
    p99 = samples[min(len(samples) - 1, int(0.99 * len(samples)))]
    print(
        f"\nheuristic decisions: {len(samples)}; CPU ms per decision: "
        f"mean {statistics.fmean(samples):.2f}, p99 {p99:.2f}, max {samples[-1]:.2f}"
    )
    print(
        f"deals/s, whole loop with rules, views and both teams: {total.deals / elapsed:.1f} "
        f"per wall second, {total.deals / elapsed_cpu:.1f} per CPU second"
    )
    rate, per_action = random_deal_rate(rules, args.random_deals)
    print(
        f"random full deals, rules alone, one core: {rate:.1f} per CPU second "
        f"({per_action:.1f} µs per action, {args.random_deals} deals)"
    )


if __name__ == "__main__":
    main()
