"""Service settings from command-line flags, falling back to ENGINE_* environment variables."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine_service.app.play import REQUEST_BUDGET, SLICE_BUDGET
from engine_service.app.search_budgets import parse_search_budgets
from engine_service.app.seats import KeySpecError, ServiceKeys
from engine_service.registry import REGISTRY


@dataclass(frozen=True, slots=True)
class Settings:
    """How one service process runs.

    Attributes:
        address: host:port to serve on (port 0 picks a free port).
        redis_url: where games are kept: one server, a Cluster or a Sentinel master
            (:mod:`engine_service.store.connect` lists the URL forms).
        redis_wait_replicas: replicas that must have each write (``WAIT``) before it is
            acknowledged; 0 waits for none. A write fewer replicas confirm within
            ``redis_wait_ms`` is answered UNAVAILABLE (a retry with its request id is safe).
        redis_wait_ms: how long a write waits for those replicas.
        game_ttl_seconds: a game untouched this long expires (a move sets it again once 1 % of
            it has passed since it was last set, so no game expires sooner than 99 % of it
            after its last move).
        event_retention: versions of events kept per game for watchers to catch up from; a
            watch from an older version is told to reload the view.
        watch_idle_seconds: a watch stream with nothing to send gets a heartbeat this often.
        watcher_queue_limit: versions buffered per watcher; one further behind gets the
            versions it missed merged into one update.
        watcher_stall_seconds: how long a WatchGame message may wait for the client to take
            it (HTTP/2 flow control) before the stream is cut off with WATCHER_TOO_SLOW.
        grace_seconds: how long in-flight calls may finish after SIGTERM or Ctrl-C; a call
            still running near its end is refused before it writes, and the process exits
            within it (:mod:`engine_service.api.drain`).
        health_interval_seconds: how often the server PINGs Redis for its health status
            (NOT_SERVING while Redis does not answer within this time).
        allow_volatile_redis: start against a Redis that keeps nothing on disk (no
            append-only file, no snapshots) instead of refusing to
            (:mod:`engine_service.store.preflight`).
        reflection: whether to serve gRPC server reflection.
        log_level: the logging level name.
        metrics_port: HTTP port of the Prometheus metrics, on the host of ``address``; 0 serves
            none. Off here so in-process servers (tests, benchmarks) open no port of their own;
            the command line defaults to :data:`DEFAULT_METRICS_PORT`.
        web_port: HTTP port of the web port (Connect, gRPC-Web and the browser table, see
            :mod:`engine_service.web.gateway`) on the host of ``address``; 0 serves none.
            ``make run`` turns it on (8080). TLS like the gRPC port when ``tls_cert`` is set.
        web_origins: the origins (``https://lobby.example``) whose pages may call the web
            port from a browser (CORS); empty: only the port's own page.
        bot_moves_per_call: the most bot moves one request makes (T-R10).
        bot_seconds_per_call: the most time one request spends on bot moves.
        bot_moves_per_slice: the most bot moves one slice of the timer loop makes.
        bot_seconds_per_slice: the most time one slice of the timer loop spends on bot moves.
        search_budgets: ``GAME=PLAYOUTS`` entries, each game's search bot on that budget
            instead of its default; ``0`` takes the search bot off the game
            (:mod:`engine_service.app.search_budgets`).
        timer_interval_seconds: how often the timer loop looks for due clocks and bot games
            (and how far ahead: each clock fires at its own time, :mod:`~.app.timers`).
        timer_share: the fraction of the process's time the timer loop may spend on slices
            when it plays them on the event loop (no background workers).
        service_keys: the keys backends send as ``x-service-key``, each configured as
            ``name:scope,scope:sha256hex[:rate=R,burst=B,games=G]`` (scopes ``create``,
            ``list``, ``admin``; :func:`engine_service.app.seats.parse_key_spec`); empty:
            nothing needs a key and nothing is metered (a local setup).
        key_rate: calls per second each key may make (its token bucket in Redis; 0: no limit).
        key_burst: the most calls a key may make at once (the bucket's size).
        key_games: games each key may create within ``key_games_window_seconds`` (0: no limit).
        key_games_window_seconds: that window, sliding; 0 is ``game_ttl_seconds``.
        tls_cert: PEM certificate chain of the gRPC port; with ``tls_key``, TLS only.
        tls_key: PEM private key of ``tls_cert``.
        tls_client_ca: PEM CA certificates; set, clients must show a certificate they signed.
        insecure_public: serve a non-loopback address without TLS or keys, or with the
            browser table, instead of refusing to (:mod:`engine_service.api.exposure`).
        join_group: this process shares its address with others on purpose (``SO_REUSEPORT``):
            skip the start-up check that nothing serves the address yet.
        background_workers: processes that run the timer loop at the lowest CPU priority
            (:mod:`engine_service.api.timer_workers`); 0 runs it on the server's event loop.
            Off here so in-process servers start no processes of their own; the command line
            defaults to :data:`DEFAULT_BACKGROUND_WORKERS`.
        timer_loop: whether this process runs a timer loop at all; a process group runs one,
            in its first process (:mod:`engine_service.api.launcher`).
        processes: server processes serving ``address`` together (``SO_REUSEPORT``), started
            and supervised by :mod:`engine_service.api.launcher`; one interpreter uses one
            core. Off (1) here so in-process servers stay one process; the command line
            defaults to :data:`DEFAULT_PROCESSES`, the cores this process may run on.
        max_request_bytes: the largest request message taken, on the gRPC port (gRPC's
            ``grpc.max_receive_message_length``: larger ones get RESOURCE_EXHAUSTED before
            anything reads them) and on the web port.
        pending_calls_limit: how many new calls may wait for the event loop to take them;
            past it gRPC sheds new ones with CANCELLED before they start (gRPC's default).
    """

    address: str = "127.0.0.1:50051"
    redis_url: str = "redis://127.0.0.1:6379/0"
    redis_wait_replicas: int = 0
    redis_wait_ms: int = 1000
    game_ttl_seconds: int = 7 * 24 * 3600
    event_retention: int = 10_000
    watch_idle_seconds: float = 15.0
    watcher_queue_limit: int = 1024
    watcher_stall_seconds: float = 30.0
    grace_seconds: float = 10.0
    health_interval_seconds: float = 1.0
    allow_volatile_redis: bool = False
    reflection: bool = True
    log_level: str = "INFO"
    metrics_port: int = 0
    web_port: int = 0
    web_origins: tuple[str, ...] = ()
    bot_moves_per_call: int = REQUEST_BUDGET.moves
    bot_seconds_per_call: float = REQUEST_BUDGET.seconds
    bot_moves_per_slice: int = SLICE_BUDGET.moves
    bot_seconds_per_slice: float = SLICE_BUDGET.seconds
    search_budgets: tuple[str, ...] = ()
    timer_interval_seconds: float = 1.0
    timer_share: float = 0.25
    service_keys: tuple[str, ...] = ()
    key_rate: float = 100.0
    key_burst: int = 200
    key_games: int = 10_000
    key_games_window_seconds: int = 0
    tls_cert: str = ""
    tls_key: str = ""
    tls_client_ca: str = ""
    insecure_public: bool = False
    join_group: bool = False
    background_workers: int = 0
    timer_loop: bool = True
    processes: int = 1
    max_request_bytes: int = 256 * 1024
    pending_calls_limit: int = 1000


DEFAULT_BACKGROUND_WORKERS = 1
"""Timer workers of ``python -m engine_service``: bot slices never hold its event loop."""
DEFAULT_METRICS_PORT = 9464
"""The metrics port of ``python -m engine_service``; each process on a host needs its own."""
DEFAULT_PROCESSES = (
    len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
) or 1
"""Server processes of ``python -m engine_service``: one per core it may run on."""
TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off"})
"""The words a yes/no ``ENGINE_*`` variable may hold, in any case."""


def parse_settings(
    argv: Sequence[str] | None = None, environ: Mapping[str, str] = os.environ
) -> Settings:
    """Settings from ``argv`` flags, then ``ENGINE_*``/``REDIS_URL`` variables, then defaults."""
    base = Settings()

    def env(name: str, default: object) -> str:
        return environ.get(name, str(default))

    def env_flag(name: str, default: bool) -> bool:
        """A yes/no variable: 1, true, yes or on; 0, false, no or off; unset: ``default``."""
        value = environ.get(name, "").strip().lower()
        if not value:
            return default
        if value in TRUE_WORDS or value in FALSE_WORDS:
            return value in TRUE_WORDS
        parser.error(f"{name}={environ[name]!r} is not a yes/no value (1/0, true/false, ...)")

    parser = argparse.ArgumentParser(prog="engine-service", description=__doc__)
    parser.add_argument(
        "--address",
        default=env("ENGINE_ADDRESS", base.address),
        help=f"host:port to serve on, port 0 picks a free one (environment ENGINE_ADDRESS; "
        f"default {base.address})",
    )
    parser.add_argument(
        "--redis-url",
        default=env("REDIS_URL", base.redis_url),
        help=f"the Redis that keeps the games (environment REDIS_URL; default {base.redis_url})",
    )
    parser.add_argument(
        "--redis-wait-replicas",
        type=int,
        default=int(env("ENGINE_REDIS_WAIT_REPLICAS", base.redis_wait_replicas)),
        help="replicas that must have each write (WAIT) before it is acknowledged, else "
        "UNAVAILABLE (environment ENGINE_REDIS_WAIT_REPLICAS; default "
        f"{base.redis_wait_replicas}: none)",
    )
    parser.add_argument(
        "--redis-wait-ms",
        type=int,
        default=int(env("ENGINE_REDIS_WAIT_MS", base.redis_wait_ms)),
        help="how long a write waits for --redis-wait-replicas (environment "
        f"ENGINE_REDIS_WAIT_MS; default {base.redis_wait_ms})",
    )
    parser.add_argument(
        "--game-ttl-seconds",
        type=int,
        default=int(env("ENGINE_GAME_TTL", base.game_ttl_seconds)),
        help="a game untouched this long expires; moves refresh it, to within 1 %% (environment "
        f"ENGINE_GAME_TTL; default {base.game_ttl_seconds}, one week)",
    )
    parser.add_argument(
        "--event-retention",
        type=int,
        default=int(env("ENGINE_EVENT_RETENTION", base.event_retention)),
        help="versions of events kept per game for watchers to catch up from (environment "
        f"ENGINE_EVENT_RETENTION; default {base.event_retention})",
    )
    parser.add_argument(
        "--watch-idle-seconds",
        type=float,
        default=float(env("ENGINE_WATCH_IDLE", base.watch_idle_seconds)),
        help="an idle WatchGame stream gets a heartbeat this often (environment "
        f"ENGINE_WATCH_IDLE; default {base.watch_idle_seconds})",
    )
    parser.add_argument(
        "--watcher-queue-limit",
        type=int,
        default=int(env("ENGINE_WATCHER_QUEUE", base.watcher_queue_limit)),
        help="versions buffered per watcher; a watcher further behind gets what it missed "
        "merged into one update (environment ENGINE_WATCHER_QUEUE; default "
        f"{base.watcher_queue_limit})",
    )
    parser.add_argument(
        "--watcher-stall-seconds",
        type=float,
        default=float(env("ENGINE_WATCHER_STALL", base.watcher_stall_seconds)),
        help="a WatchGame stream whose client takes no message for this long is cut off "
        "with RESOURCE_EXHAUSTED WATCHER_TOO_SLOW (environment ENGINE_WATCHER_STALL; "
        f"default {base.watcher_stall_seconds})",
    )
    parser.add_argument(
        "--grace-seconds",
        type=float,
        default=float(env("ENGINE_GRACE", base.grace_seconds)),
        help="how long in-flight calls may finish after SIGTERM or Ctrl-C (environment "
        f"ENGINE_GRACE; default {base.grace_seconds})",
    )
    parser.add_argument(
        "--health-interval-seconds",
        type=float,
        default=float(env("ENGINE_HEALTH_INTERVAL", base.health_interval_seconds)),
        help="how often Redis is PINGed for the health status, NOT_SERVING while it does not "
        f"answer (environment ENGINE_HEALTH_INTERVAL; default {base.health_interval_seconds})",
    )
    parser.add_argument(
        "--allow-volatile-redis",
        action="store_true",
        default=env_flag("ENGINE_ALLOW_VOLATILE_REDIS", False),
        help="start even when Redis keeps nothing on disk (appendonly no, no save points), "
        "so a Redis restart loses every game (environment ENGINE_ALLOW_VOLATILE_REDIS=1; "
        "default: refuse)",
    )
    parser.add_argument(
        "--no-reflection",
        dest="reflection",
        action="store_false",
        default=env_flag("ENGINE_REFLECTION", True),
        help="do not serve gRPC server reflection (environment ENGINE_REFLECTION=0, false or "
        "no; default: reflection on)",
    )
    parser.add_argument(
        "--log-level",
        default=env("ENGINE_LOG_LEVEL", base.log_level),
        help="the logging level name, e.g. DEBUG or WARNING (environment ENGINE_LOG_LEVEL; "
        f"default {base.log_level})",
    )
    parser.add_argument(
        "--metrics-port",
        type=int,
        default=int(env("ENGINE_METRICS_PORT", DEFAULT_METRICS_PORT)),
        help="HTTP port of the Prometheus metrics on the host of --address, 0 serves none "
        f"(environment ENGINE_METRICS_PORT; default {DEFAULT_METRICS_PORT})",
    )
    parser.add_argument(
        "--web-port",
        type=int,
        default=int(env("ENGINE_WEB_PORT", base.web_port)),
        help="HTTP port of Connect, gRPC-Web and the browser table on the host of --address "
        "(TLS as the gRPC port when --tls-cert is given), 0 serves none (environment "
        f"ENGINE_WEB_PORT; default {base.web_port})",
    )
    parser.add_argument(
        "--web-origin",
        dest="web_origins",
        action="append",
        default=env("ENGINE_WEB_ORIGINS", "").split(),
        help="an origin (https://lobby.example) whose pages may call the web port from a "
        "browser (CORS); repeat for several (environment ENGINE_WEB_ORIGINS, separated by "
        "spaces; default none: only the port's own page)",
    )
    parser.add_argument(
        "--bot-moves-per-call",
        type=int,
        default=int(env("ENGINE_BOT_MOVES_PER_CALL", base.bot_moves_per_call)),
        help="the most bot moves one request makes; the rest follows in the timer loop's "
        f"slices (environment ENGINE_BOT_MOVES_PER_CALL; default {base.bot_moves_per_call})",
    )
    parser.add_argument(
        "--bot-seconds-per-call",
        type=float,
        default=float(env("ENGINE_BOT_SECONDS_PER_CALL", base.bot_seconds_per_call)),
        help="the most time one request spends on bot moves (environment "
        f"ENGINE_BOT_SECONDS_PER_CALL; default {base.bot_seconds_per_call})",
    )
    parser.add_argument(
        "--bot-moves-per-slice",
        type=int,
        default=int(env("ENGINE_BOT_MOVES_PER_SLICE", base.bot_moves_per_slice)),
        help="the most bot moves one slice of the timer loop makes (environment "
        f"ENGINE_BOT_MOVES_PER_SLICE; default {base.bot_moves_per_slice})",
    )
    parser.add_argument(
        "--bot-seconds-per-slice",
        type=float,
        default=float(env("ENGINE_BOT_SECONDS_PER_SLICE", base.bot_seconds_per_slice)),
        help="the most time one slice of the timer loop spends on bot moves (environment "
        f"ENGINE_BOT_SECONDS_PER_SLICE; default {base.bot_seconds_per_slice})",
    )
    parser.add_argument(
        "--timer-interval-seconds",
        type=float,
        default=float(env("ENGINE_TIMER_INTERVAL", base.timer_interval_seconds)),
        help="how often the timer loop looks for expired clocks and bot games (environment "
        f"ENGINE_TIMER_INTERVAL; default {base.timer_interval_seconds})",
    )
    parser.add_argument(
        "--timer-share",
        type=float,
        default=float(env("ENGINE_TIMER_SHARE", base.timer_share)),
        help="the fraction of the process's time the timer loop may spend playing bots on the "
        "event loop, with --background-workers 0 (environment ENGINE_TIMER_SHARE; default "
        f"{base.timer_share})",
    )
    parser.add_argument(
        "--service-key",
        dest="service_keys",
        action="append",
        default=env("ENGINE_SERVICE_KEYS", "").replace(";", " ").split(),
        help="a key backends send as x-service-key, as name:scope,scope:sha256hex with scopes "
        "create, list, admin and optionally :rate=R,burst=B,games=G (python -m "
        "engine_service.api.keys makes them); repeat for several (environment "
        "ENGINE_SERVICE_KEYS, separated by spaces or semicolons; default none: nothing needs "
        "a key)",
    )
    parser.add_argument(
        "--key-rate",
        type=float,
        default=float(env("ENGINE_KEY_RATE", base.key_rate)),
        help="calls per second each service key may make, 0 for no limit (environment "
        f"ENGINE_KEY_RATE; default {base.key_rate:g})",
    )
    parser.add_argument(
        "--key-burst",
        type=int,
        default=int(env("ENGINE_KEY_BURST", base.key_burst)),
        help=f"calls a service key may make at once (environment ENGINE_KEY_BURST; default "
        f"{base.key_burst})",
    )
    parser.add_argument(
        "--key-games",
        type=int,
        default=int(env("ENGINE_KEY_GAMES", base.key_games)),
        help="games each service key may create within --key-games-window-seconds, 0 for no "
        f"limit (environment ENGINE_KEY_GAMES; default {base.key_games})",
    )
    parser.add_argument(
        "--key-games-window-seconds",
        type=int,
        default=int(env("ENGINE_KEY_GAMES_WINDOW", base.key_games_window_seconds)),
        help="the sliding window of --key-games, 0 for --game-ttl-seconds (environment "
        "ENGINE_KEY_GAMES_WINDOW; default 0)",
    )
    parser.add_argument(
        "--tls-cert",
        default=env("ENGINE_TLS_CERT", base.tls_cert),
        help="PEM certificate chain of the gRPC port, with --tls-key: TLS only (environment "
        "ENGINE_TLS_CERT; default none: plaintext)",
    )
    parser.add_argument(
        "--tls-key",
        default=env("ENGINE_TLS_KEY", base.tls_key),
        help="PEM private key of --tls-cert (environment ENGINE_TLS_KEY)",
    )
    parser.add_argument(
        "--tls-client-ca",
        default=env("ENGINE_TLS_CLIENT_CA", base.tls_client_ca),
        help="PEM CA certificates: clients must show a certificate they signed (mutual TLS; "
        "environment ENGINE_TLS_CLIENT_CA; default none)",
    )
    parser.add_argument(
        "--insecure-public",
        action="store_true",
        default=env_flag("ENGINE_INSECURE_PUBLIC", False),
        help="serve a non-loopback address without TLS or service keys, or with --web-port, "
        "instead of refusing to (environment ENGINE_INSECURE_PUBLIC=1)",
    )
    parser.add_argument(
        "--join-group",
        action="store_true",
        default=env_flag("ENGINE_JOIN_GROUP", False),
        help="this process shares --address with others on purpose (SO_REUSEPORT): do not "
        "refuse to start when the address is served already (environment ENGINE_JOIN_GROUP=1)",
    )
    parser.add_argument(
        "--search-budget",
        dest="search_budgets",
        action="append",
        default=env("ENGINE_SEARCH_BUDGETS", "").replace(";", " ").split(),
        help="GAME=PLAYOUTS: the search bot of GAME makes that many playouts per decision "
        "instead of its default (about 50 ms of CPU a move); 0 takes the search bot off "
        "GAME; repeat for several games (environment ENGINE_SEARCH_BUDGETS, separated by "
        "spaces or semicolons; default: each game's own)",
    )
    parser.add_argument(
        "--background-workers",
        type=int,
        default=int(env("ENGINE_BACKGROUND_WORKERS", DEFAULT_BACKGROUND_WORKERS)),
        help="processes that run the timer loop (clocks, bot games played on in slices) at the "
        "lowest CPU priority; 0 runs it on the server's event loop (environment "
        f"ENGINE_BACKGROUND_WORKERS; default {DEFAULT_BACKGROUND_WORKERS})",
    )
    parser.add_argument(
        "--processes",
        type=int,
        default=int(env("ENGINE_PROCESSES", DEFAULT_PROCESSES)),
        help="server processes serving --address together (SO_REUSEPORT), supervised by this "
        "one; more than 1 needs a fixed port (environment ENGINE_PROCESSES; default: one per "
        f"core, {DEFAULT_PROCESSES} here)",
    )
    parser.add_argument(
        "--max-request-bytes",
        type=int,
        default=int(env("ENGINE_MAX_REQUEST_BYTES", base.max_request_bytes)),
        help="the largest request message taken; larger ones get RESOURCE_EXHAUSTED unread "
        f"(environment ENGINE_MAX_REQUEST_BYTES; default {base.max_request_bytes}, 256 KiB)",
    )
    parser.add_argument(
        "--pending-calls-limit",
        type=int,
        default=int(env("ENGINE_PENDING_CALLS", base.pending_calls_limit)),
        help="new calls that may wait for the server to take them; past it gRPC ends new "
        "ones with CANCELLED at random, all of them past three times it (environment "
        f"ENGINE_PENDING_CALLS; default {base.pending_calls_limit}, gRPC's)",
    )
    return _checked(parser, vars(parser.parse_args(argv)))


def _checked(parser: argparse.ArgumentParser, values: dict[str, Any]) -> Settings:
    """The settings of parsed ``values``; exits through ``parser`` on a bad key or budget."""
    for name in ("service_keys", "search_budgets", "web_origins"):
        values[name] = tuple(values[name])
    try:
        ServiceKeys.of(values["service_keys"])
        parse_search_budgets(values["search_budgets"], REGISTRY)
    except (KeySpecError, ValueError) as error:
        parser.error(str(error))
    return Settings(**values)
