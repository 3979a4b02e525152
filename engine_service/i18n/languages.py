"""The languages the service speaks, and choosing one from an ``accept-language`` value.

Choosing follows RFC 9110 section 12.5.4 (weighted language ranges) with the "lookup" scheme
of RFC 4647 section 3.4: ranges are tried from the highest weight down (equal weights in the
order written), and a range with subtags is shortened one subtag at a time (``fr-CH`` ->
``fr``) until it names a supported language. A weight of 0 means "not this one". Anything
malformed is skipped rather than refused, since a bad header must never fail a call.
"""

from __future__ import annotations

import re
from typing import Final

ENGLISH: Final = "en"
"""The fallback: every text exists in English first."""

SUPPORTED: Final[tuple[str, ...]] = ("en", "es", "fr", "de", "nl")
"""Every language with a full set of texts, as primary language subtags (RFC 5646)."""

_RANGE: Final = re.compile(r"\*|[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*")
_WEIGHT: Final = re.compile(r"[qQ]\s*=\s*(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)")


def _ranges(header: str) -> list[tuple[float, int, str]]:
    """``(weight, position, range)`` for each well-formed range of ``header``."""
    ranges = []
    for position, item in enumerate(header.split(",")):
        tag, *parameters = (part.strip() for part in item.split(";"))
        if not _RANGE.fullmatch(tag):
            continue
        weight = 1.0
        for parameter in parameters:
            matched = _WEIGHT.fullmatch(parameter)
            weight = float(matched.group(1)) if matched else -1.0
        if weight >= 0:
            ranges.append((weight, position, tag.lower()))
    return ranges


def _lookup(language_range: str, excluded: set[str]) -> str | None:
    """The supported language a range names, shortened per RFC 4647 lookup, if any."""
    subtags = language_range.split("-")
    while subtags:
        candidate = "-".join(subtags)
        if candidate in SUPPORTED and candidate not in excluded:
            return candidate
        subtags.pop()
    return None


def negotiate(header: str | None) -> str:
    """The supported language an ``accept-language`` value prefers most; English otherwise.

    >>> negotiate("fr-CH, fr;q=0.9, de;q=0.5")
    'fr'
    >>> negotiate("da, nl-BE;q=0.8, en;q=0.7")
    'nl'
    >>> negotiate("de;q=0.4, es;q=0.6")
    'es'
    >>> negotiate("en;q=0, *")
    'es'
    >>> negotiate("ja"), negotiate(""), negotiate(None)
    ('en', 'en', 'en')
    """
    if not header:
        return ENGLISH
    ranges = _ranges(header)
    excluded = {tag for weight, _, tag in ranges if weight == 0 and tag != "*"}
    for weight, _, tag in sorted(ranges, key=lambda r: (-r[0], r[1])):
        if weight == 0:
            break
        if tag == "*":
            return next((lang for lang in SUPPORTED if lang not in excluded), ENGLISH)
        found = _lookup(tag, excluded)
        if found is not None:
            return found
    return ENGLISH


def supported(language: str) -> str:
    """``language`` if it is supported (case-insensitive), else English."""
    lowered = language.lower()
    return lowered if lowered in SUPPORTED else ENGLISH
