"""A card-game engine service: exact rules, seat-scoped views, game state kept in Redis.

Layers (each imports only those listed after it):
``api`` (gRPC) -> ``app`` (use cases) -> ``codec`` (protobuf <-> domain), ``store``
(Redis, bytes only) and ``games``/``bots``/``core`` (pure rules, no I/O).

The rules and the codec may be compiled with mypyc (``make compiled``: a ``.so`` beside each
``.py`` of ``core``, ``games``, ``bots`` and ``codec``), which Python then prefers.
``CARDENGINE_PURE=1`` makes every ``engine_service`` module load from its source instead, so
both builds stay testable from one tree; this module is never compiled, so the switch works
before any compiled module loads.
A compiled module older than its source (edited since the last build) switches the process to
the sources too, with a warning, so an edit is never tested against stale machine code.
"""

from __future__ import annotations

import importlib.machinery
import os
import sys
import warnings
from collections.abc import Sequence
from importlib.abc import MetaPathFinder
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from _typeshed import IdentityFunction

try:
    from mypy_extensions import mypyc_attr
except ImportError:  # an install without mypy: only the compiled build reads the marker

    def mypyc_attr(*_attrs: str, **_flags: object) -> IdentityFunction:
        """Stand-in for mypyc's class marker (``native_class=False``): leaves the class as is."""
        return lambda cls: cls


__all__ = ["PURE_ENV", "compiled_modules", "mypyc_attr", "pure", "stale_sources"]

PURE_ENV = "CARDENGINE_PURE"
"""Set to anything but ``""`` or ``"0"``: load ``engine_service`` from ``.py`` files only."""

COMPILED_PACKAGES = ("core", "games", "bots", "codec")
"""The subpackages ``build_compiled.py`` compiles."""

_SOURCES = (importlib.machinery.SourceFileLoader, importlib.machinery.SOURCE_SUFFIXES)


class _SourceFinder(MetaPathFinder):
    """Finds ``engine_service`` submodules among source files only, ignoring compiled ones."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        """The spec of the ``.py`` file (or package) for ``fullname``.

        ``None`` leaves the name to the other finders: names outside this package, namespace
        directories.
        """
        if path is None or not fullname.startswith(__name__ + "."):
            return None
        for entry in path:
            spec = importlib.machinery.FileFinder(entry, _SOURCES).find_spec(fullname, target)
            if spec is not None and spec.loader is not None:
                return spec
        return None


def pure() -> bool:
    """Whether this process loads ``engine_service`` from its sources only."""
    return os.environ.get(PURE_ENV, "") not in ("", "0")


def stale_sources() -> list[str]:
    """The sources edited since their ``.so`` was built (paths), empty when none or no build."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    stale = []
    for package in COMPILED_PACKAGES:
        for folder, _subfolders, files in os.walk(os.path.join(os.path.dirname(__file__), package)):
            for name in files:
                if not name.endswith(suffixes):
                    continue
                source = os.path.join(folder, name.split(".", 1)[0] + ".py")
                built = os.path.join(folder, name)
                if os.path.exists(source) and os.path.getmtime(source) > os.path.getmtime(built):
                    stale.append(source)
    return sorted(stale)


def compiled_modules() -> tuple[str, ...]:
    """The loaded ``engine_service`` modules that are extension modules (mypyc's), sorted.

    Logs and tests use it to tell which build a process really runs.
    """
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    return tuple(
        sorted(
            name
            for name, module in list(sys.modules.items())
            if name.startswith(__name__ + ".")
            and str(getattr(module, "__file__", "") or "").endswith(suffixes)
        )
    )


if not pure() and (_stale := stale_sources()):
    warnings.warn(
        f"{len(_stale)} source(s) newer than their compiled module (first: {_stale[0]}); "
        f"loading every engine_service module from source: run `make compiled`",
        RuntimeWarning,
        stacklevel=1,
    )
    os.environ[PURE_ENV] = "1"
if pure() and not any(isinstance(finder, _SourceFinder) for finder in sys.meta_path):
    sys.meta_path.insert(0, _SourceFinder())
