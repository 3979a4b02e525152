"""Structured logs: one JSON object per line, with whatever ``extra`` fields a call adds."""

from __future__ import annotations

import json
import logging
import sys
from typing import Final

_STANDARD: Final = frozenset(vars(logging.makeLogRecord({}))) | {"message", "asctime"}
_ENCODER: Final = json.JSONEncoder(default=str)
"""One encoder for every line (``json.dumps`` with options builds a new one per call)."""


class JsonFormatter(logging.Formatter):
    """Format records as JSON lines that log shippers can parse without patterns."""

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
        return _ENCODER.encode(entry)


def configure_logging(level: str) -> None:
    """Send JSON lines to stderr at ``level``.

    The lines carry no caller, thread or process fields, so logging is told not to gather
    them (the optimisations the logging HOWTO lists); every RPC writes a line, so it counts.
    """
    logging._srcfile = None  # no caller lookup (a frame walk per record)
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
