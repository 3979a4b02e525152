"""Game options between a config dataclass and its proto message, field by field.

The proto message and the config dataclass use the same field names; enum fields map by
name (``HEARTS_VARIANT_CLASSIC`` <-> ``Variant("classic")``). Unset proto fields keep the
config's default, so clients send only what they change.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any, Final, TypeVar

from google.protobuf.message import Message

from engine_service.core.errors import MalformedRequest

ConfigT = TypeVar("ConfigT")
MessageT = TypeVar("MessageT", bound=Message)

CACHE_LIMIT: Final = 1024
"""Distinct option sets remembered; every stored game and view converts its options, and
almost all games use a handful of sets, so a few hundred entries answer nearly every call."""
_DECODED: dict[tuple[type[Any], bytes], Any] = {}
_ENCODED: dict[tuple[Any, type[Message]], bytes] = {}


def _enum_prefix(field: Any) -> str:
    return str(field.enum_type.values_by_number[0].name).removesuffix("UNSPECIFIED")


def decode_options(message: Message, config_type: type[ConfigT], field_path: str) -> ConfigT:
    """The config a client asked for (configs are frozen, so equal messages share one).

    Raises:
        MalformedRequest: an enum left at its zero value, or a value the config refuses.
    """
    key = (config_type, message.SerializeToString(deterministic=True))
    config: ConfigT | None = _DECODED.get(key)
    if config is None:
        config = _decode_options(message, config_type, field_path)
        if len(_DECODED) < CACHE_LIMIT:
            _DECODED[key] = config
    return config


def _decode_options(message: Message, config_type: type[ConfigT], field_path: str) -> ConfigT:
    defaults = {f.name: f.default for f in dataclasses.fields(config_type)}  # type: ignore[arg-type]
    chosen: dict[str, Any] = {}
    field: Any
    for field, value in message.ListFields():
        default = defaults[field.name]
        if isinstance(default, enum.Enum):
            known = field.enum_type.values_by_number.get(value)
            if known is None or value == 0:
                raise MalformedRequest(f"{field_path}.{field.name}", "must be a named value")
            name = known.name
            chosen[field.name] = type(default)(name.removeprefix(_enum_prefix(field)).lower())
        else:
            chosen[field.name] = value
    try:
        return config_type(**chosen)
    except ValueError as error:
        raise MalformedRequest(field_path, str(error)) from error


def encode_options(config: Any, message_type: type[MessageT]) -> MessageT:
    """The proto of a config with every field set (a new message, built from a cached copy)."""
    key = (config, message_type)
    encoded = _ENCODED.get(key)
    if encoded is None:
        encoded = _encode_options(config, message_type).SerializeToString(deterministic=True)
        if len(_ENCODED) < CACHE_LIMIT:
            _ENCODED[key] = encoded
    return message_type.FromString(encoded)


def _encode_options(config: Any, message_type: type[MessageT]) -> MessageT:
    message = message_type()
    field: Any
    for field in message.DESCRIPTOR.fields:
        value = getattr(config, field.name)
        if isinstance(value, enum.Enum):
            value = field.enum_type.values_by_name[_enum_prefix(field) + value.value.upper()].number
        setattr(message, field.name, value)
    return message
