"""The packages install into clean virtual environments and work there.

Each route a user can take gets a fresh ``python -m venv``: the client by path, by a
``git+file://`` URL of a clone of this repository's HEAD (pip clones the whole repository and
builds ``clients/python``), from an sdist tarball and from a wheel; each then creates a Hearts
game on the real test server (``engine_address``) and reads a view. The server installed by
path into a clean venv must answer ``engine-service --help``. Dependencies come from one
wheelhouse built at the start (``--no-index --find-links``), so no test waits on an index.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "clients" / "python"
STEP_SECONDS = 240

pytestmark = [pytest.mark.slow, pytest.mark.service]

SCRIPT = """
import importlib.util, sys
from cardengine_client import EngineClient, format_cards
assert importlib.util.find_spec("cardengine.internal") is None, "internal stubs shipped"
with EngineClient(sys.argv[1]) as client:
    game = client.create_game("hearts", ["human", "random", "random", "random"], seed=7)
    view = client.view(game.game_id, seat=0, token=game.seat_tokens[0].token)
    print(format_cards(view.hearts.hand))
from cardengine.v1 import game_pb2
from cardengine_client.text import describe_event
event = game_pb2.GameEvent()
event.hearts.pass_made.seat = 2
assert describe_event(view, event, "de") == "Platz 2 hat die Karten zum Weitergeben gewählt"
"""
HAND = "3C 5C 7C 5D 6D TD JD 5S 7S 9S JS AS 4H"


def run(*args: str | Path, cwd: Path | None = None) -> str:
    done = subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=STEP_SECONDS,
        check=False,
    )
    assert done.returncode == 0, f"{args} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """A clone of HEAD: what a git install sees (uncommitted edits are not in it)."""
    target = tmp_path_factory.mktemp("clone") / "repo"
    run("git", "clone", "-q", "--no-hardlinks", ROOT, target)
    return target


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory, clone) -> Path:
    """Wheels of both packages, their dependencies and the build backend."""
    house = tmp_path_factory.mktemp("wheels")
    run(sys.executable, "-m", "pip", "wheel", "-q", "-w", house, clone / "clients/python", clone)
    run(sys.executable, "-m", "pip", "wheel", "-q", "-w", house, "setuptools>=68", "wheel")
    return house


def fresh_venv(where: Path) -> Path:
    venv.EnvBuilder(with_pip=True, clear=True).create(where)
    return where / "bin"


def install(bin_dir: Path, wheelhouse: Path, *targets: str | Path) -> None:
    run(bin_dir / "python", "-m", "pip", "install", "-q", "--no-index", "-f", wheelhouse, *targets)


def copy_of_client(tmp_path: Path) -> Path:
    """The working tree's client directory, without build leftovers."""
    junk = shutil.ignore_patterns("build", "*.egg-info", "__pycache__", "dist")
    return Path(shutil.copytree(CLIENT, tmp_path / "client", ignore=junk))


def check_client(bin_dir: Path, engine_address: str) -> None:
    assert run(bin_dir / "python", "-c", SCRIPT, engine_address).strip() == HAND


def test_client_by_path(tmp_path, wheelhouse, engine_address):
    bin_dir = fresh_venv(tmp_path / "venv")
    install(bin_dir, wheelhouse, copy_of_client(tmp_path))
    check_client(bin_dir, engine_address)


def test_client_by_git_url(tmp_path, wheelhouse, clone, engine_address):
    bin_dir = fresh_venv(tmp_path / "venv")
    install(bin_dir, wheelhouse, f"git+{clone.as_uri()}#subdirectory=clients/python")
    check_client(bin_dir, engine_address)


def test_client_from_sdist_and_wheel(tmp_path, wheelhouse, engine_address):
    source = copy_of_client(tmp_path)
    dist = tmp_path / "dist"
    build = "import sys; from setuptools import build_meta as b; print(b.build_sdist(sys.argv[1]))"
    sdist = dist / run(sys.executable, "-c", build, dist, cwd=source).strip().splitlines()[-1]
    assert sdist.name.endswith(".tar.gz")
    run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", dist, sdist)
    (wheel,) = dist.glob("cardengine_client-*.whl")
    for name, target in (("from-sdist", sdist), ("from-wheel", wheel)):
        bin_dir = fresh_venv(tmp_path / name)
        install(bin_dir, wheelhouse, target)
        check_client(bin_dir, engine_address)


def test_server_by_path(tmp_path, wheelhouse, clone):
    bin_dir = fresh_venv(tmp_path / "venv")
    install(bin_dir, wheelhouse, clone / "clients/python", clone)
    assert "usage" in run(bin_dir / "engine-service", "--help").lower()
    run(bin_dir / "python", "-c", "import engine_service.storage_pb.snapshot_pb2")
