"""The mypyc build is what a server runs, and ``CARDENGINE_PURE=1`` runs the sources instead.

``make compiled`` (part of ``make setup``) writes a ``.so`` beside each compiled ``.py``; Python
prefers the ``.so``, so a passing suite proves little unless the server is known to load it.
The proof here is the operating system's: the shared objects a real ``python -m engine_service``
process has mapped (``/proc/<pid>/maps``), beside what ``engine_service.compiled_modules()``
reports in a fresh interpreter. Without a build (or with sources edited since it, which
``engine_service`` then ignores) the compiled half is skipped: ``make test`` always builds.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import engine_service
from engine_service.devtools.local import engine_command, free_port, redis_server, wait_serving

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "engine_service"
HEARTS_RULES = "engine_service.games.hearts.rules"
STARTUP_SECONDS = 30
PROBE = (
    "import json, engine_service.api.server, engine_service.registry, engine_service; "
    f"import {HEARTS_RULES} as rules; "
    "print(json.dumps([engine_service.compiled_modules(), rules.__file__]))"
)


def built() -> bool:
    return any((PACKAGE / "games" / "hearts").glob("rules.*.so"))


needs_build = pytest.mark.skipif(
    not built() or bool(engine_service.stale_sources()) or engine_service.pure(),
    reason="no current mypyc build (make compiled) or CARDENGINE_PURE is set",
)


def env(*, pure: bool) -> dict[str, str]:
    variables = {**os.environ, "ENGINE_LOG_LEVEL": "WARNING"}
    variables.pop(engine_service.PURE_ENV, None)
    if pure:
        variables[engine_service.PURE_ENV] = "1"
    return variables


def probe(*, pure: bool) -> tuple[list[str], str]:
    """What a fresh interpreter that imports the server reports: compiled modules, rules file."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        env=env(pure=pure),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    modules, rules_file = json.loads(done.stdout.strip().splitlines()[-1])
    return modules, rules_file


def process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants (the launcher may start children), from /proc's parents."""
    parents: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended meanwhile
            continue
        parents.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(parents.get(current, []))
    return found


def mapped_engine_objects(pid: int) -> set[str]:
    """The ``engine_service`` shared objects that ``pid`` or its children have mapped."""
    paths: set[str] = set()
    for member in process_tree(pid):
        try:
            maps = Path(f"/proc/{member}/maps").read_text()
        except OSError:  # the process ended meanwhile
            continue
        for line in maps.splitlines():
            path = line.split(maxsplit=5)[-1] if len(line.split()) == 6 else ""
            if path.startswith(str(PACKAGE)) and ".so" in path:
                paths.add(Path(path).relative_to(ROOT).as_posix())
    return paths


@contextlib.contextmanager
def serve(redis_url: str, *, pure: bool) -> Iterator[int]:
    """A real ``python -m engine_service`` on a free port; yields its PID, stops it by PID."""
    address = f"127.0.0.1:{free_port()}"
    process = subprocess.Popen(engine_command(address, redis_url), env=env(pure=pure), cwd=ROOT)
    try:
        wait_serving(address, process, STARTUP_SECONDS)
        yield process.pid
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


@pytest.fixture(scope="module")
def private_redis() -> Iterator[str]:
    with redis_server() as url:
        yield url


@needs_build
def test_import_loads_the_compiled_rules() -> None:
    modules, rules_file = probe(pure=False)
    assert HEARTS_RULES in modules
    assert "engine_service.games.guandan.rules" in modules
    assert "engine_service.games.klaberjass.rules" in modules
    assert "engine_service.bots.hearts_heuristic" in modules
    assert rules_file.endswith(".so")


def test_pure_mode_loads_no_compiled_module() -> None:
    modules, rules_file = probe(pure=True)
    assert modules == []
    assert rules_file.endswith("rules.py")


@needs_build
@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs Linux /proc")
def test_server_process_maps_the_compiled_rules(private_redis: str) -> None:
    with serve(private_redis, pure=False) as pid:
        mapped = mapped_engine_objects(pid)
        # The machine code of every compiled module is in the one shared library; each
        # module's own .so only starts it. The registry's specs load at startup.
        assert any(path.startswith("engine_service/rules__mypyc.") for path in mapped)
        for game in ("hearts", "guandan", "klaberjass"):
            assert any(path.startswith(f"engine_service/games/{game}/spec.") for path in mapped)


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs Linux /proc")
def test_pure_server_process_maps_no_compiled_module(private_redis: str) -> None:
    with serve(private_redis, pure=True) as pid:
        assert mapped_engine_objects(pid) == set()
