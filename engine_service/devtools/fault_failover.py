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
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import redis
from redis.crc import key_slot

from engine_service.store.connect import RedisTarget, parse_target

PROMOTION_SECONDS = 30.0
"""How long a promotion may take on a loaded machine before the scenario gives up."""
POLL_SECONDS = 0.05

Address = tuple[str, int]


Victim = tuple[int, Callable[[], bool]]
"""A master's PID, and how to tell that its replica has taken over."""


@dataclass
class Failover:
    """Which master to kill, chosen at the fault, and the wait for its replica's promotion.

    ``choose`` is given the keys the load uses now, so that on a cluster the master killed is
    one the load is writing to (a master holding none of its games would go unnoticed).
    """

    choose: Callable[[Sequence[str]], Victim]
    promoted: Callable[[], bool] | None = None

    def kill(self, keys: Sequence[str]) -> None:
        """``kill -9`` of the chosen master: no shutdown, nothing more sent to the replicas."""
        pid, self.promoted = self.choose(keys)
        os.kill(pid, signal.SIGKILL)

    def wait_promoted(self) -> None:
        """Until the replica is the master and serving."""
        if self.promoted is None:
            raise RuntimeError("nothing was killed: call kill() first")
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

    victim = (_pid(old, target), promoted)
    return Failover(lambda _keys: victim)


def _address(text: str) -> Address:
    host, port = text.rsplit(":", 1)
    return host, int(port)


def cluster_master(url: str) -> Failover:
    """At the fault, the master of the cluster ``url`` seeds that serves most of the load's keys.

    So that the load surely has calls on its slots when it dies (a few games in play may all
    live on the other masters). Every replica is in sync first. Promoted once the replica says
    it is a master and the cluster is whole again (``cluster_state:ok``), which it is after
    the node timeout, the other masters' votes and the replica's election.
    """
    target = parse_target(url)
    with _node(target.nodes[0], target.options) as client:
        nodes: dict[str, Any] = client.cluster("NODES")
    replicas = {
        node["master_id"]: _address(address)
        for address, node in nodes.items()
        if "slave" in node["flags"].split(",")
    }
    masters = {
        _address(address): replicas[node["node_id"]]
        for address, node in nodes.items()
        if "master" in node["flags"].split(",") and node["slots"]
    }
    slots = {
        _address(address): [(int(r[0]), int(r[-1])) for r in node["slots"]]
        for address, node in nodes.items()
        if _address(address) in masters
    }

    def synced() -> bool:
        return all(_in_sync(replica, target) for replica in masters.values())

    # A replica that never finished its first sync refuses to fail over (its data's age is
    # unbounded), and the fixture's cluster is whole before the masters' delayed sync ran.
    _until(synced, "every replica in sync")

    def choose(keys: Sequence[str]) -> Victim:
        served = Counter(_owner(key_slot(key.encode()), slots) for key in keys)
        master = max(masters, key=lambda address: served[address])
        replica = masters[master]

        def promoted() -> bool:
            if _role(replica, target) != "master":
                return False
            with _node(replica, target.options) as client:
                info: Any = client.cluster("INFO")
                return info["cluster_state"] == "ok"  # type: ignore[no-any-return]

        return _pid(master, target), promoted

    return Failover(choose)


def _in_sync(replica: Address, target: RedisTarget) -> bool:
    with _node(replica, target.options) as client:
        info: Any = client.info("replication")
        return info["master_link_status"] == "up"  # type: ignore[no-any-return]


def _owner(slot: int, slots: Mapping[Address, list[tuple[int, int]]]) -> Address | None:
    """The master whose slot ranges hold ``slot``."""
    return next(
        (address for address, ranges in slots.items() if any(a <= slot <= b for a, b in ranges)),
        None,
    )
