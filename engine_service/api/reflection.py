"""Server reflection under both names tools ask for: ``grpc.reflection.v1`` and ``v1alpha``.

``grpcio-reflection`` implements only ``v1alpha``. The ``v1`` service is the same protocol
renamed (identical messages and field numbers), so its method is served by the same
servicer with the ``v1alpha`` message classes: the bytes on the wire are the same. Tools that
speak only ``v1`` (recent ``grpcurl``, Postman) then find every service and message,
including enums such as ``cardengine.v1.ErrorReason`` that no RPC mentions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import grpc
from cardengine.v1 import errors_pb2  # noqa: F401  (puts errors.proto in the default pool)
from grpc_reflection.v1alpha import reflection, reflection_pb2
from grpc_reflection.v1alpha._async import ReflectionServicer

V1_SERVICE: Final = "grpc.reflection.v1.ServerReflection"


def enable_reflection(service_names: Sequence[str], server: grpc.aio.Server) -> None:
    """Serve reflection v1alpha and v1 for ``service_names`` (both reflection names added)."""
    names = (*service_names, reflection.SERVICE_NAME, V1_SERVICE)
    servicer = ReflectionServicer(names)
    reflection.enable_server_reflection(names, server)
    handler = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(V1_SERVICE, {"ServerReflectionInfo": handler}),)
    )
