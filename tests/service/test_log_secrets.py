"""No credential reaches the log, at any level.

An engine process runs at DEBUG against a redis-server that requires a password, with TLS on
its port and service keys configured. Calls succeed and fail (no key, a wrong key, a wrong
seat token, a good one), Redis stops answering and comes back, the process drains. Then
every line it logged is searched for the Redis password, the keys' secrets, the TLS private
key and every token the service handed out.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import engine_service_pb2_grpc

from engine_service.devtools.local import (
    engine_command,
    free_port,
    redis_pid,
    redis_server,
    wait_serving,
)
from tests.service.certs import Certificates, make_certificates
from tests.service.engine_process import wait_for
from tests.service.keyed import new_key
from tests.service.rpc_helpers import HUMAN, RANDOM, token_md

pytestmark = pytest.mark.service

PASSWORD = "pw-Quux'\"\\9"
"""With a quote and a backslash: the log's JSON escapes them, and the mask must still find it."""
START_SECONDS = 30.0
CALL_SECONDS = 10.0


@pytest.fixture
def certs(tmp_path: Path) -> Certificates:
    folder = tmp_path / "certs"
    folder.mkdir()
    return make_certificates(folder)


@pytest.fixture
def protected_redis() -> Iterator[str]:
    """A redis-server that requires ``PASSWORD``; its URL carries it, as a deployment's does."""
    with redis_server(args=["--requirepass", PASSWORD]) as url:
        host_and_rest = url.split("://", 1)[1]
        yield f"redis://:{PASSWORD.replace('%', '%25')}@{host_and_rest}"


def test_no_credential_of_the_configuration_or_the_calls_is_logged(
    protected_redis: str, certs: Certificates, tmp_path: Path
) -> None:
    key = new_key("create,list,admin")
    address = f"127.0.0.1:{free_port()}"
    flags = [f"--tls-cert={certs.server_cert}", f"--tls-key={certs.server_key}"]
    flags += [f"--service-key={key.line}", "--processes=1"]
    log_path = tmp_path / "engine.log"
    environment = {**os.environ, "ENGINE_LOG_LEVEL": "DEBUG"}
    credentials = grpc.ssl_channel_credentials(certs.ca.read_bytes())
    handed_out: list[str] = []
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            engine_command(address, protected_redis, *flags), env=environment, stderr=log
        )
        try:
            wait_serving(address, process, START_SECONDS, credentials)
            with grpc.secure_channel(address, credentials) as channel:
                handed_out += exercise(engine_service_pb2_grpc.EngineServiceStub(channel), key.md)
                redis_outage(protected_redis, log_path)
                handed_out += exercise(engine_service_pb2_grpc.EngineServiceStub(channel), key.md)
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=START_SECONDS)
    text = log_path.read_text(errors="replace")
    assert '"serving"' in text, "the run did not log its serving line, which names the URL"
    secrets = {
        "the Redis password": PASSWORD,
        "the Redis password as JSON writes it": PASSWORD.replace("\\", "\\\\").replace('"', '\\"'),
        "the service key": key.secret,
        "the TLS private key": certs.server_key.read_text().splitlines()[1],
    } | {f"token {index}": token for index, token in enumerate(handed_out)}
    leaked = [what for what, secret in secrets.items() if secret in text]
    assert not leaked, f"{leaked} found in the log"


def exercise(stub: engine_service_pb2_grpc.EngineServiceStub, key_md: tuple) -> list[str]:
    """Calls that succeed and calls that fail; the tokens the service handed out."""
    request = api.CreateGameRequest(game_type="hearts", seats=[HUMAN, RANDOM, RANDOM, RANDOM])
    for refused_md in ((), (("x-service-key", "not-" + key_md[0][1]),)):
        with pytest.raises(grpc.RpcError):
            stub.CreateGame(request, metadata=refused_md, timeout=CALL_SECONDS)
    try:
        created = stub.CreateGame(request, metadata=key_md, timeout=CALL_SECONDS)
    except grpc.RpcError as error:  # storage trouble in the outage: nothing handed out
        assert error.code() is grpc.StatusCode.UNAVAILABLE, error
        return []
    tokens = [seat.token for seat in created.seat_tokens] + [created.admin_token]
    view = api.GetGameViewRequest(game_id=created.game_id, seat=0)
    stub.GetGameView(view, metadata=token_md(tokens[0]), timeout=CALL_SECONDS)
    with pytest.raises(grpc.RpcError):
        stub.GetGameView(view, metadata=token_md(tokens[0][::-1]), timeout=CALL_SECONDS)
    return tokens


def redis_outage(url: str, log_path: Path) -> None:
    """Redis frozen until the engine logged that it does not answer, then back."""
    pid = redis_pid(url)
    os.kill(pid, signal.SIGSTOP)
    try:
        wait_for(lambda: b"Redis does not answer" in log_path.read_bytes(), "the outage logged")
    finally:
        os.kill(pid, signal.SIGCONT)
