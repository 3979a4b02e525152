"""A connection torn down under a call is storage trouble; the same error elsewhere is a bug.

redis-py's cluster client disconnects a failed node's connections while other calls still
write on them, and the write fails with an ``AttributeError`` about ``None`` rather than a
``ConnectionError`` (seen in the cluster-failover scenario); redis-py 8.2 raises
``ConnectionError`` itself. The errors here are real ones, raised by the installed redis-py's
connection that has no stream and by our own code, so the tests hold on either version.
"""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio.connection

from engine_service.store.failures import WRITES_TEAR_UNTRANSLATED, storage_trouble


async def write_on_a_closed_connection() -> None:
    connection = redis.asyncio.connection.Connection(host="127.0.0.1", port=1)
    await connection._send_packed_command([b"PING\r\n"])  # never connected: no stream


def test_a_write_on_a_connection_torn_down_is_a_connection_trouble() -> None:
    """redis-py up to 8.1 raises an AttributeError here, 8.2 a ConnectionError: both count."""
    with pytest.raises((AttributeError, redis.ConnectionError)) as caught:
        asyncio.run(write_on_a_closed_connection())
    assert storage_trouble(caught.value) == "CONNECTION"


def test_the_workaround_is_on_exactly_when_the_installed_redis_py_needs_it() -> None:
    with pytest.raises(Exception) as caught:
        asyncio.run(write_on_a_closed_connection())
    assert isinstance(caught.value, AttributeError) == WRITES_TEAR_UNTRANSLATED


def test_the_same_error_in_our_own_code_stays_a_bug() -> None:
    stream = None
    with pytest.raises(AttributeError) as caught:
        stream.writelines([b"PING\r\n"])  # type: ignore[attr-defined]
    assert storage_trouble(caught.value) is None
