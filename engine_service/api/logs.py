"""Structured logs: one JSON object per line, with whatever ``extra`` fields a call adds.

No line carries a credential from the configuration: the Redis URL's passwords are masked in
every line, whatever wrote it (a message, an extra field, a library's exception text).
"""

from __future__ import annotations

import json
import logging
import sys
from typing import Final

from engine_service.settings import Settings
from engine_service.store.url_secrets import mask, url_secrets

_STANDARD: Final = frozenset(vars(logging.makeLogRecord({}))) | {"message", "asctime"}
_ENCODER: Final = json.JSONEncoder(default=str)
"""One encoder for every line (``json.dumps`` with options builds a new one per call)."""


class JsonFormatter(logging.Formatter):
    """Format records as JSON lines that log shippers can parse without patterns.

    ``secrets`` are masked wherever they appear in a line, also as JSON writes them (a
    password with a quote or a backslash is escaped in the line).
    """

    def __init__(self, secrets: frozenset[str] = frozenset()) -> None:
        super().__init__()
        self._secrets = secrets | {_ENCODER.encode(secret)[1:-1] for secret in secrets}

    def format(self, record: logging.LogRecord) -> str:
        """The record, its level, logger, message and extra fields as one JSON object."""
        entry: dict[str, object] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        entry.update({k: v for k, v in vars(record).items() if k not in _STANDARD})
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        line = _ENCODER.encode(entry)
        return mask(line, self._secrets) if self._secrets else line


def configure_logging(settings: Settings) -> None:
    """Send JSON lines to stderr at the settings' level, with their credentials masked.

    The lines carry no caller, thread or process fields, so logging is told not to gather
    them (the optimisations the logging HOWTO lists); every RPC writes a line, so it counts.
    """
    logging._srcfile = None  # no caller lookup (a frame walk per record)
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter(url_secrets(settings.redis_url)))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(settings.log_level.upper())
