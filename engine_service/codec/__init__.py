"""The only package that touches generated protobuf classes: proto <-> domain conversions.

Decoders raise :class:`~engine_service.core.errors.MalformedRequest` naming the bad field, so
that a client's mistake becomes INVALID_ARGUMENT and never INTERNAL.
"""
