"""Replay each recorded golden game through the current rules and diff the text line by line.

A difference means the rules or a view changed. If the change is intended, run ``make golden``
and review the diff of ``tests/golden/*.txt``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine_service.registry import REGISTRY
from tests.golden.record import golden_path, read_game
from tests.golden.render import FORMATS, transcript


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
