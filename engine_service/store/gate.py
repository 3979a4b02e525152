"""The closing gate a store's writes pass: after it closes, a write is refused before it is sent.

A draining server (:mod:`engine_service.api.drain`) closes its store's gate shortly before the
grace period ends. A call still running then is told UNAVAILABLE (``SHUTTING_DOWN``), and a
client retries UNAVAILABLE on the understanding that nothing was done, so that call must not
write afterwards: its write checks the gate first and raises instead.

The gate closes at a time rather than by an event, so a call whose bot play kept the event loop
busy past that time finds it closed even if no callback could run meanwhile.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from engine_service.core.errors import ShuttingDown


class WriteGate:
    """Open until :meth:`close_at`'s time (by ``clock``, monotonic seconds), closed after."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._closes_at = math.inf

    @property
    def closes_at(self) -> float:
        """When writes stop being taken (``inf``: never, so far)."""
        return self._closes_at

    def close_at(self, when: float) -> None:
        """Refuse writes from ``when`` on; an earlier closing time already set stays."""
        self._closes_at = min(self._closes_at, when)

    def check(self) -> None:
        """Raise ShuttingDown once the gate has closed; a write calls this just before sending.

        >>> gate = WriteGate(clock=lambda: 5.0)
        >>> gate.check()
        >>> gate.close_at(5.0)
        >>> gate.check()
        Traceback (most recent call last):
        ...
        engine_service.core.errors.ShuttingDown: the server is stopping; nothing was written
        """
        if self._clock() >= self._closes_at:
            raise ShuttingDown("the server is stopping; nothing was written")
