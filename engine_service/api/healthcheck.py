"""``python -m engine_service.api.healthcheck``: exit 0 when the local server reports SERVING.

A container health check that needs nothing but this package: it asks the standard gRPC
health service (``grpc.health.v1``), which the server sets to NOT_SERVING while it drains,
so an orchestrator stops sending traffic before the process exits. It reads the server's own
``ENGINE_ADDRESS`` and turns a wildcard host (``0.0.0.0``, ``[::]``) into loopback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

WILDCARD_HOSTS = frozenset({"", "0.0.0.0", "[::]", "::"})


def probe_target(address: str) -> str:
    """The address to probe for a server that listens on ``address``."""
    host, _, port = address.rpartition(":")
    return f"127.0.0.1:{port}" if host in WILDCARD_HOSTS else address


def check(address: str, service: str = "", timeout: float = 3.0) -> str:
    """The serving status name of ``service`` ("" for the whole server), or the failure's."""
    with grpc.insecure_channel(probe_target(address)) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=timeout)
        except grpc.RpcError as error:
            return str(error.code().name)
    return str(health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status))


def main(argv: Sequence[str] | None = None) -> int:
    """Print the status; exit status 0 only for SERVING."""
    parser = argparse.ArgumentParser(prog="healthcheck", description=__doc__)
    parser.add_argument("--address", default=os.environ.get("ENGINE_ADDRESS", "127.0.0.1:50051"))
    parser.add_argument("--service", default="", help='e.g. "cardengine.v1.EngineService"')
    parser.add_argument("--timeout", type=float, default=3.0)
    args = parser.parse_args(argv)
    status = check(args.address, args.service, args.timeout)
    print(status)
    return 0 if status == "SERVING" else 1


if __name__ == "__main__":
    sys.exit(main())
