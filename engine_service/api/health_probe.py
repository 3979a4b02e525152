"""The server's health status follows its Redis: NOT_SERVING while Redis does not answer.

A server whose Redis is gone can only answer UNAVAILABLE, so a load balancer or an
orchestrator should send its traffic elsewhere; the standard gRPC health service is what they
ask. One small task per process PINGs Redis every ``interval`` seconds (waiting at most that
long for the answer) and sets the engine service and the whole server (``""``) NOT_SERVING
when a PING fails, SERVING again when one succeeds. A draining server stays NOT_SERVING
(:meth:`HealthServicer.enter_graceful_shutdown` makes later changes no-ops).

The PING goes through the store's own client, so it sees what calls see (a Sentinel's current
master, a cluster's nodes) and costs one round trip per interval.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Final

from grpc_health.v1 import health_pb2
from grpc_health.v1._async import HealthServicer

from engine_service.store.failures import storage_trouble

SERVING: Final = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING: Final = health_pb2.HealthCheckResponse.NOT_SERVING
log = logging.getLogger(__name__)


class RedisHealth:
    """Keeps ``services``' health status in step with whether ``ping`` succeeds."""

    def __init__(
        self,
        health: HealthServicer,
        ping: Callable[[], Awaitable[object]],
        services: Sequence[str],
        interval: float,
    ) -> None:
        self._health = health
        self._ping = ping
        self._services = tuple(services)
        self._interval = interval
        self._serving: bool | None = None
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    @property
    def serving(self) -> bool:
        """Whether the last PING succeeded."""
        return bool(self._serving)

    async def probe(self) -> bool:
        """PING once and set the status from the answer; whether Redis answered."""
        reached, trouble = True, ""
        try:
            await asyncio.wait_for(self._ping(), self._interval)
        except TimeoutError:
            reached, trouble = False, "TIMEOUT"
        except Exception as error:  # any failure to answer a PING means not serving
            reached, trouble = False, storage_trouble(error) or type(error).__name__
        if reached != self._serving:
            if reached:
                log.info("Redis answers again: SERVING")
            else:
                log.warning("Redis does not answer: NOT_SERVING", extra={"trouble": trouble})
            status = SERVING if reached else NOT_SERVING
            for service in self._services:
                await self._health.set(service, status)
        self._serving = reached
        return reached

    async def _run(self) -> None:
        # Not ``while True``: on Python 3.11 ``asyncio.wait_for`` swallows a cancellation
        # that arrives as the PING is answered, and the task would then PING on for ever
        # and :meth:`stop` (and so the drain) would never end.
        while not self._stopping:
            await self.probe()
            if not self._stopping:
                await asyncio.sleep(self._interval)

    def start(self) -> None:
        """PING on the interval in a task of this loop, until :meth:`stop`."""
        self._task = asyncio.create_task(self._run(), name="redis-health")

    async def stop(self) -> None:
        """End the task."""
        self._stopping = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
