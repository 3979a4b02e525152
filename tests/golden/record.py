"""Record golden games: ``python -m tests.golden.record [--replay] [GAME...]`` (``make golden``).

Run it only after an intended rules change, and read the diff: every changed line is a change
in what some seat sees. Bots choose the moves here; the golden test never runs the bots, it
replays the recorded actions, so a change in a bot does not break the golden files.

``--replay`` keeps each file's recorded actions and writes their transcript again: for a
change in what a view shows, whose diff is then just the lines that show it (bots that have
changed since a game was recorded would otherwise play another game).
"""

from __future__ import annotations

import random
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from engine_service.games.guandan.config import CardCountVisibility, GuandanConfig
from engine_service.games.hearts.config import HeartsConfig
from engine_service.games.klaberjass.config import KlaberjassConfig
from engine_service.registry import REGISTRY
from tests.conformance.options import config_from_texts
from tests.golden.render import FORMATS, transcript

GOLDEN_DIR: Final = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Recording:
    """What to record for one game: the rules, the seed and the bot in every seat."""

    config: Any
    seed: int
    bot: str


RECORDINGS: Final = {
    # Target 40 keeps the file small (~140 KB). This game reaches 40 after four hands and plays
    # a fifth because a non-leader had a perfect hand (H-R15).
    # A whole match in seven deals (649 actions, ~290 KB): tribute, double tribute, returns, an
    # anti-tribute (G-R33) and counts hidden above ten cards (G-R23 option).
    "guandan": Recording(
        GuandanConfig(card_count_visibility=CardCountVisibility.TEN_OR_FEWER),
        seed=15,
        bot="heuristic",
    ),
    "hearts": Recording(HeartsConfig(target=40), seed=2024, bot="heuristic"),
    # The default game to 500: eight deals, two thrown in (K-R7), a dix swap (K-R11), bella
    # (K-R15) and two deals the maker lost (K-R20).
    "klaberjass": Recording(KlaberjassConfig(), seed=2046, bot="heuristic"),
}


STEP = re.compile(r"step (?P<number>\d+): seat (?P<seat>\d+) (?P<action>.+)")
OPTION = re.compile(r"option (?P<name>\w+)=(?P<text>\S+)")
SEED = re.compile(r"seed (?P<seed>-?\d+)")


def read_game(name: str, lines: list[str]) -> tuple[Any, int, list[tuple[int, Any]]]:
    """The config, seed and actions written in a golden file."""
    parse_action = FORMATS[name].parse_action
    options: dict[str, str] = {}
    seeds: list[int] = []
    actions: list[tuple[int, Any]] = []
    for line in lines:
        if match := OPTION.fullmatch(line):
            options[match["name"]] = match["text"]
        elif match := SEED.fullmatch(line):
            seeds.append(int(match["seed"]))
        elif match := STEP.fullmatch(line):
            assert int(match["number"]) == len(actions) + 1, f"steps out of order at {line!r}"
            actions.append((int(match["seat"]), parse_action(match["action"])))
    assert len(seeds) == 1, "a golden file names exactly one seed"
    return config_from_texts(REGISTRY[name].config_type, options), seeds[0], actions


def golden_path(name: str) -> Path:
    return GOLDEN_DIR / f"{name}.txt"


def play(name: str, recording: Recording) -> list[tuple[int, Any]]:
    """The actions of a game with ``recording.bot`` in every seat (simultaneous: lowest first)."""
    spec = REGISTRY[name]
    rules = spec.make_rules(recording.config)
    bot = spec.bots[recording.bot]
    rng = random.Random(recording.seed)
    state = rules.new_game(recording.seed)
    actions = []
    while seats := rules.current_seats(state):
        seat = seats[0]
        action = bot.choose(rules.view(state, seat), rules.legal_actions(state, seat), rng)
        actions.append((seat, action))
        state = rules.apply(state, seat, action)
    return actions


def main(names: list[str]) -> None:
    """Record the games named (every registered game when none is); ``--replay``: re-render."""
    replay = "--replay" in names
    for name in [n for n in names if n != "--replay"] or sorted(REGISTRY):
        if name not in RECORDINGS:
            raise SystemExit(f"no Recording for {name!r}: add one to RECORDINGS in {__file__}")
        path = golden_path(name)
        if replay:
            config, seed, actions = read_game(name, path.read_text(encoding="utf-8").splitlines())
            lines = transcript(name, config, seed, actions)
        else:
            recording = RECORDINGS[name]
            lines = transcript(name, recording.config, recording.seed, play(name, recording))
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"wrote {path}: {len(lines)} lines, {path.stat().st_size} bytes")


if __name__ == "__main__":
    main(sys.argv[1:])
