"""How much a volume test plays: a quick share in ``make test``, the full run in ``make test-deep``.

Some tests add confidence only by playing more (more seeded games, more Hypothesis examples,
longer fault scenarios). ``make test`` runs them at a volume that still reaches every branch
they check, so that a contributor hears back in minutes; ``make test-deep`` sets
``CARDENGINE_DEEP=1`` and runs the same tests at the full volume, the quick run's seeds
included. Such tests carry the ``volume`` marker, so ``make test-deep`` can pick them out;
tests only worth running at length carry ``deep`` and are left out of ``make test``.
"""

from __future__ import annotations

import os

DEEP_ENV = "CARDENGINE_DEEP"


def deep() -> bool:
    """Whether this run is ``make test-deep``'s."""
    return os.environ.get(DEEP_ENV) == "1"


def volume(quick: int, full: int) -> int:
    """``full`` in a deep run, ``quick`` otherwise."""
    return full if deep() else quick
