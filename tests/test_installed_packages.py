"""The Python packages the suite runs on are exactly the ones uv.lock names.

`make setup` installs the lock with ``uv sync --frozen``; a package upgraded or added by hand,
or a lock changed without a new sync, would make a run test something the lock does not say.
``make test`` runs this first. uv itself answers, with ``uv sync --check``: it compares the
environment with the lock's selection for the extras, including what it would remove.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
UV = ROOT / ".tools" / "bin" / "uv"
EXTRA_SETS = (("dev",), ("dev", "bench"))
"""`make setup` installs the dev extra; `make bench` adds the bench extra to it."""


def sync_check(extras: tuple[str, ...], environment: Path) -> subprocess.CompletedProcess[str]:
    """``uv sync --check`` of ``environment`` against the lock with ``extras``."""
    flags = [arg for extra in extras for arg in ("--extra", extra)]
    return subprocess.run(
        [str(UV), "sync", "--frozen", "--check", "--offline", *flags],
        cwd=ROOT,
        env={
            **os.environ,
            "UV_PROJECT_ENVIRONMENT": str(environment),
            "UV_PYTHON_DOWNLOADS": "never",
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_installed_packages_are_the_locked_ones() -> None:
    assert UV.exists(), f"{UV} is missing: make setup installs it"
    environment = Path(sys.prefix)
    checks = {extras: sync_check(extras, environment) for extras in EXTRA_SETS}
    if not any(check.returncode == 0 for check in checks.values()):
        report = "\n".join(f"extras {e}:\n{c.stderr}" for e, c in checks.items())
        pytest.fail(f"{environment} differs from uv.lock (make setup syncs it):\n{report}")
