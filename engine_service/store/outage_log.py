"""What a loop that keeps meeting a storage outage says about it: a start, reminders, an end.

The timer loop tries the storage 20 times a second and the event feed reconnects twice a
second; logging each failure wrote megabytes of tracebacks per minute while Redis was down.
An :class:`OutageLog` says that the storage is unavailable once, again every
``remind_seconds`` with how long and how many failures, and once that it is back.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

log = logging.getLogger(__name__)
REMIND_SECONDS: Final = 60.0
"""How often an outage is told again while it lasts."""


@dataclass
class OutageLog:
    """One loop's words about storage outages.

    Attributes:
        subject: who speaks, first in each line (e.g. ``timer loop``).
        remind_seconds: how long after the last line about an outage it is told again.
        clock: seconds on a monotonic clock (a parameter, so that a test need not wait).
    """

    subject: str
    remind_seconds: float = REMIND_SECONDS
    clock: Callable[[], float] = time.monotonic
    _since: float | None = field(default=None, init=False)
    _told: float = field(default=0.0, init=False)
    _failures: int = field(default=0, init=False)

    def failed(self, trouble: str) -> None:
        """A try failed for storage ``trouble`` (e.g. ``CONNECTION``): a line now and then."""
        now = self.clock()
        if self._since is None:
            self._since, self._told, self._failures = now, now, 1
            log.warning(f"{self.subject}: storage unavailable", extra={"trouble": trouble})
            return
        self._failures += 1
        if now - self._told >= self.remind_seconds:
            self._told = now
            log.warning(
                f"{self.subject}: storage still unavailable",
                extra={
                    "trouble": trouble,
                    "seconds": round(now - self._since, 1),
                    "failures": self._failures,
                },
            )

    def succeeded(self) -> None:
        """A try reached the storage: when an outage was told, tell that it is over."""
        if self._since is None:
            return
        seconds, self._since = round(self.clock() - self._since, 1), None
        log.info(
            f"{self.subject}: storage back", extra={"seconds": seconds, "failures": self._failures}
        )
