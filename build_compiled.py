"""Compile the pure code (core, games, bots, codec) with mypyc, in place: a ``.so`` per ``.py``.

Why: the rules loop (legal actions, apply, view) is the CPU cost of every move and of every
bot game, and the codec (snapshot in and out, the reply's view) is most of the rest of a
call's own work; mypyc turns the typed modules into C extensions that run the same code
faster. The
``.py`` files stay the source of truth: ``CARDENGINE_PURE=1`` loads them instead (see
``engine_service/__init__.py``), and ``make clean`` removes what this writes.

Run by ``make compiled`` (part of ``make setup``): ``python build_compiled.py``. Excluded
modules, each with the reason mypyc cannot take it, are in :data:`EXCLUDED`; package
``__init__`` modules stay plain too (a compiled in-place ``__init__`` gets a wrong ``__path__``
and then finds none of its submodules; they hold docstrings and registries, no hot code).
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

from mypyc.build import mypycify
from setuptools import setup  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parent
PACKAGES = (
    "engine_service/core",
    "engine_service/games",
    "engine_service/bots",
    "engine_service/codec",
)
GROUP = "engine_service.rules"
"""The shared library every compiled module links into (``engine_service/rules__mypyc*.so``)."""

EXCLUDED: dict[str, str] = {
    # A Generic slots dataclass: at import mypyc's class setup writes __dict__ of the type,
    # which CPython refuses ("attribute '__dict__' of 'type' objects is not writable").
    "engine_service/core/protocol.py": "Generic slots dataclass GameSpec fails at import",
    # Compiled, PassChoices(Sequence) shares Sequence's ABC registry, so isinstance((),
    # PassChoices) holds; as a non-native class it meets a metaclass conflict.
    "engine_service/games/hearts/pass_choices.py": "PassChoices, a Sequence, breaks isinstance",
    # Compiled, an error subclass that only overrides the class attribute ``reason`` (and
    # VersionExpired, AlreadyExists...) has no ``reason`` on its instances: AttributeError
    # where a status is built. Errors are raised once per refused call, never in a hot loop.
    "engine_service/core/errors.py": "subclasses' class attribute reason is lost on instances",
}


def sources() -> list[str]:
    """Every module to compile, relative to the repository root, in a stable order."""
    found = sorted(
        path.relative_to(ROOT).as_posix()
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
    )
    return [path for path in found if path not in EXCLUDED and not path.endswith("/__init__.py")]


LIB = ROOT / "build" / "compiled-lib"
"""Where setuptools links the extensions before :func:`install` moves them beside the sources."""


def install(started: float) -> None:
    """Put each built ``.so`` beside its source by rename, never by writing over the old one.

    Those of modules this build left out (now :data:`EXCLUDED`) are removed, so their sources
    load. A running server (or test) has the old file mapped; truncating it in place would crash
    that process, while a rename leaves its mapping intact. Unchanged files are not touched
    beyond their time: each is dated to when this build began, since ``engine_service``
    compares every ``.so`` with its ``.py`` to spot edits made since.
    """
    built_now = {ROOT / built.relative_to(LIB) for built in LIB.glob("engine_service/**/*.so")}
    for left in {path for path in (ROOT / "engine_service").rglob("*.so")} - built_now:
        left.unlink()
    for built in LIB.glob("engine_service/**/*.so"):
        target = ROOT / built.relative_to(LIB)
        if not target.exists() or target.read_bytes() != built.read_bytes():
            staging = target.with_name(target.name + ".new")
            shutil.copyfile(built, staging)
            os.replace(staging, target)
        os.utime(target, (started, started))


def up_to_date() -> bool:
    """Whether every module of :func:`sources` has a compiled module newer than its source.

    ``make run`` may have a build going in the background when ``make test`` asks for one;
    the second (after the first, under ``make``'s lock) then has nothing to do.
    """
    this = Path(__file__).stat().st_mtime  # a change here (the flags, say) builds again
    for source in sources():
        path = ROOT / source
        built = list(path.parent.glob(path.stem + ".*.so"))
        if not built or built[0].stat().st_mtime < max(path.stat().st_mtime, this):
            return False
    return True


def main() -> None:
    """Build every module of :func:`sources` with up to four compile jobs, then install.

    ``--if-stale`` first: nothing to do when :func:`up_to_date`.
    """
    os.chdir(ROOT)
    if "--if-stale" in sys.argv:
        sys.argv.remove("--if-stale")
        if up_to_date():
            print("the compiled rules are up to date")
            return
    started = time.time()
    shutil.rmtree(LIB, ignore_errors=True)  # only this build's outputs are installed
    jobs = str(max(1, min(4, os.cpu_count() or 1)))
    setup(
        name="engine-service-compiled",
        packages=[],
        py_modules=[],
        ext_modules=mypycify(sources(), opt_level="3", group_name=GROUP),
        script_args=[
            "-q",
            "build_ext",
            "--build-lib",
            str(LIB),
            "--parallel",
            jobs,
            *sys.argv[1:],
        ],
    )
    install(started)


if __name__ == "__main__":
    main()
