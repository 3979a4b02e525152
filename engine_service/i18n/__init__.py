"""Texts for people in their own language: refusals, rule names and game summaries.

Supported: English (the fallback), Spanish, French, German and Dutch. Pure Python and pure
data (module-level immutable mappings): nothing here knows gRPC or Redis. The api layer picks
the language from the request's ``accept-language`` metadata with :func:`negotiate` and sends
:func:`explain`'s text as a ``google.rpc.LocalizedMessage``; clients keep switching on the
stable reason and rule ID, never on these texts.

Implementation notes: a reason's text is chosen by the particulars the refusal carries (the
same reason is raised with a card by one game and with a card list by another), so every
violation's metadata ends up in the sentence; particulars are put into words here (suit and
card names), never taken from the rules' English message. A rule ID unknown to
:mod:`engine_service.i18n.rules` is still cited, just without a name.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine_service.i18n.languages import ENGLISH, SUPPORTED, negotiate, supported
from engine_service.i18n.outcomes import outcome_summary
from engine_service.i18n.reasons import REASONS, RULE_CITATIONS, RULE_ONLY, reason_message
from engine_service.i18n.rules import RULE_NAMES, rule_name

__all__ = [
    "ENGLISH",
    "REASONS",
    "RULE_NAMES",
    "SUPPORTED",
    "explain",
    "negotiate",
    "outcome_summary",
    "reason_message",
    "rule_name",
    "supported",
]


def explain(
    reason: str, metadata: Mapping[str, str], language: str, rule_id: str | None = None
) -> str:
    """Why a request was refused, in ``language``, citing the rule when there is one.

    ``rule_id`` defaults to ``metadata["ruleId"]`` (where the api layer keeps it).

    >>> explain("MUST_FOLLOW_SUIT", {"ruleId": "H-R4", "led_suit": "C", "card": "QS"}, "fr")
    'Fournissez la couleur demandée : trèfle (carte refusée : dame de pique). Règle H-R4 : \
jouer à son tour et fournir la couleur.'
    >>> explain("GAME_NOT_FOUND", {}, "nl")
    'Dit spel bestaat niet of is verlopen.'
    """
    lang = supported(language)
    message = reason_message(reason, metadata, lang)
    rule = rule_id if rule_id is not None else metadata.get("ruleId")
    if not rule:
        return message
    name = rule_name(rule, lang)
    if name is None:
        return RULE_ONLY[lang].format(message=message, rule_id=rule)
    return RULE_CITATIONS[lang].format(message=message, rule_id=rule, rule=name)
