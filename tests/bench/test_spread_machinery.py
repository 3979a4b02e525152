"""The machinery of ``python -m bench.spread``, small: cluster changes and the hot-key count.

The cluster helpers run on a real three-master cluster without replicas (a few seconds): a
master joins and takes a share of the slots (a small one, quick to move); drained again, it
holds none, has left the cluster and its process has stopped. The ``MONITOR`` parsing and the
write counting run on recorded lines, as Redis 7 prints them (a script's line first, then its
own commands).
"""

from __future__ import annotations

import contextlib
from collections import Counter

import pytest

from bench.consistency import check_all
from bench.hot_keys import WriteCounter, parse_monitor_line
from bench.spread import Timeline, busiest_over_mean, codes_text
from engine_service.devtools.cluster_ops import ClusterAdmin
from engine_service.devtools.local import CLUSTER_PORT_LIMIT, alive, redis_cluster
from engine_service.store.connect import parse_target

WRITES = {"hset": 1, "zadd": 1, "rpush": 1, "xadd": 1, "set": 1, "del": 1}


@pytest.mark.service
def test_a_master_is_added_given_slots_then_drained_and_stopped():
    with redis_cluster(3, replicas=0) as url, ClusterAdmin(url) as admin:
        assert all(port < CLUSTER_PORT_LIMIT for _, port in parse_target(url).nodes)
        first = admin.masters()
        assert len(first) == 3 and sum(m.slots for m in first) == 16384

        added = admin.add_master()
        assert added.slots == 0
        # A small weight (about 270 slots): redis-cli moved 4,096 slots in 4 to 7 s here.
        admin.rebalance({added.node_id: 0.05}, empty=True)
        slots = {m.address: m.slots for m in admin.masters()}
        assert len(slots) == 4 and sum(slots.values()) == 16384
        assert 16384 * 0.05 / 3.05 * 0.9 < slots[added.address] < 16384 * 0.05 / 3.05 * 1.1

        with contextlib.closing(admin.client(added.address)) as node:
            pid = int(node.info("server")["process_id"])
        admin.drain(added.address)
        assert added.address not in {m.address for m in admin.masters()}
        assert sum(m.slots for m in admin.masters()) == 16384
        assert not alive(pid)

        clients = [admin.client(m.address) for m in admin.masters()]
        try:
            assert check_all(clients, {"gone"}) == {
                "gone": ["a client saw it but it is not stored"]
            }
        finally:
            for client in clients:
                client.close()


def test_monitor_lines_are_parsed_with_their_quoting():
    line = r'1.5 [0 127.0.0.1:5000] "EVALSHA" "ab12" "2" "ce:{g1}:x:game" "k\"q" "a b\x00"'
    logged = parse_monitor_line(line)
    assert logged is not None
    assert logged.client == "127.0.0.1:5000"
    assert logged.args == ("EVALSHA", "ab12", "2", "ce:{g1}:x:game", 'k"q', "a b\x00")
    assert parse_monitor_line("OK") is None
    assert parse_monitor_line('2.0 [0 lua] "hset" "h" "f" "v"').client == "lua"


def test_writes_count_a_scripts_declared_keys_once_and_only_if_it_wrote():
    lines = [
        '1.0 [0 127.0.0.1:1] "evalsha" "s" "2" "game" "due" "snapshot bytes"',
        '1.1 [0 lua] "hget" "game" "v"',
        '1.2 [0 lua] "hset" "game" "v" "2"',
        '1.3 [0 lua] "zadd" "due" "5" "game"',
        '1.4 [0 lua] "zadd" "due" "6" "game"',
        '2.0 [0 127.0.0.1:2] "evalsha" "s" "1" "other"',
        '2.1 [0 lua] "hget" "other" "v"',
        '3.0 [0 127.0.0.1:1] "set" "plain" "1"',
        '3.1 [0 127.0.0.1:1] "get" "plain"',
        '4.0 [0 127.0.0.1:3] "evalsha" "s" "1" "last"',
        '4.1 [0 lua] "del" "last"',
    ]
    counter = WriteCounter(WRITES)
    for line in lines:
        logged = parse_monitor_line(line)
        assert logged is not None
        counter.feed(logged)
    counter.close()
    assert counter.per_key == Counter({"game": 1, "due": 1, "plain": 1, "last": 1})
    assert counter.run_per_key == Counter({"game": 1, "due": 2, "plain": 1, "last": 1})
    assert counter.lines == len(lines)


def test_the_report_helpers():
    timeline = Timeline([("add", 1.0, 2.0), ("rebalance", 2.001, 3.0), ("drain", 5.0, 6.0)])
    assert [name for name, _, _ in timeline.phases(0.0, 9.0)] == [
        "before add",
        "add",
        "rebalance",
        "between rebalance and drain",
        "drain",
        "after drain",
    ]
    assert busiest_over_mean([1, 1, 4]) == 2.0
    assert busiest_over_mean([]) == 0.0
    codes = Counter({"OK": 5, "ABORTED": 1, "UNAVAILABLE": 2, "INTERNAL": 1})
    assert codes_text(codes) == "ABORTED 1, OK 5; UNAVAILABLE 2; other: INTERNAL 1"
