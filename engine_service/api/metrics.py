"""Prometheus metrics of the EngineService, gathered around each method's handler.

:func:`metered` wraps each handler function where the handlers are registered for both
ports (:func:`engine_service.api.wire.method_behaviours`), outside the servicer, so the
handlers stay unaware of metrics, calls on the web port count as those on the gRPC port do,
and a server built without a metrics port pays nothing. It records, per EngineService call:

* ``cardengine_rpc_duration_seconds{method}``: a latency histogram per RPC.
* ``cardengine_actions_total{game_type, actor}``: actions applied by accepted ``CreateGame``
  and ``SubmitAction`` calls, the seat's own (``actor="human"``) and the bots' replies
  (``actor="bot"``), read from the version the reply shows. A retry answered from the
  idempotency record counts again.
* ``cardengine_rejections_total{method, code, reason}``: calls that ended with a non-OK
  status, by gRPC code and ``ErrorInfo`` reason (``errors.proto``, plus
  ``STORAGE_UNAVAILABLE``, ``STORAGE_FULL`` and ``INTERNAL``).
* ``cardengine_active_games``: games that this process created or moved within the last
  :data:`ACTIVE_WINDOW_SECONDS` and that were not over after that call. Counted in memory,
  so it costs no Redis call; each replica counts the games it served, so the sum over
  replicas counts a game once per replica that moved it in the window (gRPC connections
  are long-lived, so a player's calls mostly stay on one replica).

:func:`exporter` serves them, with the process collectors, as text on an HTTP port.
"""

from __future__ import annotations

import contextlib
import inspect
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, Final

import grpc
from cardengine.v1 import game_pb2
from google.rpc import error_details_pb2, status_pb2
from prometheus_client import REGISTRY, Counter, Gauge, Histogram, start_http_server

ACTIVE_WINDOW_SECONDS: Final = 300.0
"""A game counts as active this long after its last create or move."""

_STATUS_DETAILS_KEY: Final = "grpc-status-details-bin"
_LATENCY_BUCKETS: Final = (
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
)  # fmt: skip

RPC_DURATION = Histogram(
    "cardengine_rpc_duration_seconds",
    "Time spent in an EngineService call, by RPC.",
    ["method"],
    buckets=_LATENCY_BUCKETS,
)
ACTIONS = Counter(
    "cardengine_actions",
    "Actions applied, by game type and by who chose them (human seat or bot).",
    ["game_type", "actor"],
)
REJECTIONS = Counter(
    "cardengine_rejections",
    "EngineService calls that ended with a non-OK status, by RPC, code and ErrorInfo reason.",
    ["method", "code", "reason"],
)


class ActiveGames:
    """Game ids last created or moved within a sliding window, with their time of touch."""

    def __init__(self, window_seconds: float, clock: Callable[[], float] = time.monotonic):
        self._window = window_seconds
        self._clock = clock
        self._touched: dict[str, float] = {}
        self._lock = threading.Lock()

    def touch(self, game_id: str, *, over: bool) -> None:
        """Record a create or move; a game that is over stops counting at once."""
        with self._lock:
            if over:
                self._touched.pop(game_id, None)
            else:
                self._touched[game_id] = self._clock()

    def count(self) -> int:
        """The number of games touched within the window (forgets the older ones)."""
        oldest = self._clock() - self._window
        with self._lock:
            self._touched = {game: at for game, at in self._touched.items() if at >= oldest}
            return len(self._touched)


ACTIVE_GAMES = ActiveGames(ACTIVE_WINDOW_SECONDS)
Gauge(
    "cardengine_active_games",
    f"Games this process created or moved in the last {ACTIVE_WINDOW_SECONDS:.0f} s and not over.",
).set_function(ACTIVE_GAMES.count)


def _reason_of(context: Any) -> str:
    """The ErrorInfo reason in the status details the servicer attached, or ``UNKNOWN``."""
    for key, value in context.trailing_metadata() or ():
        if key == _STATUS_DETAILS_KEY and isinstance(value, bytes):
            for detail in status_pb2.Status.FromString(value).details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    return str(info.reason)
    return "UNKNOWN"


def _count_accepted(method: str, request: Any, reply: Any) -> None:
    """Count the actions an accepted call applied (from the versions) and touch its game."""
    if method == "CreateGame":
        game_type, game_id, before_bots = request.game_type, reply.game_id, 1
    elif method == "SubmitAction":
        game_type, game_id = request.action.WhichOneof("game"), request.game_id
        ACTIONS.labels(game_type, "human").inc()
        before_bots = request.expected_version + 1
    else:
        return
    bots = reply.view.version - before_bots
    if bots > 0:
        ACTIONS.labels(game_type, "bot").inc(bots)
    ACTIVE_GAMES.touch(game_id, over=reply.view.status == game_pb2.GAME_STATUS_FINISHED)


def _record(method: str, request: Any, reply: Any, context: Any) -> None:
    if reply is not None:
        _count_accepted(method, request, reply)
        return
    code = context.code()
    code_name = code.name if isinstance(code, grpc.StatusCode) else "UNKNOWN"
    REJECTIONS.labels(method, code_name, _reason_of(context)).inc()


def metered(method: str, behaviour: Callable[..., Any]) -> Callable[..., Any]:
    """``method``'s unary ``behaviour`` with its calls timed and counted; a stream's as it is.

    The call's status is read from its context after the servicer aborted: both the gRPC
    context and the web port's keep the code and the trailing metadata (the details).
    """
    if inspect.isasyncgenfunction(behaviour):
        return behaviour
    latency = RPC_DURATION.labels(method)

    async def observed(request: Any, context: Any) -> Any:
        started = time.perf_counter()
        reply = None
        try:
            reply = await behaviour(request, context)
            return reply
        finally:
            latency.observe(time.perf_counter() - started)
            _record(method, request, reply, context)

    return observed


@contextlib.contextmanager
def exporter(grpc_address: str, port: int) -> Iterator[None]:
    """Serve the metrics over HTTP on ``port``, on the host of ``grpc_address``, until exit.

    Raises:
        OSError: the port cannot be bound (e.g. another process on this host uses it).
    """
    host = grpc_address.rsplit(":", 1)[0].strip("[]")
    try:
        server, thread = start_http_server(port, addr=host, registry=REGISTRY)
    except OSError as error:
        advice = "give each process on a host its own --metrics-port (ENGINE_METRICS_PORT), or 0"
        message = f"metrics on {host}:{port}: {error.strerror}; {advice}"
        raise OSError(error.errno, message) from error
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
