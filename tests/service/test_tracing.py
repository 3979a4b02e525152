"""Traces: spans for every RPC on both ports, joined to the caller's trace, sent over OTLP.

A real engine process is started with the standard ``OTEL_*`` variables pointing at a small
OTLP/HTTP receiver in the test (it decodes the exported ``ExportTraceServiceRequest``s), and
called over gRPC and over Connect with a W3C ``traceparent`` of the test's own.
"""

from __future__ import annotations

import http.server
import json
import threading
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import engine_service_pb2_grpc
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

from engine_service.api.tracing import tracing_configured
from engine_service.devtools.local import free_port
from tests.service.keyed import server_process
from tests.service.rpc_helpers import HUMAN, RANDOM, first_legal, token_md

pytestmark = pytest.mark.service

WAIT_SECONDS = 20.0
"""A bound on the spans' arrival (the exporter sends every 50 ms here)."""
SERVICE = "cardengine.v1.EngineService"


class Receiver(http.server.ThreadingHTTPServer):
    """An OTLP/HTTP endpoint on loopback that keeps every span it is sent."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.spans: list[Any] = []
        self.services: set[str] = set()
        self.lock = threading.Lock()

    def of_trace(self, trace_id: bytes) -> list[Any]:
        with self.lock:
            return [span for span in self.spans if span.trace_id == trace_id]


class _Handler(http.server.BaseHTTPRequestHandler):
    server: Receiver

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["content-length"]))
        request = trace_service_pb2.ExportTraceServiceRequest.FromString(body)
        with self.server.lock:
            for resource in request.resource_spans:
                for attribute in resource.resource.attributes:
                    if attribute.key == "service.name":
                        self.server.services.add(attribute.value.string_value)
                for scope in resource.scope_spans:
                    self.server.spans.extend(scope.spans)
        answer = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, format: str, *args: Any) -> None:
        return


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def spans_of(receiver: Receiver, trace_id: bytes, names: set[str]) -> dict[str, Any]:
    """The trace's spans by name, once all of ``names`` have arrived (bounded wait)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        found = {span.name: span for span in receiver.of_trace(trace_id)}
        if names <= found.keys() or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def traceparent(trace_id: bytes, span_id: bytes) -> str:
    return f"00-{trace_id.hex()}-{span_id.hex()}-01"


def test_calls_on_both_ports_join_the_callers_trace(redis_url: str, receiver: Receiver) -> None:
    web_port = free_port()
    otel = {
        "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{receiver.server_address[1]}",
        "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
        "OTEL_BSP_SCHEDULE_DELAY": "50",
        "OTEL_SERVICE_NAME": "cardengine-under-test",
    }
    with (
        server_process(redis_url, f"--web-port={web_port}", **otel) as address,
        grpc.insecure_channel(address) as channel,
    ):
        stub = engine_service_pb2_grpc.EngineServiceStub(channel)
        created = stub.CreateGame(
            api.CreateGameRequest(game_type="hearts", seats=[HUMAN, RANDOM, RANDOM, RANDOM])
        )
        token = created.seat_tokens[0].token
        view = stub.GetGameView(
            api.GetGameViewRequest(game_id=created.game_id, seat=0), metadata=token_md(token)
        ).view
        grpc_trace, grpc_parent = bytes(range(1, 17)), bytes(range(1, 9))
        move = api.SubmitActionRequest(
            game_id=created.game_id,
            seat=0,
            expected_version=view.version,
            request_id="traced-1",
            action=first_legal(view),
        )
        stub.SubmitAction(
            move, metadata=(*token_md(token), ("traceparent", traceparent(grpc_trace, grpc_parent)))
        )
        web_trace, web_parent = bytes(range(17, 33)), bytes(range(9, 17))
        request = urllib.request.Request(
            f"http://127.0.0.1:{web_port}/{SERVICE}/GetGameView",
            data=json.dumps({"gameId": created.game_id, "seat": 0}).encode(),
            headers={
                "content-type": "application/json",
                "x-seat-token": token,
                "traceparent": traceparent(web_trace, web_parent),
            },
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            assert answer.status == 200
        submit_name = f"{SERVICE}/SubmitAction"
        on_grpc = spans_of(
            receiver, grpc_trace, {submit_name, "rules.apply", "redis.compare_and_set"}
        )
        view_name = f"{SERVICE}/GetGameView"
        on_web = spans_of(receiver, web_trace, {view_name, "redis.load"})
    submit = on_grpc[submit_name]
    assert submit.parent_span_id == grpc_parent
    assert submit.kind == submit.SPAN_KIND_SERVER
    for child in ("rules.apply", "redis.compare_and_set"):
        assert on_grpc[child].parent_span_id == submit.span_id, child
    assert receiver.services == {"cardengine-under-test"}
    served = on_web[view_name]
    assert served.parent_span_id == web_parent
    assert on_web["redis.load"].parent_span_id == served.span_id


def test_tracing_is_off_unless_an_endpoint_is_configured() -> None:
    assert not tracing_configured({})
    assert tracing_configured({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"})
    assert tracing_configured({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"})
    disabled = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"}
    assert not tracing_configured(disabled)
