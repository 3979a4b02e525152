"""A connection torn down under a call is storage trouble; the same error elsewhere is a bug.

redis-py's cluster client disconnects a failed node's connections while other calls still
write on them, and the write fails with an ``AttributeError`` about ``None`` rather than a
``ConnectionError`` (seen in the cluster-failover scenario). Both errors here are real ones,
raised by a real redis-py connection that has no stream and by our own code.
"""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio.connection

from engine_service.store.failures import storage_trouble


async def write_on_a_closed_connection() -> None:
    connection = redis.asyncio.connection.Connection(host="127.0.0.1", port=1)
    await connection._send_packed_command([b"PING\r\n"])  # never connected: no stream


def test_a_write_on_a_connection_torn_down_is_a_connection_trouble() -> None:
    with pytest.raises(AttributeError) as caught:
        asyncio.run(write_on_a_closed_connection())
    assert storage_trouble(caught.value) == "CONNECTION"


def test_the_same_error_in_our_own_code_stays_a_bug() -> None:
    stream = None
    with pytest.raises(AttributeError) as caught:
        stream.writelines([b"PING\r\n"])  # type: ignore[attr-defined]
    assert storage_trouble(caught.value) is None
