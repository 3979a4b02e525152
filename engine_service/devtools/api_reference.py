"""``python -m engine_service.devtools.api_reference``: the API reference page, from the protos.

It reads the descriptor set the stubs are generated with (``cardengine/descriptors.binpb``,
compiled with ``--include_source_info``, so every comment in ``protos/cardengine/v1`` is in
it) and writes Markdown: each service with its methods, then each file's messages (a table of
fields) and enums (a table of values), every one with its comment. ``make docs`` writes it to
``docs/reference.md`` before MkDocs builds the site, so the reference cannot drift from the
protos.

Considered instead: protoc-gen-doc (a Go binary, fetched from GitHub, which this project's
machines cannot reach) and buf's remote documentation plugins (they need the Buf Schema
Registry). The descriptor set is already built and pinned with the stubs.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Sequence
from importlib import resources
from pathlib import Path

from google.protobuf import descriptor_pb2

PUBLIC_PREFIX = "cardengine/v1/"
FieldProto = descriptor_pb2.FieldDescriptorProto
_SCALARS = {
    value: name.removeprefix("TYPE_").lower()
    for name, value in FieldProto.Type.items()
    if name not in ("TYPE_MESSAGE", "TYPE_ENUM", "TYPE_GROUP")
}
# Paths into a FileDescriptorProto, as SourceCodeInfo numbers them (descriptor.proto).
_MESSAGES, _ENUMS, _SERVICES = 4, 5, 6
_FIELDS, _NESTED, _NESTED_ENUMS, _VALUES, _METHODS = 2, 3, 4, 2, 2


def load_files() -> list[descriptor_pb2.FileDescriptorProto]:
    """The public API's files, as compiled with their comments."""
    data = resources.files("cardengine").joinpath("descriptors.binpb").read_bytes()
    files = descriptor_pb2.FileDescriptorSet.FromString(data).file
    return sorted((f for f in files if f.name.startswith(PUBLIC_PREFIX)), key=lambda f: f.name)


def _comments(file: descriptor_pb2.FileDescriptorProto) -> dict[tuple[int, ...], str]:
    found = {}
    for location in file.source_code_info.location:
        text = (location.leading_comments or location.trailing_comments).strip()
        if text:
            found[tuple(location.path)] = " ".join(line.strip() for line in text.splitlines())
    return found


def _type_name(field: FieldProto) -> str:
    if field.type in (FieldProto.TYPE_MESSAGE, FieldProto.TYPE_ENUM):
        return _linked(field.type_name.lstrip("."))
    return _SCALARS[field.type]


def _linked(full_name: str) -> str:
    """A link to a type of this API's; a type from elsewhere (a Timestamp) by its name."""
    if not full_name.startswith("cardengine."):
        return f"`{full_name}`"
    return f"[{full_name.rpartition('.')[2]}](#{_anchor(full_name)})"


def _anchor(full_name: str) -> str:
    return full_name.lower().replace(".", "")


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _heading(level: int, full_name: str) -> str:
    """A heading with an explicit anchor (attr_list), so type links resolve exactly."""
    return f"{'#' * level} {full_name.rpartition('.')[2]} {{#{_anchor(full_name)}}}"


def _titled(
    level: int, full_name: str, path: tuple[int, ...], notes: dict[tuple[int, ...], str]
) -> Iterator[str]:
    """A declaration's heading, then its comment (when it has one)."""
    yield _heading(level, full_name)
    yield ""
    if path in notes:
        yield notes[path]
        yield ""


def _enum(
    enum: descriptor_pb2.EnumDescriptorProto,
    prefix: str,
    path: tuple[int, ...],
    notes: dict[tuple[int, ...], str],
) -> Iterator[str]:
    yield from _titled(3, f"{prefix}.{enum.name}", path, notes)
    yield "| value | number | meaning |"
    yield "| --- | ---: | --- |"
    for index, value in enumerate(enum.value):
        note = _cell(notes.get((*path, _VALUES, index), ""))
        yield f"| `{value.name}` | {value.number} | {note} |"
    yield ""


def _message(
    message: descriptor_pb2.DescriptorProto,
    prefix: str,
    path: tuple[int, ...],
    notes: dict[tuple[int, ...], str],
) -> Iterator[str]:
    full = f"{prefix}.{message.name}"
    yield from _titled(3, full, path, notes)
    if message.field:
        yield "| field | number | type | meaning |"
        yield "| --- | ---: | --- | --- |"
        maps = {f"{full}.{n.name}": n for n in message.nested_type if n.options.map_entry}
        for index, field in enumerate(message.field):
            repeated = "repeated " if field.label == FieldProto.LABEL_REPEATED else ""
            oneof = (
                f" (one of `{message.oneof_decl[field.oneof_index].name}`)"
                if field.HasField("oneof_index") and not field.proto3_optional
                else ""
            )
            note = _cell(notes.get((*path, _FIELDS, index), ""))
            entry = maps.get(field.type_name.lstrip("."))
            kind = (
                f"map<{_type_name(entry.field[0])}, {_type_name(entry.field[1])}>"
                if entry is not None
                else f"{repeated}{_type_name(field)}"
            )
            yield f"| `{field.name}` | {field.number} | {kind} | {note}{oneof} |"
        yield ""
    else:
        yield "No fields."
        yield ""
    for index, nested in enumerate(message.nested_type):
        if not nested.options.map_entry:
            yield from _message(nested, full, (*path, _NESTED, index), notes)
    for index, enum in enumerate(message.enum_type):
        yield from _enum(enum, full, (*path, _NESTED_ENUMS, index), notes)


def _service(
    service: descriptor_pb2.ServiceDescriptorProto,
    prefix: str,
    path: tuple[int, ...],
    notes: dict[tuple[int, ...], str],
) -> Iterator[str]:
    yield from _titled(2, f"{prefix}.{service.name}", path, notes)
    yield "| method | request | response | what it does |"
    yield "| --- | --- | --- | --- |"
    for index, method in enumerate(service.method):
        stream_in = "stream " if method.client_streaming else ""
        stream_out = "stream " if method.server_streaming else ""
        request = _linked(method.input_type.lstrip("."))
        response = _linked(method.output_type.lstrip("."))
        note = _cell(notes.get((*path, _METHODS, index), ""))
        yield f"| `{method.name}` | {stream_in}{request} | {stream_out}{response} | {note} |"
    yield ""


def markdown(files: Sequence[descriptor_pb2.FileDescriptorProto]) -> str:
    """The whole reference page."""
    lines = [
        "# API reference",
        "",
        "Generated from the comments in `protos/cardengine/v1/` by "
        "`python -m engine_service.devtools.api_reference` (`make docs`); the "
        "[API guide](api.md) explains how the calls fit together.",
        "",
    ]
    for file in files:
        notes = _comments(file)
        for index, service in enumerate(file.service):
            lines += _service(service, file.package, (_SERVICES, index), notes)
    for file in files:
        notes = _comments(file)
        lines += [f"## {file.name}", ""]
        for index, message in enumerate(file.message_type):
            lines += _message(message, file.package, (_MESSAGES, index), notes)
        for index, enum in enumerate(file.enum_type):
            lines += _enum(enum, file.package, (_ENUMS, index), notes)
    return "\n".join(lines).rstrip() + "\n"


def main() -> None:
    """Write the reference to ``--out``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="the Markdown file to write")
    args = parser.parse_args()
    args.out.write_text(markdown(load_files()))


if __name__ == "__main__":
    main()
