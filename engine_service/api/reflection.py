"""Server reflection, as ``grpc.reflection.v1`` and ``grpc.reflection.v1alpha``, with comments.

``grpcio-reflection`` serves only ``v1alpha`` and rebuilds each file from the descriptor pool,
which drops the comments. This servicer answers both names (the two protocols are the same
messages under two package names, so one set of message classes serves both on the wire) and
sends each of our files as ``make protos`` compiled it, source info included, so tools that
show comments (``grpcurl describe``, Postman) show the proto's documentation. Files without
a compiled copy (the health service's, say) are rebuilt from the pool as before.

The stored snapshot schema (``cardengine.internal``, the ``storage_pb`` stubs) is in the same
pool but is no API: clients never see those messages, so reflection answers as if they did
not exist (NOT_FOUND), by file name, by symbol and by extension.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping, Sequence
from importlib import resources
from typing import Any, Final

import grpc
from cardengine.v1 import errors_pb2  # noqa: F401  (puts errors.proto in the default pool)
from google.protobuf import descriptor, descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection_pb2 as messages

from engine_service.api.wire import DEFAULT_MAX_REQUEST_BYTES, Unreadable, deserializer, refuse

SERVICE_NAMES: Final = (
    "grpc.reflection.v1.ServerReflection",
    "grpc.reflection.v1alpha.ServerReflection",
)
DESCRIPTOR_SET: Final = "descriptors.binpb"
"""The file ``make protos`` writes beside the generated ``cardengine`` stubs."""
INTERNAL_PACKAGE: Final = "cardengine.internal"
"""The package of the stored snapshot schema, which reflection never serves."""


def is_internal(file: descriptor.FileDescriptor) -> bool:
    """Whether ``file`` belongs to the internal snapshot schema."""
    return file.package == INTERNAL_PACKAGE or file.package.startswith(INTERNAL_PACKAGE + ".")


def compiled_files() -> dict[str, bytes]:
    """Our files as compiled with their comments, by file name (empty if not built)."""
    with contextlib.suppress(FileNotFoundError, ModuleNotFoundError):
        data = resources.files("cardengine").joinpath(DESCRIPTOR_SET).read_bytes()
        files = descriptor_pb2.FileDescriptorSet.FromString(data).file
        return {file.name: file.SerializeToString() for file in files}
    return {}


class ReflectionServicer:
    """Answers reflection requests from the default descriptor pool."""

    def __init__(self, service_names: Sequence[str], files: Mapping[str, bytes]) -> None:
        self._services = tuple(sorted(service_names))
        self._files = files
        self._pool = descriptor_pool.Default()

    async def ServerReflectionInfo(  # noqa: N802 (the gRPC method's name)
        self, requests: AsyncIterator[messages.ServerReflectionRequest], context: Any
    ) -> AsyncIterator[messages.ServerReflectionResponse]:
        """One response per request, in order, until the client closes its side.

        A request whose bytes do not parse ends the stream with INVALID_ARGUMENT
        (:mod:`engine_service.api.wire`).
        """
        async for request in requests:
            if isinstance(request, Unreadable):
                await refuse(context, request)
            yield self.answer(request)

    def answer(
        self, request: messages.ServerReflectionRequest
    ) -> messages.ServerReflectionResponse:
        """The response to one request; an unknown name gets a NOT_FOUND error response."""
        kind = request.WhichOneof("message_request")
        response = messages.ServerReflectionResponse(original_request=request)
        try:
            if kind == "list_services":
                listed = [messages.ServiceResponse(name=name) for name in self._services]
                response.list_services_response.service.extend(listed)
            elif kind == "all_extension_numbers_of_type":
                message_type = self._pool.FindMessageTypeByName(
                    request.all_extension_numbers_of_type
                )
                if is_internal(message_type.file):
                    raise KeyError(request.all_extension_numbers_of_type)
                numbers = response.all_extension_numbers_response
                numbers.base_type_name = message_type.full_name
                numbers.extension_number.extend(
                    sorted(e.number for e in self._pool.FindAllExtensions(message_type))
                )
            elif kind is not None:
                found = self._file_of(request, kind)
                response.file_descriptor_response.file_descriptor_proto.extend(
                    self._with_deps(found)
                )
            else:
                raise KeyError("empty request")
        except KeyError as error:
            response.ClearField("message_response")
            response.error_response.error_code = grpc.StatusCode.NOT_FOUND.value[0]
            response.error_response.error_message = str(error)
        return response

    def _file_of(
        self, request: messages.ServerReflectionRequest, kind: str
    ) -> descriptor.FileDescriptor:
        found = self._found_file(request, kind)
        if is_internal(found):
            raise KeyError(f"not found: {getattr(request, kind)}")  # as if it did not exist
        return found

    def _found_file(
        self, request: messages.ServerReflectionRequest, kind: str
    ) -> descriptor.FileDescriptor:
        if kind == "file_by_filename":
            return self._pool.FindFileByName(request.file_by_filename)
        if kind == "file_containing_symbol":
            return self._file_containing(request.file_containing_symbol)
        asked = request.file_containing_extension
        message_type = self._pool.FindMessageTypeByName(asked.containing_type)
        extension = self._pool.FindExtensionByNumber(message_type, asked.extension_number)
        return self._pool.FindFileContainingSymbol(extension.full_name)

    def _file_containing(self, symbol: str) -> descriptor.FileDescriptor:
        """The file that declares ``symbol``, a method (``Service.Method``) included.

        The pool finds messages, fields, enums and services, but not methods (with the upb
        backend), and ``grpcurl describe cardengine.v1.EngineService.SubmitAction`` asks for
        one, so a method is looked up through its service.
        """
        try:
            return self._pool.FindFileContainingSymbol(symbol)
        except KeyError:
            service_name, _, method = symbol.rpartition(".")
            service = self._pool.FindServiceByName(service_name)
            if method not in service.methods_by_name:
                raise
            return service.file

    def _with_deps(self, file: descriptor.FileDescriptor) -> list[bytes]:
        """``file`` and every file it imports, directly or not, each once."""
        seen: dict[str, bytes] = {}
        pending = [file]
        while pending:
            current = pending.pop()
            if current.name in seen:
                continue
            if is_internal(current):  # no public file imports one; never sent if one did
                continue
            seen[current.name] = self._files.get(current.name) or _rebuilt(current)
            pending.extend(current.dependencies)
        return list(seen.values())


def _rebuilt(file: descriptor.FileDescriptor) -> bytes:
    proto = descriptor_pb2.FileDescriptorProto()
    file.CopyToProto(proto)
    return proto.SerializeToString()


def enable_reflection(
    service_names: Sequence[str],
    server: grpc.aio.Server,
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
) -> None:
    """Serve reflection under both names for ``service_names`` (and reflection itself)."""
    servicer = ReflectionServicer((*service_names, *SERVICE_NAMES), compiled_files())
    handler = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=deserializer(messages.ServerReflectionRequest, max_request_bytes),
        response_serializer=messages.ServerReflectionResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers(
        tuple(
            grpc.method_handlers_generic_handler(name, {"ServerReflectionInfo": handler})
            for name in SERVICE_NAMES
        )
    )
