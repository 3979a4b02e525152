"""A burst of server-streaming calls against a bare ``grpc.aio`` server: which ones start?

This is the reproduction behind the service's answer to a burst of ``WatchGame`` opens, with
none of the service's code in it, written to be handed to gRPC's maintainers as it is. The
server (a child process) serves one server-streaming method of raw bytes that sends a message
at once and then holds the stream open. The client opens ``--streams`` calls at once on one
channel and counts, per call, whether that message came, whether the call ended with an error
before it (and which), or neither within ``--wait`` seconds.

What it shows with grpcio 1.85 on 2 cores: 2,000 calls at once, about 7 % end with CANCELLED
(details ``CANCELLED``) and their handler never runs: gRPC core's server sheds calls that wait
for the application to request them while more than ``grpc.server.max_pending_requests``
(default 1,000) wait, at random, and all of them past
``grpc.server.max_pending_requests_hard_limit`` (default 3,000). With ``--pending-limit
10000`` none is shed. The asyncio server requests calls one by one from its event loop, so a
burst on one connection reaches the limit easily; the client sees only CANCELLED, which reads
like a cancellation of its own, and the server logs nothing.

Run it as ``python -m bench.grpc_burst [--streams 2000] [--pending-limit N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import subprocess
import sys
import time
from collections.abc import AsyncIterator

import grpc

from engine_service.devtools.local import free_port

SERVICE = "burst.Burst"
WATCH = f"/{SERVICE}/Watch"
HOLD_SECONDS = 120.0
"""How long a stream stays open after its message (the client leaves well before)."""


def _same(data: bytes) -> bytes:
    """Raw bytes in and out: no message types needed."""
    return data


async def serve(port: int, pending_limit: int | None) -> None:
    """Serve the method on loopback until killed."""

    async def watch(request: bytes, context: object) -> AsyncIterator[bytes]:
        yield b"first"
        await asyncio.sleep(HOLD_SECONDS)

    handler = grpc.method_handlers_generic_handler(
        SERVICE, {"Watch": grpc.unary_stream_rpc_method_handler(watch, _same, _same)}
    )
    options: list[tuple[str, int]] = []
    if pending_limit is not None:
        options = [
            ("grpc.server.max_pending_requests", pending_limit),
            ("grpc.server.max_pending_requests_hard_limit", 3 * pending_limit),
        ]
    server = grpc.aio.server(options=options)
    server.add_generic_rpc_handlers((handler,))
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    await server.wait_for_termination()


async def burst(port: int, streams: int, wait: float) -> collections.Counter[str]:
    """Open ``streams`` calls at once; how each one went, counted."""
    outcomes: collections.Counter[str] = collections.Counter()
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        watch = channel.unary_stream(WATCH, _same, _same)

        async def one() -> None:
            call = watch(b"")
            try:
                first = await asyncio.wait_for(call.read(), wait)
                outcomes["started" if first == b"first" else "ended without a message"] += 1
            except TimeoutError:
                outcomes["silent"] += 1
            except grpc.aio.AioRpcError as error:
                outcomes[f"{error.code().name} ({error.details()}) before a message"] += 1
            finally:
                call.cancel()

        await asyncio.gather(*(one() for _ in range(streams)))
    return outcomes


def main(argv: list[str] | None = None) -> None:
    """Start the server, run the burst, print the outcomes."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=2000)
    parser.add_argument("--pending-limit", type=int, default=None)
    parser.add_argument("--wait", type=float, default=20.0, help="seconds per first message")
    parser.add_argument("--serve", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve is not None:
        asyncio.run(serve(args.serve, args.pending_limit))
        return
    port = free_port()
    command = [sys.executable, "-m", "bench.grpc_burst", "--serve", str(port)]
    if args.pending_limit is not None:
        command += ["--pending-limit", str(args.pending_limit)]
    server = subprocess.Popen(command)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as probe:
            grpc.channel_ready_future(probe).result(timeout=30)
        started = time.perf_counter()
        outcomes = asyncio.run(burst(port, args.streams, args.wait))
        seconds = time.perf_counter() - started
    finally:
        server.kill()
        server.wait()
    limit = args.pending_limit or "gRPC's default"
    print(f"grpcio {grpc.__version__}, {args.streams} streams at once, pending limit {limit}:")
    for outcome, count in outcomes.most_common():
        print(f"  {count:6d}  {outcome}")
    print(f"  ({seconds:.1f} s)")


if __name__ == "__main__":
    main()
