"""The steps a process's watchers share (engine_service.app.shared_steps) are never another's.

A kept step serves a watcher only when it stands on the same record (the object, or an equal
one) and reads the same entry of the same version; a watcher on another history (a different
entry at that version, as after a failover's rollback, or a different record) applies its
entry itself. Records stand in as tuples here: the keeping only compares and returns them.
"""

from __future__ import annotations

from typing import cast

from engine_service.app.shared_steps import SharedSteps
from engine_service.codec.record import LoggedAction
from engine_service.core.record import GameRecord


class Counted:
    """An ``apply`` that counts its calls and makes ``(before, entry)``."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, before: GameRecord, entry: bytes) -> tuple[LoggedAction, GameRecord]:
        self.calls += 1
        return LoggedAction(0, entry, 1), record(before, entry)


def record(*parts: object) -> GameRecord:
    return cast(GameRecord, tuple(parts))


def test_watchers_on_the_same_record_and_entry_share_one_step() -> None:
    steps, apply = SharedSteps(), Counted()
    first = steps.apply("g", 5, record("four"), b"move", apply)
    equal_but_apart = steps.apply("g", 5, record("four"), b"move", apply)
    assert apply.calls == 1
    assert equal_but_apart[1] is first[1]  # taken: from now on the watchers share records
    steps.apply("g", 6, first[1], b"next", apply)
    steps.apply("g", 6, equal_but_apart[1], b"next", apply)
    assert apply.calls == 2


def test_another_history_applies_its_own_entry() -> None:
    steps, apply = SharedSteps(), Counted()
    kept = steps.apply("g", 5, record("four"), b"move", apply)
    rolled_back = steps.apply("g", 5, record("four"), b"another move", apply)
    other_record = steps.apply("g", 5, record("four, elsewhere"), b"move", apply)
    other_game = steps.apply("h", 5, record("four"), b"move", apply)
    other_version = steps.apply("g", 6, record("four"), b"move", apply)
    assert apply.calls == 5
    assert rolled_back[1] == record(record("four"), b"another move") != kept[1]
    assert other_record[1] == record(record("four, elsewhere"), b"move")
    assert other_game[1] == other_version[1] == kept[1]  # equal, each made anew


def test_the_least_recently_stepped_game_goes_first() -> None:
    steps, apply = SharedSteps(capacity=2), Counted()
    for game in "abc":
        steps.apply(game, 1, record(game), b"move", apply)
    steps.apply("c", 1, record("c"), b"move", apply)
    steps.apply("a", 1, record("a"), b"move", apply)
    assert apply.calls == 4  # "c" was kept, "a" was not
