"""How much of a client's text the service repeats: error texts and log fields are bounded.

A request may carry strings as long as the largest request the service accepts; echoing one
into a status (its message, a ``BadRequest`` description, ``ErrorInfo`` metadata, the
``grpc-message`` header) copies it several times and can push the trailers over gRPC's
metadata limit, so the client would see RESOURCE_EXHAUSTED instead of the real status. A log
line with the whole string costs every log shipper the same. Only a prefix goes out.
"""

from __future__ import annotations

from typing import Final

MAX_TEXT: Final = 256
"""The most characters of one error text or metadata value a status carries."""
MAX_LOGGED: Final = 64
"""The most characters of one client-sent value a log line carries (a game id has 32)."""
_MORE: Final = "…"


def bounded(text: str, limit: int = MAX_TEXT) -> str:
    """``text``, or its first ``limit`` characters and an ellipsis when longer.

    >>> bounded("abcdef", 3)
    'abc…'
    >>> bounded("abc", 3)
    'abc'
    """
    return text if len(text) <= limit else text[:limit] + _MORE
