"""Fault scenarios under load: Redis killed, frozen, an engine process killed."""
