"""Grow and shrink a running Redis Cluster on loopback: add a master, rebalance, drain one.

For measuring what callers of the service see while its cluster changes under load. Each
step goes through ``redis-cli --cluster`` (what an operator runs), and each waits, bounded,
until every node agrees on who holds which slots, so the next step (or a measurement window)
starts from a settled cluster rather than from one still gossiping.

Processes are stopped by their PID, never by name: a node started here by its own
:func:`~engine_service.devtools.local.redis_server` handle; a drained node started by someone
else (:func:`~engine_service.devtools.local.redis_cluster`) by the PID it reports itself
(``INFO server``), since its starter's handle is out of reach. The starter's own stop then
finds it gone and only reaps it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import redis

from engine_service.devtools.local import (
    alive,
    cluster_node,
    port_of,
    redis_cli,
    wait_until,
)
from engine_service.store.connect import parse_target

OPERATION_SECONDS = 600.0
"""Bound on one ``redis-cli --cluster`` run: moving thousands of slots under load is slow."""


@dataclass(frozen=True)
class Master:
    """A master as ``CLUSTER NODES`` lists it: where it listens, its id, how many slots."""

    address: str
    node_id: str
    slots: int


def masters_of(nodes: Mapping[str, Any]) -> list[Master]:
    """The masters, not failed, in a ``CLUSTER NODES`` reply as redis-py parses it.

    >>> masters_of({"127.0.0.1:7000": {"node_id": "abc", "flags": "myself,master",
    ...                                "slots": [["0", "9"], ["12"]], "migrations": []},
    ...             "127.0.0.1:7001": {"node_id": "def", "flags": "slave", "slots": []}})
    [Master(address='127.0.0.1:7000', node_id='abc', slots=11)]
    """
    found = []
    for address, node in nodes.items():
        flags = node["flags"].split(",")
        if "master" not in flags or "fail" in flags:
            continue
        slots = sum(int(run[-1]) - int(run[0]) + 1 for run in node["slots"])
        found.append(Master(address.split("@")[0], node["node_id"], slots))
    return sorted(found, key=lambda master: master.address)


class ClusterAdmin:
    """The masters of the cluster at a ``redis+cluster://`` URL, and changes to them.

    Use it as a context manager: on exit every node it started and has not yet removed is
    stopped. Only for loopback clusters whose nodes run on this machine (a drain stops the
    drained node's process).
    """

    def __init__(self, url: str, node_timeout_ms: int = 2000) -> None:
        target = parse_target(url)
        if target.kind != "cluster":
            raise ValueError(f"not a redis+cluster:// URL: {url}")
        self.password: str | None = target.options.get("password")
        self.node_timeout_ms = node_timeout_ms
        self._known = [f"{host}:{port}" for host, port in target.nodes]
        self._started: dict[str, contextlib.ExitStack] = {}

    def __enter__(self) -> ClusterAdmin:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        for stack in self._started.values():
            stack.close()
        self._started.clear()

    def client(self, address: str, socket_timeout: float | None = None) -> redis.Redis:
        """A plain client of one node (the caller closes it)."""
        host, port = address.rsplit(":", 1)
        return redis.Redis(host, int(port), password=self.password, socket_timeout=socket_timeout)

    def _nodes(self, address: str) -> dict[str, Any]:
        """``CLUSTER NODES`` of one node, parsed by redis-py (address -> fields)."""
        with contextlib.closing(self.client(address, socket_timeout=5.0)) as node:
            return dict(node.cluster("NODES"))

    def masters(self) -> list[Master]:
        """The masters as the first reachable known node sees them."""
        for address in self._known:
            with contextlib.suppress(redis.RedisError):
                masters = masters_of(self._nodes(address))
                self._known = [master.address for master in masters] or self._known
                return masters
        raise RuntimeError(f"no node of the cluster answers (tried {self._known})")

    def settled(self) -> bool:
        """Every master reports the same slot map, no slot moving, and ``cluster_state:ok``."""
        masters = self.masters()
        for master in masters:
            nodes = self._nodes(master.address)
            if (
                any(node.get("migrations") for node in nodes.values())
                or masters_of(nodes) != masters
            ):
                return False
            with contextlib.closing(self.client(master.address)) as node:
                if node.cluster("INFO")["cluster_state"] != "ok":
                    return False
        return True

    def _cli(self, *arguments: str) -> str:
        """Run ``redis-cli --cluster ...``; its output, or RuntimeError carrying the output."""
        command = [*redis_cli(self.password), "--cluster", *arguments]
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=OPERATION_SECONDS, check=False
        )
        if done.returncode != 0 or "[ERR]" in done.stdout:
            tail = (done.stdout + done.stderr)[-2000:]
            raise RuntimeError(f"{' '.join(command[-4:])} failed ({done.returncode}):\n{tail}")
        return done.stdout

    def _wait_settled(self, what: str) -> None:
        wait_until(self.settled, what, seconds=OPERATION_SECONDS / 10)

    def add_master(self) -> Master:
        """Start an empty master and join it to the cluster; it holds no slot yet."""
        stack = contextlib.ExitStack()
        url = stack.enter_context(cluster_node(self.password, self.node_timeout_ms))
        address = f"127.0.0.1:{port_of(url)}"
        self._started[address] = stack
        self._cli("add-node", address, self.masters()[0].address)
        self._known.append(address)

        def joined() -> bool:
            return address in {m.address for m in self.masters()} and self.settled()

        wait_until(joined, f"{address} joining the cluster", seconds=OPERATION_SECONDS / 10)
        return next(m for m in self.masters() if m.address == address)

    def rebalance(self, weights: Mapping[str, float] | None = None, empty: bool = False) -> None:
        """``--cluster rebalance``: slots in proportion to ``weights`` (by node id, default 1).

        ``empty`` lets masters without slots take a share (``--cluster-use-empty-masters``);
        a weight of 0 moves every slot off that node.
        """
        arguments = ["rebalance", self.masters()[0].address]
        if weights:
            arguments += ["--cluster-weight", *(f"{node}={w:g}" for node, w in weights.items())]
        if empty:
            arguments.append("--cluster-use-empty-masters")
        self._cli(*arguments)
        self._wait_settled("the cluster settling after a rebalance")

    def drain(self, address: str) -> None:
        """Move every slot off the master at ``address``, remove it, and stop its process."""
        (master,) = (m for m in self.masters() if m.address == address)
        self.rebalance({master.node_id: 0})
        # A master that gives up its last slot may turn into a replica of the node that took
        # it (cluster-allow-replica-migration): either way it must hold none now.
        if any(m.address == address and m.slots for m in self.masters()):
            raise RuntimeError(f"{address} still holds slots after draining it")
        with contextlib.closing(self.client(address)) as node:
            pid = int(node.info("server")["process_id"])
        survivor = next(m.address for m in self.masters() if m.address != address)
        self._cli("del-node", survivor, master.node_id)
        self._known = [known for known in self._known if known != address]
        stack = self._started.pop(address, None)
        if stack is not None:
            stack.close()
        else:
            stop_pid(pid)
        self._wait_settled(f"the cluster forgetting {address}")


def stop_pid(pid: int) -> None:
    """SIGCONT and SIGTERM to ``pid``; SIGKILL if it still runs after STARTUP_SECONDS.

    For a process whose handle is elsewhere, so it cannot be waited on: this polls until the
    process has exited (a zombie counts as exited; its parent reaps it later).
    """
    for sent in (signal.SIGCONT, signal.SIGTERM):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sent)
    try:
        wait_until(lambda: not alive(pid), f"process {pid} exiting on SIGTERM")
    except RuntimeError:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        wait_until(lambda: not alive(pid), f"process {pid} exiting on SIGKILL")
