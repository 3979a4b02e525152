"""Child spans of a traced call, around the steps worth seeing: Redis reads and writes, rules.

The app layer knows nothing of OpenTelemetry's setup: :func:`span` is a no-op unless
:func:`trace_with` gave it a tracer (``engine_service.api.tracing`` does when tracing is
configured), so an untraced server pays one function call per step.
"""

from __future__ import annotations

import contextlib
from typing import Any, Protocol


class Tracer(Protocol):
    """What is used of an OpenTelemetry tracer."""

    def start_as_current_span(self, name: str) -> contextlib.AbstractContextManager[Any]:
        """A span named ``name``, child of the current one, current while entered."""
        ...


class _Current:
    """The process's tracer for child spans, if tracing is on."""

    tracer: Tracer | None = None


_NO_SPAN = contextlib.nullcontext()
_CURRENT = _Current()


def trace_with(tracer: Tracer | None) -> None:
    """Open spans on ``tracer`` from now on (``None``: none)."""
    _CURRENT.tracer = tracer


def span(name: str) -> contextlib.AbstractContextManager[Any]:
    """A child span of the current one named ``name``, or nothing when untraced."""
    tracer = _CURRENT.tracer
    return _NO_SPAN if tracer is None else tracer.start_as_current_span(name)
