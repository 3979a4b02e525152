"""Failovers for the fault scenarios: a Sentinel or Cluster master killed by its PID.

The Sentinel and Cluster fixtures of :mod:`engine_service.devtools.local` keep their
processes to themselves, so a scenario asks the master for its PID (``INFO server``),
``kill -9``s it and then waits for what a deployment relies on: the sentinels, or the
cluster's own failure detection, promoting its replica. Nobody restarts the killed node;
its fixture reaps it on exit like every other node.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import redis

from engine_service.store.connect import RedisTarget, parse_target

PROMOTION_SECONDS = 30.0
"""How long a promotion may take on a loaded machine before the scenario gives up."""
POLL_SECONDS = 0.05

Address = tuple[str, int]


@dataclass(frozen=True)
class Failover:
    """The master to kill, and how to tell that its replica has taken over."""

    pid: int
    promoted: Callable[[], bool]

    def kill(self) -> None:
        """``kill -9``: no shutdown, nothing more sent to the replicas."""
        os.kill(self.pid, signal.SIGKILL)

    def wait_promoted(self) -> None:
        """Until the replica is the master and serving."""
        _until(self.promoted, "a replica promoted")


def _until(ready: Callable[[], bool], what: str) -> None:
    """Poll ``ready`` (Redis errors count as not yet) for at most PROMOTION_SECONDS."""
    deadline = time.monotonic() + PROMOTION_SECONDS
    while True:
        with contextlib.suppress(redis.RedisError):
            if ready():
                return
        if time.monotonic() > deadline:
            raise RuntimeError(f"not {what} in {PROMOTION_SECONDS} s")
        time.sleep(POLL_SECONDS)


@contextlib.contextmanager
def _node(address: Address, options: Mapping[str, Any]) -> Iterator[redis.Redis]:
    """A short-lived plaintext client of one node or sentinel, with the URL's credentials."""
    auth = {key: options[key] for key in ("username", "password") if key in options}
    client = redis.Redis(*address, socket_timeout=1.0, decode_responses=True, **auth)
    try:
        yield client
    finally:
        client.close()


def _pid(address: Address, target: RedisTarget) -> int:
    with _node(address, target.options) as client:
        info: Any = client.info("server")
        return int(info["process_id"])


def _role(address: Address, target: RedisTarget) -> str:
    with _node(address, target.options) as client:
        role: Any = client.role()
        return str(role[0])


def sentinel_master(url: str) -> Failover:
    """The master the sentinels of ``url`` name now; promoted once they name another one."""
    target = parse_target(url)

    def named() -> Address:
        for address in target.nodes:
            with (
                contextlib.suppress(redis.RedisError),
                _node(address, target.sentinel_options) as client,
            ):
                found: Any = client.sentinel_get_master_addr_by_name(
                    target.service, return_responses=True
                )
                return str(found[0]), int(found[1])
        raise redis.ConnectionError("no sentinel answered")

    old = named()

    def promoted() -> bool:
        new = named()
        return new != old and _role(new, target) == "master"

    return Failover(_pid(old, target), promoted)


def _address(text: str) -> Address:
    host, port = text.rsplit(":", 1)
    return host, int(port)


def cluster_master(url: str) -> Failover:
    """A master of the cluster ``url`` seeds that serves slots, once its replica is in sync.

    Promoted once the replica says it is a master and the cluster is whole again
    (``cluster_state:ok``), which it is after the node timeout, the other masters' votes and
    the replica's election.
    """
    target = parse_target(url)
    with _node(target.nodes[0], target.options) as client:
        nodes: dict[str, Any] = client.cluster("NODES")
    master, node = next(
        (address, node)
        for address, node in sorted(nodes.items())
        if "master" in node["flags"].split(",") and node["slots"]
    )
    replica = _address(next(a for a, n in nodes.items() if n["master_id"] == node["node_id"]))

    def synced() -> bool:
        with _node(replica, target.options) as client:
            info: Any = client.info("replication")
            return info["master_link_status"] == "up"  # type: ignore[no-any-return]

    # A replica that never finished its first sync refuses to fail over (its data's age is
    # unbounded), and the fixture's cluster is whole before the masters' delayed sync ran.
    _until(synced, "the replica in sync")

    def promoted() -> bool:
        if _role(replica, target) != "master":
            return False
        with _node(replica, target.options) as client:
            info: Any = client.cluster("INFO")
            return info["cluster_state"] == "ok"  # type: ignore[no-any-return]

    return Failover(_pid(_address(master), target), promoted)
