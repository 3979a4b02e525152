"""The store over TLS: an engine server against a redis-server that speaks only TLS.

The certificates are real (a CA and a server certificate for 127.0.0.1, made fresh); the
service is given a ``rediss://`` URL whose query names the CA file, and for a Redis that
requires client certificates (``--tls-auth-clients yes``) the client's certificate and key.
A game is created, a move submitted and a WatchGame update read: the save script, the
event stream and the feed's own reader connection all go over TLS.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import grpc
import pytest
import redis
from cardengine.v1 import engine_service_pb2_grpc

from engine_service.devtools.local import RedisTls, local_service, redis_server
from tests.service.certs import make_certificates
from tests.service.rpc_helpers import (
    HUMAN,
    RANDOM,
    create,
    first_legal,
    stored,
    submit,
    tokens_of,
    view,
    watch_until,
)

pytestmark = pytest.mark.service


@pytest.fixture(params=["server-certificate", "client-certificates"])
def tls(request: pytest.FixtureRequest, tmp_path: Path) -> RedisTls:
    certs = make_certificates(tmp_path)
    server = (certs.ca, certs.server_cert, certs.server_key)
    if request.param == "client-certificates":
        return RedisTls(*server, certs.client_cert, certs.client_key)
    return RedisTls(*server)


@pytest.fixture
def tls_redis(tls: RedisTls) -> Iterator[str]:
    with redis_server(tls=tls) as url:
        yield url


def test_the_url_is_tls_only(tls_redis: str, tls: RedisTls) -> None:
    """Plaintext to the TLS port is refused, so the game below really went over TLS."""
    port = urlsplit(tls_redis).port
    plain = redis.Redis(host="127.0.0.1", port=port, socket_timeout=5)
    try:
        with pytest.raises(redis.ConnectionError):
            plain.ping()
    finally:
        plain.close()
    if tls.client_cert:
        anonymous = redis.Redis.from_url(
            f"rediss://127.0.0.1:{port}/0", ssl_ca_certs=str(tls.ca), socket_timeout=5
        )
        try:
            with pytest.raises(redis.ConnectionError):
                anonymous.ping()
        finally:
            anonymous.close()


def test_a_game_is_created_played_and_watched_over_tls(tls_redis: str) -> None:
    with (
        local_service(tls_redis) as address,
        grpc.insecure_channel(address) as channel,
        redis.Redis.from_url(tls_redis) as client,
    ):
        stub = engine_service_pb2_grpc.EngineServiceStub(channel)
        created = create(stub, [HUMAN, RANDOM, RANDOM, RANDOM], seed=3)
        token = tokens_of(created)[0]
        seat_view = view(stub, created.game_id, 0, token)
        moved = submit(stub, created.game_id, 0, token, first_legal(seat_view), seat_view.version)
        assert moved.version > seat_view.version
        assert int(stored(client, created.game_id)[b"v"]) >= moved.version
        watched = watch_until(
            stub, created.game_id, 0, token, seat_view.version, lambda v: v.version > 0
        )
        assert watched.version > seat_view.version
