"""The secrets a Redis URL carries, and the URL without them, for logs and messages.

A deployment puts the Redis password in ``REDIS_URL`` (``redis://:<password>@host/0``, or a
``password`` / ``sentinel_password`` query parameter), so any line that names the URL, or an
error that quotes it, would hand the password to whoever reads the logs. The log formatter
(:mod:`engine_service.api.logs`) masks every secret found here in every line it writes, and
messages name the URL only through :func:`redacted`.
"""

from __future__ import annotations

from typing import Final
from urllib.parse import parse_qsl, unquote, urlsplit

MASK: Final = "***"


def url_secrets(url: str) -> frozenset[str]:
    """Every password in ``url``, as written and percent-decoded.

    >>> sorted(url_secrets("redis+sentinel://:p%40ss@h1,h2/m?sentinel_password=s3"))
    ['p%40ss', 'p@ss', 's3']
    >>> url_secrets("redis://127.0.0.1:6379/0")
    frozenset()
    """
    parts = urlsplit(url)
    found = {parts.password} if parts.password else set()
    found |= {value for name, value in parse_qsl(parts.query) if "password" in name and value}
    return frozenset(found | {unquote(secret) for secret in found})


def redacted(url: str) -> str:
    """``url`` with each of its passwords masked.

    >>> redacted("redis://user:secret@cache:6379/0")
    'redis://user:***@cache:6379/0'
    >>> redacted("rediss://cache:6379/0?password=secret&ssl_ca_certs=/ca.pem")
    'rediss://cache:6379/0?password=***&ssl_ca_certs=/ca.pem'
    >>> redacted("redis://127.0.0.1:6379/0")
    'redis://127.0.0.1:6379/0'
    """
    return mask(url, url_secrets(url))


def mask(text: str, secrets: frozenset[str]) -> str:
    """``text`` with every occurrence of each of ``secrets`` replaced by ``***``, longest first.

    >>> mask("a pw and a pw2", frozenset({"pw", "pw2"}))
    'a *** and a ***'
    """
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, MASK)
    return text
