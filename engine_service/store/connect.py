"""Which Redis a URL names, and the clients for it: one server, a Cluster or a Sentinel master.

The service keeps one setting, the URL, for all three deployments:

* ``redis://[user:pass@]host:port/db``, ``rediss://...`` (TLS), ``unix://path``: one server,
  read by redis-py's own URL parser (query parameters as redis-py documents them).
* ``redis+cluster://[user:pass@]host:port[,host:port...]``: a Redis Cluster, found from any
  of those seed nodes; ``rediss+cluster://`` speaks TLS to every node.
* ``redis+sentinel://[user:pass@]host:port[,host:port...]/master[/db]``: the master that
  those sentinels watch under the name ``master``, found again after a failover;
  ``rediss+sentinel://`` speaks TLS to the sentinels and the master. The URL's credentials
  are the master's; ``sentinel_username`` and ``sentinel_password`` (query) the sentinels'.

Cluster and Sentinel URLs take the query parameters in :data:`_QUERY` (timeouts and TLS
files); any other is refused at start-up rather than ignored.

Plain servers and Sentinel masters are spoken to through :class:`PackedConnection` (hiredis
packs the commands); cluster nodes through redis-py's own connections, as
``redis.asyncio.cluster.RedisCluster`` builds them itself.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, TypeAlias
from urllib.parse import parse_qsl, unquote, urlsplit

import hiredis
import redis.asyncio as redis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import (
    Sentinel,
    SentinelConnectionPool,
    SentinelManagedConnection,
    SentinelManagedSSLConnection,
)
from redis.backoff import NoBackoff
from redis.exceptions import (
    ClusterDownError,
    ClusterError,
    ReadOnlyError,
    ResponseError,
    SlotNotCoveredError,
    TryAgainError,
)

Client: TypeAlias = "redis.Redis | RedisCluster"
"""What the store talks to: one server (or a Sentinel's master), or a whole cluster."""


class ReplicasBehind(redis.ConnectionError):
    """Fewer replicas confirmed a write than the store waits for (``WAIT``) in time.

    A connection error to the callers: the storage cannot promise the write survives a
    failover right now, which is what UNAVAILABLE says; the write itself may have been kept.
    """


UNAVAILABLE_ERRORS: Final = (
    redis.ConnectionError,
    redis.TimeoutError,
    ClusterDownError,
    ClusterError,
    TryAgainError,
    SlotNotCoveredError,
    ReadOnlyError,
)
"""Errors that mean the storage cannot be reached right now (a node down, a failover under
way, a demoted master), not that a request was wrong: UNAVAILABLE, and worth a retry."""

_PLAIN_ARGS: Final = frozenset({bytes, str, int})
"""Argument types that hiredis packs exactly as redis-py's own encoder does."""
_SCHEMES: Final = {
    "redis+cluster": ("cluster", False),
    "rediss+cluster": ("cluster", True),
    "redis+sentinel": ("sentinel", False),
    "rediss+sentinel": ("sentinel", True),
}
_QUERY: Final[Mapping[str, Callable[[str], Any]]] = {
    "socket_timeout": float,
    "socket_connect_timeout": float,
    "ssl_ca_certs": str,
    "ssl_certfile": str,
    "ssl_keyfile": str,
    "ssl_cert_reqs": str,
    "ssl_check_hostname": lambda text: text.lower() in ("1", "true", "yes"),
}
_SENTINEL_QUERY: Final = ("sentinel_username", "sentinel_password")
DEFAULT_PORT: Final = 6379
NO_RETRY: Final = Retry(NoBackoff(), 0)
"""For a connection whose loss its owner must see (the feed reads its client id again)."""


class _Packing:
    """Packs commands with hiredis's C packer when it can (a mixin of connection classes).

    redis-py's asyncio connection packs every command in Python, argument by argument; a
    move's save sends some twenty arguments, a snapshot among them, and that packing cost
    about 40 µs of CPU per move. Commands with any other argument type (floats, a command
    name of two words such as ``SCRIPT LOAD``) keep redis-py's packer, so the bytes sent are
    the same either way.
    """

    def pack_command(self, *args: Any) -> list[bytes]:
        """The command in the Redis protocol, as one buffer when hiredis can pack it."""
        first = args[0]
        if (isinstance(first, str) and " " in first) or any(
            type(arg) not in _PLAIN_ARGS for arg in args
        ):
            packed: list[bytes] = super().pack_command(*args)  # type: ignore[misc]
            return packed
        return [hiredis.pack_command(args)]


class PackedConnection(_Packing, redis.Connection):
    """A TCP connection whose commands hiredis packs."""


class PackedSSLConnection(_Packing, redis.SSLConnection):
    """A TLS connection whose commands hiredis packs."""


class PackedSentinelConnection(_Packing, SentinelManagedConnection):
    """A connection to whichever server the sentinels name master, packed by hiredis."""


class PackedSentinelSSLConnection(_Packing, SentinelManagedSSLConnection):
    """The TLS form of :class:`PackedSentinelConnection`."""


class _BlockingSentinelPool(SentinelConnectionPool, redis.BlockingConnectionPool):
    """A Sentinel pool that waits for a free connection, as the plain one does.

    redis-py's own Sentinel pool fails a command when all its connections are in use.
    """


class _SentinelMaster(redis.Redis):
    """The master's client; closing it closes the clients of the sentinels too."""

    sentinels: tuple[redis.Redis, ...] = ()

    async def aclose(self, close_connection_pool: bool | None = None) -> None:
        """Close the master's pool and every sentinel's."""
        await super().aclose(close_connection_pool)
        for client in self.sentinels:
            await client.aclose()


@dataclass(frozen=True)
class RedisTarget:
    """A parsed Redis URL: what kind of deployment, where, and how to connect.

    Attributes:
        url: the URL as given (a plain server's is handed to redis-py whole).
        kind: ``single``, ``cluster`` or ``sentinel``.
        nodes: the seed nodes or sentinels (empty for ``single``).
        service: the master's name under Sentinel.
        options: connection keyword arguments for the data nodes (credentials, TLS, db).
        sentinel_options: those for the sentinels.
    """

    url: str
    kind: str
    nodes: tuple[tuple[str, int], ...] = ()
    service: str = ""
    options: Mapping[str, Any] = field(default_factory=dict)
    sentinel_options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def per_slot_reads(self) -> bool:
        """Whether a multi-key read (XREAD) must be split by slot: only on a cluster."""
        return self.kind == "cluster"


def _host_port(text: str) -> tuple[str, int]:
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        return host, int(rest.lstrip(":") or DEFAULT_PORT)
    host, _, port = text.partition(":")
    if not host:
        raise ValueError(f"no host in {text!r}")
    return host, int(port or DEFAULT_PORT)


def parse_target(url: str) -> RedisTarget:
    """Read a Redis URL (see the module's docstring).

    >>> target = parse_target("redis+sentinel://:pw@h1:26379,h2/mymaster/2")
    >>> target.kind, target.nodes, target.service, target.options["db"]
    ('sentinel', (('h1', 26379), ('h2', 6379)), 'mymaster', 2)

    Raises:
        ValueError: a malformed URL or an unknown query parameter.
    """
    parts = urlsplit(url)
    if parts.scheme not in _SCHEMES:
        return RedisTarget(url=url, kind="single")
    kind, tls = _SCHEMES[parts.scheme]
    credentials, _, hosts = parts.netloc.rpartition("@")
    username, _, password = credentials.partition(":")
    nodes = tuple(_host_port(host) for host in hosts.split(",") if host)
    if not nodes:
        raise ValueError(f"no nodes in {url!r}")
    options: dict[str, Any] = {"ssl": tls} if tls else {}
    if username:
        options["username"] = unquote(username)
    if password:
        options["password"] = unquote(password)
    sentinel_options: dict[str, Any] = {"ssl": tls} if tls else {}
    for name, value in parse_qsl(parts.query):
        if name in _QUERY:
            options[name] = sentinel_options[name] = _QUERY[name](value)
        elif kind == "sentinel" and name in _SENTINEL_QUERY:
            sentinel_options[name.removeprefix("sentinel_")] = value
        else:
            raise ValueError(f"unknown parameter {name!r} in the Redis URL")
    path = [part for part in parts.path.split("/") if part]
    if kind == "cluster":
        if path not in ([], ["0"]):
            raise ValueError("a Redis Cluster has only database 0")
        return RedisTarget(url, kind, nodes, options=options, sentinel_options={})
    if len(path) not in (1, 2):
        raise ValueError("a Sentinel URL names the master: redis+sentinel://host:port/name[/db]")
    options["db"] = int(path[1]) if len(path) == 2 else 0
    return RedisTarget(url, kind, nodes, path[0], options, sentinel_options)


def open_client(target: RedisTarget, max_connections: int) -> Client:
    """The store's client, with a pool of at most ``max_connections`` (per node on a cluster).

    Nothing connects yet: the first command does, so a service starts while Redis is down.
    """
    if target.kind == "cluster":
        startup = [ClusterNode(host, port) for host, port in target.nodes]
        return RedisCluster(
            startup_nodes=startup, max_connections=max_connections, **target.options
        )
    if target.kind == "sentinel":
        return _master(
            target, max_connections=max_connections, connection_pool_class=_BlockingSentinelPool
        )
    packed = PackedSSLConnection if urlsplit(target.url).scheme == "rediss" else PackedConnection
    scheme_class: dict[str, Any] = (
        {} if target.url.startswith("unix:") else {"connection_class": packed}
    )
    pool = redis.BlockingConnectionPool.from_url(
        target.url, max_connections=max_connections, **scheme_class
    )
    return redis.Redis(connection_pool=pool)


def _master(target: RedisTarget, single_connection: bool = False, **pool: Any) -> redis.Redis:
    sentinel = Sentinel(list(target.nodes), sentinel_kwargs=dict(target.sentinel_options))
    packed = PackedSentinelSSLConnection if target.options.get("ssl") else PackedSentinelConnection
    options = {key: value for key, value in target.options.items() if key != "ssl"}
    found = sentinel.master_for(target.service, connection_class=packed, **options, **pool)
    master = _SentinelMaster(
        connection_pool=found.connection_pool, single_connection_client=single_connection
    )
    master.auto_close_connection_pool = True
    master.sentinels = tuple(sentinel.sentinels)
    return master


def reader_client(target: RedisTarget, client: Client, key: str) -> redis.Redis:
    """A client of one connection, without retries, to the server that holds ``key``.

    The event feed blocks such a connection in ``XREAD`` and unblocks it by its id, so it
    must be one connection, and must notice when it is lost (its id changes then). On a
    cluster it is a connection to the node that serves ``key``'s slot now.
    """
    if isinstance(client, RedisCluster):
        node = client.get_node_from_key(key)
        if node is None:
            raise SlotNotCoveredError(f"no node serves {key!r}")
        return redis.Redis(
            host=node.host,
            port=int(node.port),
            single_connection_client=True,
            retry=NO_RETRY,
            **target.options,
        )
    if target.kind == "sentinel":
        return _master(target, single_connection=True, retry=NO_RETRY)
    return redis.Redis.from_url(target.url, single_connection_client=True, retry=NO_RETRY)


async def refresh_nodes(client: Client) -> None:
    """After a reader lost its node, have a cluster's client read the slot map again."""
    manager = getattr(client, "nodes_manager", None)
    if manager is not None:
        with contextlib.suppress(*UNAVAILABLE_ERRORS, ResponseError):
            await manager.initialize()


def node_target(client: Client, key: str) -> dict[str, Any]:
    """Where a keyless command about ``key`` must go (keyword arguments of the command).

    A pipelined ``WAIT`` after a write of ``key``, or ``CLIENT UNBLOCK`` of a connection
    reading it: on a cluster they must reach that key's node (a pipeline's commands for one
    node share one connection there); elsewhere there is one server.
    """
    if isinstance(client, RedisCluster):
        return {"target_nodes": client.get_node_from_key(key)}
    return {}
