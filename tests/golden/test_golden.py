"""Replay each recorded golden game through the current rules and diff the text line by line.

A difference means the rules or a view changed. If the change is intended, run ``make golden``
and review the diff of ``tests/golden/*.txt``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from engine_service.registry import REGISTRY
from tests.conformance.options import config_from_texts
from tests.golden.record import golden_path
from tests.golden.render import FORMATS, transcript

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


def first_difference(expected: list[str], actual: list[str]) -> str | None:
    """The first differing line, as a message, or ``None`` when both texts are equal."""
    for number, (want, got) in enumerate(zip(expected, actual, strict=False), 1):
        if want != got:
            return f"line {number} differs:\n  golden: {want}\n  now:    {got}"
    if len(expected) != len(actual):
        return f"golden has {len(expected)} lines, the replay {len(actual)}"
    return None


def golden_lines(name: str) -> list[str]:
    path: Path = golden_path(name)
    if not path.exists():
        pytest.fail(f"no golden file for {name!r}: add it to RECORDINGS and run `make golden`")
    return path.read_text(encoding="utf-8").splitlines()


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_registered_game_has_a_golden_format(name: str) -> None:
    assert name in FORMATS, f"add a GameFormat for {name!r} to tests/golden/render.py"


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_golden_game_replays_to_the_same_text(name: str) -> None:
    expected = golden_lines(name)
    config, seed, actions = read_game(name, expected)
    difference = first_difference(expected, transcript(name, config, seed, actions))
    assert difference is None, f"{name}: {difference}\n(intended? run `make golden`)"


def test_first_difference_points_at_the_line() -> None:
    assert first_difference(["a", "b"], ["a", "b"]) is None
    assert "line 2 differs" in (first_difference(["a", "b"], ["a", "c"]) or "")
    assert "2 lines, the replay 1" in (first_difference(["a", "b"], ["a"]) or "")
