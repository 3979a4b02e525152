"""TLS on the gRPC port, with real certificates and real servers.

A TLS server answers a client that trusts its CA and refuses plaintext; a client trusting
another CA refuses the server. With a client CA (mutual TLS) a client without a certificate
is refused and one with a certificate signed by that CA gets in. The Python client's ``tls``
option and the Node client's are used against the same servers.
"""

from __future__ import annotations

import http.client
import os
import shutil
import ssl
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import engine_service_pb2_grpc
from cardengine_client import EngineClient, Tls, Unavailable
from websockets.sync.client import connect as sync_connect

from engine_service.api.tls import TlsSettingsError, tls_files
from engine_service.devtools.local import free_port, local_service
from engine_service.settings import Settings
from tests.service.certs import Certificates, make_certificates

pytestmark = pytest.mark.service

CALL_SECONDS = 10.0
NODE = shutil.which("node")
NODE_CLIENT = Path(__file__).resolve().parents[2] / "clients" / "node"


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certificates:
    return make_certificates(tmp_path_factory.mktemp("certs"))


@pytest.fixture(scope="module")
def tls_address(redis_url: str, certs: Certificates) -> Iterator[str]:
    tls = {"tls_cert": str(certs.server_cert), "tls_key": str(certs.server_key)}
    with local_service(redis_url, **tls) as address:
        yield address


@pytest.fixture(scope="module")
def mtls_address(redis_url: str, certs: Certificates) -> Iterator[str]:
    tls = {
        "tls_cert": str(certs.server_cert),
        "tls_key": str(certs.server_key),
        "tls_client_ca": str(certs.ca),
    }
    with local_service(redis_url, **tls) as address:
        yield address


def game_types(channel: grpc.Channel) -> list[str]:
    """The game types the server lists: one real call over ``channel``."""
    stub = engine_service_pb2_grpc.EngineServiceStub(channel)
    reply = stub.ListGameTypes(api.ListGameTypesRequest(), timeout=CALL_SECONDS)
    return sorted(t.name for t in reply.game_types)


def refused(channel: grpc.Channel) -> grpc.StatusCode:
    """The code a call over ``channel`` fails with (it must fail)."""
    with pytest.raises(grpc.RpcError) as failure:
        game_types(channel)
    return failure.value.code()


def credentials(certs: Certificates, *, client: bool, ca: Path | None = None) -> Tls:
    """The Python client's TLS options: trust ``ca`` (the test CA), show the client cert or not."""
    if client:
        return Tls.from_files(ca or certs.ca, certs.client_key, certs.client_cert)
    return Tls.from_files(ca or certs.ca)


def test_a_client_trusting_the_ca_calls_over_tls(tls_address: str, certs: Certificates) -> None:
    secure = credentials(certs, client=False).credentials()
    with grpc.secure_channel(tls_address, secure) as channel:
        assert "hearts" in game_types(channel)
    with EngineClient(tls_address, tls=credentials(certs, client=False), retries=0) as client:
        assert "hearts" in [t.name for t in client.list_game_types().game_types]


def test_plaintext_and_untrusting_clients_are_refused(
    tls_address: str, certs: Certificates
) -> None:
    with grpc.insecure_channel(tls_address) as channel:
        assert refused(channel) == grpc.StatusCode.UNAVAILABLE
    other = credentials(certs, client=False, ca=certs.other_ca).credentials()
    with grpc.secure_channel(tls_address, other) as channel:
        assert refused(channel) == grpc.StatusCode.UNAVAILABLE


def test_mutual_tls_needs_a_client_certificate(mtls_address: str, certs: Certificates) -> None:
    without = credentials(certs, client=False)
    with grpc.secure_channel(mtls_address, without.credentials()) as channel:
        assert refused(channel) == grpc.StatusCode.UNAVAILABLE
    with (
        EngineClient(mtls_address, tls=without, retries=0) as client,
        pytest.raises(Unavailable),
    ):
        client.list_game_types()
    with grpc.insecure_channel(mtls_address) as channel:
        assert refused(channel) == grpc.StatusCode.UNAVAILABLE
    with EngineClient(mtls_address, tls=credentials(certs, client=True), retries=0) as client:
        assert "hearts" in [t.name for t in client.list_game_types().game_types]


def test_the_node_client_speaks_tls_and_mutual_tls(
    tls_address: str, mtls_address: str, certs: Certificates
) -> None:
    if NODE is None:
        pytest.skip("node is not installed (make test installs Node.js): Node.js TLS not tested")
    env = {
        **os.environ,
        "ENGINE_TLS_ADDRESS": tls_address,
        "ENGINE_MTLS_ADDRESS": mtls_address,
        "ENGINE_TLS_CA": str(certs.ca),
        "ENGINE_TLS_CLIENT_CERT": str(certs.client_cert),
        "ENGINE_TLS_CLIENT_KEY": str(certs.client_key),
    }
    finished = subprocess.run(
        [NODE, "--test", "test/tls.test.js"],
        cwd=NODE_CLIENT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert finished.returncode == 0, finished.stdout + finished.stderr
    assert "# pass 3" in finished.stdout, finished.stdout


def test_tls_settings_are_checked_before_the_start(certs: Certificates, tmp_path: Path) -> None:
    """Half a pair, a client CA alone, a key of another certificate, a missing file: refused."""
    server = {"tls_cert": str(certs.server_cert), "tls_key": str(certs.server_key)}
    assert tls_files(Settings()) is None
    assert tls_files(Settings(**server)) is not None
    wrong = [
        {"tls_cert": str(certs.server_cert)},
        {"tls_client_ca": str(certs.ca)},
        {"tls_cert": str(certs.server_cert), "tls_key": str(certs.client_key)},
        {**server, "tls_client_ca": str(tmp_path / "missing.pem")},
    ]
    for settings in wrong:
        with pytest.raises(TlsSettingsError):
            tls_files(Settings(**settings))


def test_the_web_port_speaks_tls_and_mutual_tls_like_the_grpc_port(
    redis_url: str, certs: Certificates
) -> None:
    """With --tls-cert the web port is TLS only, with the same certificate and client CA,
    Play's WebSocket included."""
    port = free_port()
    tls = {
        "tls_cert": str(certs.server_cert),
        "tls_key": str(certs.server_key),
        "tls_client_ca": str(certs.ca),
    }
    url = f"https://localhost:{port}/cardengine.v1.EngineService/ListGameTypes"
    with local_service(redis_url, web_port=port, **tls):
        trusting = ssl.create_default_context(cafile=str(certs.ca))
        with pytest.raises(REFUSED):  # no client certificate
            connect_list_types(url, trusting)
        trusting.load_cert_chain(str(certs.client_cert), str(certs.client_key))
        assert "hearts" in connect_list_types(url, trusting)
        with pytest.raises(REFUSED):  # plaintext
            connect_list_types(url.replace("https:", "http:"), None)
        # Play's WebSocket is the same port: wss with the client certificate.
        play = f"wss://localhost:{port}/cardengine.v1.EngineService/Play"
        with sync_connect(play, ssl=trusting, open_timeout=CALL_SECONDS) as socket:
            leave = api.PlayRequest(ref=7, leave=api.PlayLeave(game_id="0" * 32))
            socket.send(leave.SerializeToString())
            answer = api.PlayResponse.FromString(socket.recv(CALL_SECONDS))
        assert answer.ref == 7 and answer.HasField("left")


REFUSED = (ssl.SSLError, urllib.error.URLError, ConnectionError, http.client.HTTPException)
"""How an HTTPS call refused at the handshake (or after it, under TLS 1.3) fails."""


def connect_list_types(url: str, context: ssl.SSLContext | None) -> str:
    """A Connect JSON ListGameTypes call: the answer's text."""
    request = urllib.request.Request(url, b"{}", {"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=CALL_SECONDS, context=context) as answer:
        return str(answer.read().decode())
