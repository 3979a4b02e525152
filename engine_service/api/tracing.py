"""Traces: an OpenTelemetry span for every RPC on both ports, joined to the caller's trace.

Off unless an OTLP endpoint is configured the standard way (``OTEL_EXPORTER_OTLP_ENDPOINT``
or ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``, and not ``OTEL_SDK_DISABLED=true``): then
:func:`start_tracing` installs OpenTelemetry's SDK with its OTLP exporter, which reads the
other ``OTEL_*`` variables itself (protocol, headers, service name, sampler, batch delay), and
every method's handler runs inside a server span (:func:`traced`) whose parent is the W3C
``traceparent`` (and ``tracestate``) the caller sent, as gRPC metadata or as an HTTP header.
The app layer adds child spans for the Redis load, the compare-and-set and the rules' apply
(:mod:`engine_service.app.spans`). Untraced, none of this is in the call's path: no wrapper,
and the child spans are a shared no-op.
"""

from __future__ import annotations

import inspect
import logging
import os
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any, Final

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from engine_service.app import spans

log = logging.getLogger(__name__)

SERVICE_NAME: Final = "cardengine"
"""The ``service.name`` unless ``OTEL_SERVICE_NAME`` or ``OTEL_RESOURCE_ATTRIBUTES`` says."""
_PROPAGATOR: Final = TraceContextTextMapPropagator()


def tracing_configured(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether an OTLP endpoint for traces is configured and the SDK not disabled."""
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    return bool(
        environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        or environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
    )


def start_tracing() -> TracerProvider | None:
    """Install the SDK and its OTLP exporter when configured; the provider to shut down."""
    if not tracing_configured():
        return None
    resource = Resource.create()  # from OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES
    if str(resource.attributes.get("service.name", "")).startswith("unknown_service"):
        resource = resource.merge(Resource({"service.name": SERVICE_NAME}))
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    spans.trace_with(provider.get_tracer("engine_service.app"))
    log.info("tracing", extra={"exporter": "otlp", "service": resource.attributes["service.name"]})
    return provider


def stop_tracing(provider: TracerProvider | None) -> None:
    """Send the spans still waiting and stop the exporter."""
    if provider is not None:
        spans.trace_with(None)
        provider.shutdown()


def traced(
    provider: TracerProvider, service: str
) -> Callable[[str, Callable[..., Any]], Callable[..., Any]]:
    """A guard for :func:`engine_service.api.wire.method_behaviours`: spans around handlers.

    Each method's handler runs in a server span named ``service/method``, a child of the
    trace the caller sent.
    """
    tracer = provider.get_tracer("engine_service.api")

    def guard(method: str, behaviour: Callable[..., Any]) -> Callable[..., Any]:
        name = f"{service}/{method}"
        attributes = {"rpc.service": service, "rpc.method": method}

        def start(context: Any) -> Any:
            carrier = {key: value for key, value in context.invocation_metadata() or ()}
            parent = _PROPAGATOR.extract(carrier)
            kind = trace.SpanKind.SERVER
            return tracer.start_as_current_span(
                name, context=parent, kind=kind, attributes=attributes
            )

        if inspect.isasyncgenfunction(behaviour):

            async def stream(request: Any, context: Any) -> AsyncIterator[Any]:
                with start(context):
                    async for reply in behaviour(request, context):
                        yield reply

            return stream

        async def unary(request: Any, context: Any) -> Any:
            with start(context):
                return await behaviour(request, context)

        return unary

    return guard
