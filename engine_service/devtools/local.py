"""Start a private ``redis-server`` and an in-process engine server on free loopback ports.

The test fixtures, ``make run`` and ``make play`` all use these, so every one of them talks
to a real Redis and a real gRPC server rather than to stand-ins.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import grpc
import redis
from grpc_health.v1 import health_pb2, health_pb2_grpc

from engine_service.api.server import metrics_exporter, serve_until
from engine_service.settings import Settings

FIRST_DRAWN_PORT = 20000
"""The lowest port :func:`free_port` draws: above the ports services usually listen on."""
PORT_DRAWS = 200
_DRAW = random.SystemRandom()
"""Not the seeded ``random``: test workers seeded alike would draw the same ports."""

STARTUP_SECONDS = 15.0
CLUSTER_PORT_LIMIT = 55535
"""A cluster node's port stays below this: a node met without its bus port named (``CLUSTER
MEET ip port``) is looked for 10000 above its port, which must still be a port."""


def free_port(below: int = 65536) -> int:
    """A TCP port on 127.0.0.1 below ``below`` that nothing is bound to right now.

    Drawn at random from under the kernel's ephemeral range: a port of that range can be
    taken, between this call and the server's bind, as the local port of any outgoing
    connection (a test run makes thousands), which failed a server's start once. Only when
    there is no room under the range does the kernel pick, from the range itself.
    """
    first_ephemeral = _ephemeral_range()[0]
    top = min(below, first_ephemeral)
    for _ in range(PORT_DRAWS):
        if top <= FIRST_DRAWN_PORT:
            break
        port = FIRST_DRAWN_PORT + _DRAW.randrange(top - FIRST_DRAWN_PORT)
        if _bindable(port):
            return port
    while True:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = int(probe.getsockname()[1])
        if port < below:
            return port


def _bindable(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _ephemeral_range() -> tuple[int, int]:
    """The kernel's range of local ports for outgoing connections (Linux's default elsewhere)."""
    try:
        low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
    except (OSError, ValueError):
        return 32768, 60999
    return int(low), int(high)


def redis_pid(url: str) -> int:
    """The process id of the redis-server at ``url`` (one that this machine runs)."""
    client = redis.Redis.from_url(url)
    try:
        return int(client.info("server")["process_id"])
    finally:
        client.close()


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, exited but not yet reaped, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not stat.exists() or stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"


def engine_command(address: str, redis_url: str, *flags: str) -> list[str]:
    """``python -m engine_service`` on ``address`` over ``redis_url``, without a metrics port.

    The metrics exporter would bind a fixed port by default; a test or a tool that starts
    several servers must not collide there. ``flags``: further command-line settings.
    """
    command = [sys.executable, "-m", "engine_service", f"--address={address}"]
    return [*command, f"--redis-url={redis_url}", "--metrics-port=0", *flags]


def wait_serving(
    address: str,
    process: subprocess.Popen[bytes],
    seconds: float,
    credentials: grpc.ChannelCredentials | None = None,
) -> None:
    """Poll the ``grpc.health.v1`` Check at ``address`` until it reports SERVING.

    A server process binds, connects to Redis and only then reports SERVING, so calls made
    before that would fail for reasons that have nothing to do with what is being tried.
    The wait is bounded by ``seconds`` and gives up at once if ``process`` exits, raising
    RuntimeError that names the address, so a server that cannot start fails fast and clearly.
    With ``credentials`` it asks over TLS (a server with a TLS port).
    """
    deadline = time.monotonic() + seconds
    channel = (
        grpc.secure_channel(address, credentials) if credentials else grpc.insecure_channel(address)
    )
    with channel:
        health = health_pb2_grpc.HealthStub(channel)
        while True:
            try:
                reply = health.Check(health_pb2.HealthCheckRequest(), timeout=1)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
            if process.poll() is not None:
                raise RuntimeError(f"the engine on {address} exited with {process.returncode}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the engine on {address} did not serve within {seconds} s")
            time.sleep(0.1)


def _wait_for_redis(url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    client = redis.Redis.from_url(url)
    while True:
        try:
            client.ping()
            return
        except redis.AuthenticationError:
            return  # up, and asking for the password it was given
        except redis.ConnectionError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("redis-server did not start") from None
            time.sleep(0.05)
        finally:
            client.close()


@dataclass(frozen=True)
class RedisTls:
    """PEM files for a TLS-only ``redis-server`` and for its clients.

    With a client certificate the server requires one (``--tls-auth-clients yes``) and the URL
    it yields shows this one; without, clients need only trust ``ca``.
    """

    ca: Path
    cert: Path
    key: Path
    client_cert: Path | None = None
    client_key: Path | None = None

    def server_args(self, port: int) -> list[str]:
        """Options serving TLS on ``port`` and nothing in plaintext."""
        clients = "yes" if self.client_cert else "no"
        files = ["--tls-cert-file", str(self.cert), "--tls-key-file", str(self.key)]
        files += ["--tls-ca-cert-file", str(self.ca), "--tls-auth-clients", clients]
        return ["--port", "0", "--tls-port", str(port), *files]

    def url(self, port: int) -> str:
        """``rediss://`` to ``port``, its query naming the files (as the service reads them)."""
        query = {"ssl_ca_certs": str(self.ca)}
        if self.client_cert and self.client_key:
            query |= {"ssl_certfile": str(self.client_cert), "ssl_keyfile": str(self.client_key)}
        return f"rediss://127.0.0.1:{port}/0?{urlencode(query)}"


@contextlib.contextmanager
def redis_server(
    data_dir: Path | None = None,
    *,
    port: int | None = None,
    args: Sequence[str] = (),
    config: str | None = None,
    tls: RedisTls | None = None,
) -> Iterator[str]:
    """Run ``redis-server`` on loopback; yields its URL and stops it on exit.

    The append-only file is on: the service refuses a Redis that keeps nothing on disk
    (:mod:`engine_service.store.preflight`). With ``data_dir`` the data stays there; without, it
    lives in a temporary folder that is removed afterwards. ``args`` are more options (a
    cluster node's, a replica's); ``config`` the text of a config file the server is started
    with and may rewrite (a sentinel needs one). With ``tls`` it speaks only TLS and the URL
    is a ``rediss://`` one (:meth:`RedisTls.url`).
    """
    binary = shutil.which("redis-server")
    if binary is None:
        raise RuntimeError("redis-server is not installed (make system-deps installs it)")
    port = port or free_port()
    with contextlib.ExitStack() as stack:
        folder = data_dir or Path(stack.enter_context(tempfile.TemporaryDirectory()))
        folder.mkdir(parents=True, exist_ok=True)
        # The append-only file either way: the service refuses a Redis that keeps nothing.
        persist = ["--appendonly", "yes"] if data_dir else ["--appendonly", "yes", "--save", ""]
        command = [binary]
        if config is not None:
            (folder / "redis.conf").write_text(config)
            command.append(str(folder / "redis.conf"))
        listen = tls.server_args(port) if tls else ["--port", str(port)]
        command += ["--bind", "127.0.0.1", *listen, "--dir", str(folder)]
        log = stack.enter_context((folder / "redis.log").open("ab"))
        # Its own session: a Ctrl-C meant for the service must not stop Redis before the drain.
        process = subprocess.Popen(
            [*command, *persist, *args],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        url = tls.url(port) if tls else f"redis://127.0.0.1:{port}/0"
        try:
            _wait_for_redis(url, process)
            yield url
        finally:
            stop_process(process)


def stop_process(process: subprocess.Popen[bytes]) -> None:
    """SIGCONT, SIGTERM and wait; SIGKILL if it has not exited after STARTUP_SECONDS.

    SIGCONT first, as a frozen process ignores SIGTERM until it runs. A redis-server shutting
    down on a busy machine (an append-only file to flush, a master waiting for its replicas)
    once took longer than the wait; the stop must not hang or fail.
    """
    if process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(process.pid, signal.SIGCONT)
    process.terminate()
    try:
        process.wait(timeout=STARTUP_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=STARTUP_SECONDS)


def wait_until(ready: Callable[[], bool], what: str, seconds: float = STARTUP_SECONDS) -> None:
    """Poll ``ready`` (Redis errors count as not yet) until it holds, for ``seconds``.

    Raises RuntimeError naming ``what`` when it never does, so a setup step that cannot
    finish fails with its own name instead of hanging the run.
    """
    deadline = time.monotonic() + seconds
    while True:
        with contextlib.suppress(redis.RedisError):
            if ready():
                return
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not happen in {seconds} s")
        time.sleep(0.1)


def port_of(url: str) -> int:
    """The port of a ``redis://host:port/db`` URL."""
    return int(url.rsplit(":", 1)[1].split("/", maxsplit=1)[0])


def _credentials(password: str | None) -> tuple[list[str], str]:
    """Server options and the URL's user part for ``password`` (none: no AUTH)."""
    if password is None:
        return [], ""
    return ["--requirepass", password, "--masterauth", password], f":{password}@"


def cluster_node_args(password: str | None, node_timeout_ms: int) -> list[str]:
    """Options of one cluster node, its cluster bus on a free port of its own.

    The bus port is 10000 above the node's port by default, which might be taken or above
    65535; every node of a cluster, and one added later, must be started alike.
    """
    auth, _ = _credentials(password)
    options = ["--cluster-enabled", "yes", "--cluster-node-timeout", str(node_timeout_ms)]
    return [*options, *auth, "--cluster-port", str(free_port())]


def cluster_node(
    password: str | None, node_timeout_ms: int
) -> contextlib.AbstractContextManager[str]:
    """A redis-server in cluster mode (:func:`redis_server`, port below CLUSTER_PORT_LIMIT)."""
    port = free_port(below=CLUSTER_PORT_LIMIT)
    return redis_server(port=port, args=cluster_node_args(password, node_timeout_ms))


def redis_cli(password: str | None) -> list[str]:
    """``redis-cli`` with the cluster's password (without the warning it prints for one)."""
    return ["redis-cli", *(["-a", password, "--no-auth-warning"] if password else [])]


@contextlib.contextmanager
def redis_cluster(
    masters: int = 3, password: str | None = None, node_timeout_ms: int = 2000, replicas: int = 1
) -> Iterator[str]:
    """A Redis Cluster of ``masters`` masters with ``replicas`` replicas each, on loopback.

    ``replicas=0`` gives masters only: what a measurement of how load spreads over masters
    wants (a replica's work would only blur it), and what survives no node's loss. Yields
    ``redis+cluster://[:password@]127.0.0.1:P1,...`` once every node reports
    ``cluster_state:ok``; every node is stopped by its PID on exit.
    """
    _, user = _credentials(password)
    with contextlib.ExitStack() as stack:
        urls = [
            stack.enter_context(cluster_node(password, node_timeout_ms))
            for _ in range(masters * (1 + replicas))
        ]
        nodes = [f"127.0.0.1:{port_of(url)}" for url in urls]
        create = ["--cluster", "create", *nodes, "--cluster-replicas", str(replicas)]
        subprocess.run(
            [*redis_cli(password), *create, "--cluster-yes"],
            check=True,
            capture_output=True,
            timeout=STARTUP_SECONDS + masters,
        )
        clients = [
            stack.enter_context(contextlib.closing(redis.Redis.from_url(url, password=password)))
            for url in urls
        ]
        wait_until(
            lambda: all(c.cluster("INFO")["cluster_state"] == "ok" for c in clients),
            "cluster_state:ok",
        )
        yield f"redis+cluster://{user}{','.join(nodes)}"


@contextlib.contextmanager
def redis_sentinel(
    password: str | None = None,
    down_after_ms: int = 1000,
    service: str = "mymaster",
    replicas: int = 1,
) -> Iterator[str]:
    """One master, ``replicas`` replicas and three sentinels watching them (quorum 2).

    Yields ``redis+sentinel://[:password@]127.0.0.1:S1,S2,S3/<service>`` once every sentinel
    names the same master and knows the replica and the other two sentinels. The sentinels
    take the master for down after ``down_after_ms`` and then promote the replica.
    """
    auth, user = _credentials(password)
    with contextlib.ExitStack() as stack:
        master = stack.enter_context(redis_server(args=auth))
        port = port_of(master)
        replica = [*auth, "--replicaof", "127.0.0.1", str(port)]
        for _ in range(replicas):
            stack.enter_context(redis_server(args=replica))
        config = "\n".join(
            [
                f"sentinel monitor {service} 127.0.0.1 {port} 2",
                f"sentinel down-after-milliseconds {service} {down_after_ms}",
                f"sentinel failover-timeout {service} {4 * down_after_ms}",
                *([f"sentinel auth-pass {service} {password}"] if password else []),
                "",
            ]
        )
        sentinels = [
            stack.enter_context(redis_server(args=["--sentinel"], config=config)) for _ in range(3)
        ]
        clients = [
            stack.enter_context(contextlib.closing(redis.Redis.from_url(url))) for url in sentinels
        ]

        primary = stack.enter_context(
            contextlib.closing(redis.Redis.from_url(master, password=password))
        )

        def agreed() -> bool:
            # Replicas count once their first sync is done: before, a failover loses it all.
            found: Any = primary.info("replication")
            online = [found.get(f"slave{i}", {}).get("state") for i in range(replicas)]
            if online != ["online"] * replicas:
                return False
            for client in clients:
                found = client.sentinel_master(service)
                if (found["port"], found["num-other-sentinels"], found["num-slaves"]) != (
                    port,
                    2,
                    replicas,
                ):
                    return False
            return True

        wait_until(agreed, "sentinels agreeing on the master")
        ports = ",".join(f"127.0.0.1:{port_of(url)}" for url in sentinels)
        yield f"redis+sentinel://{user}{ports}/{service}"


class _ServerThread(threading.Thread):
    """An engine server on its own asyncio loop in a background thread."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(name="engine-server", daemon=True)
        self._settings = settings
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop_event: asyncio.Event | None = None
        self.port = 0
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            asyncio.run(self._serve())
        except BaseException as error:  # reported to the starting thread
            self.error = error
        finally:
            self._ready.set()

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop_event = asyncio.Event()
        await serve_until(self._settings, self._stop_event, self._on_ready)

    def _on_ready(self, port: int) -> None:
        self.port = port
        self._ready.set()

    def wait_ready(self) -> int:
        """The bound port, once serving; re-raises what stopped the server from starting."""
        if not self._ready.wait(STARTUP_SECONDS) or self.error is not None or not self.port:
            raise RuntimeError("the engine server did not start") from self.error
        return self.port

    def stop(self) -> None:
        """Drain and stop the server, and wait for its thread."""
        if self._loop is not None and self._stop_event is not None and self.is_alive():
            self._loop.call_soon_threadsafe(self._stop_event.set)
        self.join(STARTUP_SECONDS + self._settings.grace_seconds)


@contextlib.contextmanager
def local_service(
    redis_url: str | None = None,
    *,
    game_ttl_seconds: int = 3600,
    metrics_port: int = 0,
    **overrides: Any,
) -> Iterator[str]:
    """Run an engine server in this process (its own thread and loop); yields ``127.0.0.1:PORT``.

    Without ``redis_url`` a private redis-server is started for it and stopped after; with
    ``metrics_port`` it serves Prometheus metrics there too; ``overrides`` set other
    :class:`~engine_service.settings.Settings` fields.
    """
    with contextlib.ExitStack() as stack:
        url = redis_url or stack.enter_context(redis_server())
        settings = Settings(
            address="127.0.0.1:0",
            redis_url=url,
            game_ttl_seconds=game_ttl_seconds,
            metrics_port=metrics_port,
            grace_seconds=1.0,
            **overrides,
        )
        stack.enter_context(metrics_exporter(settings))
        thread = _ServerThread(settings)
        thread.start()
        try:
            port = thread.wait_ready()
            yield f"127.0.0.1:{port}"
        finally:
            thread.stop()
