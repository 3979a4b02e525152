"""Helpers of the service-key tests: key lines, keyed calls, the details of a refusal."""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf import duration_pb2
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from engine_service.app.seats import key_spec
from engine_service.devtools.local import engine_command, free_port, wait_serving

STARTUP_SECONDS = 30.0


@dataclass(frozen=True)
class Key:
    """A service key made for one test: a name of its own (so its quotas start fresh)."""

    name: str
    secret: str
    line: str

    @property
    def md(self) -> tuple[tuple[str, str], ...]:
        return (("x-service-key", self.secret),)


def new_key(scopes: str, limits: str = "") -> Key:
    """A fresh key with ``scopes`` (comma-separated) and its own ``limits``, if any."""
    name = f"t{uuid.uuid4().hex[:12]}"
    secret = uuid.uuid4().hex
    line = key_spec(name, secret, scopes.split(","))
    return Key(name, secret, f"{line}:{limits}" if limits else line)


@dataclass
class Refusal:
    """A failed call's code, ErrorInfo and the RetryInfo/QuotaFailure details, if any."""

    code: grpc.StatusCode
    reason: str
    metadata: dict[str, str]
    retry: duration_pb2.Duration | None = None
    quota: list[error_details_pb2.QuotaFailure.Violation] = field(default_factory=list)

    @property
    def retry_seconds(self) -> float:
        assert self.retry is not None, "no RetryInfo"
        return self.retry.seconds + self.retry.nanos / 1e9


def refusal(call: Callable[[], Any]) -> Refusal:
    """Run ``call``, which must fail with a google.rpc.Status, and read its details."""
    try:
        call()
    except grpc.RpcError as error:
        return refusal_of(error)
    raise AssertionError("the call succeeded")


def refusal_of(error: grpc.RpcError) -> Refusal:
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None, "the error carries no google.rpc.Status"
    found = Refusal(error.code(), "", {})  # type: ignore[attr-defined]
    for detail in status.details:
        info, retry, quota = (
            error_details_pb2.ErrorInfo(),
            error_details_pb2.RetryInfo(),
            error_details_pb2.QuotaFailure(),
        )
        if detail.Unpack(info):
            found.reason, found.metadata = info.reason, dict(info.metadata)
        elif detail.Unpack(retry):
            found.retry = retry.retry_delay
        elif detail.Unpack(quota):
            found.quota = list(quota.violations)
    return found


@contextmanager
def server_process(redis_url: str, *args: str, **env: str) -> Iterator[str]:
    """``python -m engine_service`` as its own process on a free port; stopped by its PID."""
    address = f"127.0.0.1:{free_port()}"
    command = engine_command(address, redis_url, "--processes=1", *args)
    environment = {
        **os.environ,
        "ENGINE_LOG_LEVEL": "WARNING",
        "ENGINE_ALLOW_VOLATILE_REDIS": "1",
        **env,
    }
    process = subprocess.Popen(command, env=environment)
    try:
        wait_serving(address, process, STARTUP_SECONDS)
        yield address
    finally:
        process.terminate()
        process.wait(timeout=STARTUP_SECONDS)
