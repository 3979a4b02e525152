"""A card-game engine service: exact rules, seat-scoped views, game state kept in Redis.

Layers (each imports only those listed after it):
``api`` (gRPC) -> ``app`` (use cases) -> ``codec`` (protobuf <-> domain), ``store``
(Redis, bytes only) and ``games``/``bots``/``core`` (pure rules, no I/O).
"""
