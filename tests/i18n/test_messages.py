"""Localized texts: every reason and rule ID in every language, particulars filled, language choice.

The reasons come from ``errors.proto`` (the documented list), the rule IDs from ``seeds/*.md``
(the bold IDs that open a rule), and the metadata each reason gets from the ``violation(...)``
calls in the rules themselves (read with ``ast``), so a new reason, rule or particular fails
here until it has its texts.
"""

from __future__ import annotations

import ast
import random
import re
from pathlib import Path
from typing import Any

import pytest
from cardengine.v1 import errors_pb2

from engine_service.core.cards import CARDS
from engine_service.core.errors import RuleViolation
from engine_service.core.protocol import Outcome
from engine_service.games.hearts.actions import PlayCard
from engine_service.i18n import (
    ENGLISH,
    REASONS,
    RULE_NAMES,
    SUPPORTED,
    explain,
    negotiate,
    outcome_summary,
    reason_message,
    rule_name,
)
from engine_service.i18n.cards import SUIT_NAMES, card_name, reading_name
from engine_service.i18n.outcomes import SUMMARIES, compose
from engine_service.i18n.reasons import fields_of, particular, variant_for
from engine_service.registry import REGISTRY
from tests.golden.record import RECORDINGS

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "engine_service"
DEFINED = re.compile(r"^\s*- \*\*([A-Z]-R\d+[a-z]?)\*\*", re.MULTILINE)
PREFIX = "ERROR_REASON_"

ENUM_REASONS = sorted(name.removeprefix(PREFIX) for name in errors_pb2.ErrorReason.keys())  # noqa: SIM118
SEED_RULES = sorted(
    {rule for spec in (ROOT / "seeds").glob("*.md") for rule in DEFINED.findall(spec.read_text())}
)

SAMPLES = {
    "card": "QS",
    "led_card": "JH",
    "cards": "5H 5H RJ",
    "led_suit": "C",
    "turned_suit": "D",
    "trump": "H",
    "reading": "pair:8:2",
    "top": "full_house:9:5",
    "allowed": "bomb:8:5 full_house:8:5",
    "turn": "3",
    "field": "action.hearts.play_card.card",
    "expectedVersion": "4",
    "currentVersion": "6",
    "rematchId": "5f0c3a9e2b7d41c8a6e9d0b1c2f3a4e5",
    "scope": "create",
    "retrySeconds": "1.5",
    "limit": "100",
}
"""A realistic value for every particular a reason can name."""


def violation_calls() -> list[tuple[str, str, frozenset[str]]]:
    """``(where, reason, metadata keys)`` of every ``violation(...)`` call in the engine."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "violation"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                continue
            keys = frozenset(k.arg for k in node.keywords if k.arg is not None)
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            found.append((where, node.args[0].value, keys))
    return found


CALLS = violation_calls()


# -- completeness ------------------------------------------------------------------------------


def test_the_enum_the_seeds_and_the_rules_are_found():
    """The lists below are not empty, so the completeness checks cannot pass vacuously."""
    assert len(ENUM_REASONS) > 40 and "MUST_FOLLOW_SUIT" in ENUM_REASONS
    assert {"H-R4", "G-R13a", "K-R21"} <= set(SEED_RULES) and len(SEED_RULES) > 80
    assert len(CALLS) > 30


def test_every_error_reason_has_a_message_in_every_language_and_nothing_else_does():
    assert set(REASONS) == set(ENUM_REASONS)
    for reason, variants in REASONS.items():
        assert variants, reason
        assert not fields_of(variants[-1][ENGLISH]), f"{reason}: the last variant needs no facts"
        for variant in variants:
            assert set(variant) == set(SUPPORTED), reason
            english_fields = fields_of(variant[ENGLISH])
            for language, text in variant.items():
                assert text.strip(), (reason, language)
                assert fields_of(text) == english_fields, (reason, language)


def test_every_reason_the_engine_raises_is_in_the_enum():
    """Rule violations, the service's own errors and the unexpected ones (storage, internal)."""
    raised = {reason for _, reason, _ in CALLS}
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text()
        raised |= set(re.findall(r'reason = "([A-Z_]+)"', text))  # EngineError subclasses
        raised |= set(re.findall(r'reason, code, message = "([A-Z_]+)"', text))  # unexpected
        raised |= set(re.findall(r'Unauthenticated\("[^"]*", "([A-Z_]+)"\)', text))
    assert raised - {"UNSPECIFIED"} <= set(ENUM_REASONS)
    assert {"TOKEN_MISSING", "STORAGE_UNAVAILABLE", "INTERNAL"} <= raised


@pytest.mark.parametrize("language", SUPPORTED)
def test_every_seed_rule_has_a_name_in_every_language(language):
    assert set(RULE_NAMES) == set(SEED_RULES)
    for rule in SEED_RULES:
        name = rule_name(rule, language)
        assert name and name.strip() and "{" not in name, (rule, language)


def test_rule_names_differ_by_language_where_words_differ():
    assert rule_name("H-R4", "en") == "play in turn and follow suit"
    assert len({rule_name("H-R4", lang) for lang in SUPPORTED}) == len(SUPPORTED)


# -- particulars -------------------------------------------------------------------------------


@pytest.mark.parametrize("language", SUPPORTED)
@pytest.mark.parametrize(("where", "reason", "keys"), CALLS, ids=[c[0] for c in CALLS])
def test_each_violation_gets_a_message_using_every_fact_it_carries(where, reason, keys, language):
    """The variant chosen for a call site's metadata names all of it, and nothing is left over."""
    metadata = {key: SAMPLES[key] for key in keys}
    assert fields_of(variant_for(reason, metadata)[ENGLISH]) == keys, where
    text = reason_message(reason, metadata, language)
    assert text and "{" not in text and "}" not in text
    for key in keys:
        assert particular(key, SAMPLES[key], language) in text, (where, key)


@pytest.mark.parametrize("language", SUPPORTED)
def test_every_variant_of_every_reason_fills_its_particulars(language):
    for reason, variants in REASONS.items():
        for variant in variants:
            metadata = {key: SAMPLES[key] for key in fields_of(variant[ENGLISH])}
            text = reason_message(reason, metadata, language)
            assert "{" not in text and "}" not in text, (reason, language)


def test_must_follow_suit_names_the_suit_led_in_each_language():
    metadata = {"ruleId": "H-R4", "led_suit": "C", "card": "QS"}
    texts = {lang: explain("MUST_FOLLOW_SUIT", metadata, lang) for lang in SUPPORTED}
    assert texts["en"] == (
        "Follow the suit led: clubs (card refused: queen of spades). "
        "Rule H-R4: play in turn and follow suit."
    )
    assert texts["es"] == (
        "Sigue el palo de salida: tréboles (carta rechazada: dama de picas). "
        "Regla H-R4: jugar por turno y seguir el palo."
    )
    assert texts["fr"].startswith("Fournissez la couleur demandée : trèfle")
    assert texts["de"].startswith(
        "Bediene die ausgespielte Farbe: Kreuz (abgelehnte Karte: Pik-Dame)"
    )
    assert texts["nl"].startswith(
        "Volg de gevraagde kleur: klaveren (geweigerde kaart: schoppenvrouw)"
    )


def test_the_real_metadata_of_rule_violations_is_put_into_words():
    """Messages built from violations the rules really produce, not from samples."""
    hearts = REGISTRY["hearts"].make_rules(REGISTRY["hearts"].config_type())
    state = hearts.new_game(4)
    found: dict[str, RuleViolation] = {}
    rng = random.Random(1)
    for _ in range(60):
        seats = hearts.current_seats(state)
        if not seats:
            break
        seat = seats[0]
        legal = hearts.legal_actions(state, seat)
        for action in (a for a in _hearts_plays(state, seat) if a not in legal):
            refused = hearts.check(state, seat, action)
            if refused is not None:
                found.setdefault(refused.reason, refused)
        state = hearts.apply(state, seat, rng.choice(list(legal)))
    assert "MUST_FOLLOW_SUIT" in found
    for reason, refused in found.items():
        metadata = {"ruleId": refused.rule_id, **refused.metadata}
        for language in SUPPORTED:
            text = explain(reason, metadata, language)
            assert "{" not in text and refused.rule_id in text
            if "led_suit" in refused.metadata:
                assert SUIT_NAMES[language][refused.metadata["led_suit"]] in text


def _hearts_plays(state: Any, seat: int) -> list[Any]:
    return [PlayCard(card) for card in CARDS if state.hands[seat] >> card & 1]


def test_cards_and_readings_are_named_in_each_language():
    assert card_name("TH", "de") == "Herz-Zehn"
    assert card_name("10h", "es") == "diez de corazones"
    assert card_name("AS", "nl") == "schoppenaas"
    assert card_name("BJ", "en") == "black joker"
    assert reading_name("straight:14:5", "es") == "escalera de rango as (5 cartas)"
    assert reading_name("single:16:1", "en") == "single of rank red joker (1 card)"
    assert reading_name("nonsense", "fr") == "nonsense"


def test_unknown_reasons_rules_and_languages_fall_back():
    assert reason_message("SOMETHING_NEW", {}, "fr") == "La demande a été refusée."
    assert explain("GAME_OVER", {"ruleId": "Z-R1"}, "de").endswith("Regel Z-R1.")
    assert explain("GAME_OVER", {}, "ja") == explain("GAME_OVER", {}, "en")
    assert rule_name("H-R4", "ja") == rule_name("H-R4", "en")


def test_service_errors_get_their_particulars():
    mismatch = {"expectedVersion": "4", "currentVersion": "6"}
    assert "versión 4" in explain("VERSION_MISMATCH", mismatch, "es")
    assert "version 6" in explain("VERSION_MISMATCH", mismatch, "fr")
    assert "action.seat" in explain("INVALID_FIELD", {"field": "action.seat"}, "nl")
    assert (
        explain("INVALID_FIELD", {}, "de") == "Ein Feld der Anfrage fehlt oder ist unverständlich."
    )


# -- accept-language ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "language"),
    [
        ("fr-CH, fr;q=0.9, de;q=0.5", "fr"),
        ("de;q=0.5, fr-CH, fr;q=0.9", "fr"),
        ("es-419", "es"),
        ("NL-be", "nl"),
        ("da, de-AT;q=0.8, en;q=0.7", "de"),
        ("en-GB;q=0.3, nl;q=0.4", "nl"),
        ("ja, zh;q=0.9", "en"),
        ("*", "en"),
        ("en;q=0, *;q=0.5", "es"),
        ("fr;q=0, fr-CA", "en"),
        ("de;q=0.1, es;q=0.1", "de"),
        ("fr;q=0", "en"),
        ("fr;q=abc, de", "de"),
        ("fr;q=1.5, es;q=0.2", "es"),
        (" , ;, es", "es"),
        ("", "en"),
        (None, "en"),
    ],
)
def test_the_language_is_chosen_by_weight_and_falls_back_to_english(header, language):
    assert negotiate(header) == language


# -- outcome summaries -------------------------------------------------------------------------


def finished_outcome(name: str) -> Outcome:
    """The outcome of the golden recording's game (heuristic bots in every seat)."""
    recording = RECORDINGS[name]
    spec = REGISTRY[name]
    rules = spec.make_rules(recording.config)
    bot = spec.bots[recording.bot]
    rng = random.Random(recording.seed)
    state = rules.new_game(recording.seed)
    while seats := rules.current_seats(state):
        seat = seats[0]
        state = rules.apply(
            state, seat, bot.choose(rules.view(state, seat), rules.legal_actions(state, seat), rng)
        )
    outcome = rules.outcome(state)
    assert outcome is not None
    return outcome


@pytest.fixture(scope="module")
def outcomes() -> dict[str, Outcome]:
    return {name: finished_outcome(name) for name in sorted(REGISTRY)}


def test_every_game_has_summaries_in_every_language():
    assert set(SUMMARIES) == set(REGISTRY)
    for texts in SUMMARIES.values():
        for variant in texts:
            assert set(variant) == set(SUPPORTED) and all(t.strip() for t in variant.values())


def test_the_english_templates_give_the_rules_own_sentences(outcomes):
    for name, outcome in outcomes.items():
        assert compose(name, outcome, ENGLISH) == outcome.summary
        assert outcome_summary(outcome, ENGLISH, name) == outcome.summary


@pytest.mark.parametrize("language", [lang for lang in SUPPORTED if lang != ENGLISH])
def test_summaries_carry_winners_scores_and_the_rules_particulars(outcomes, language):
    for name, outcome in outcomes.items():
        text = outcome_summary(outcome, language, name)
        assert text != outcome.summary and "{" not in text
        assert all(str(seat) in text for seat in outcome.winners)
    hearts = outcomes["hearts"]
    assert str(min(hearts.scores)) in outcome_summary(hearts, language, "hearts")
    klaberjass = outcomes["klaberjass"]
    winner = klaberjass.winners[0]
    assert str(klaberjass.scores[winner]) in outcome_summary(klaberjass, language, "klaberjass")
    guandan = outcomes["guandan"]
    text = outcome_summary(guandan, language, "guandan")
    assert f" {guandan.deal}" in text and "-".join(map(str, guandan.finishing_order)) in text


def test_summary_examples_in_french():
    shared = Outcome((0, 2), (51, 110, 51, 88), "seat 0, seat 2 share the win with 51 points.")
    assert outcome_summary(shared, "fr", "hearts") == (
        "Les places 0 et 2 se partagent la victoire avec 51 points."
    )
    assert compose("hearts", shared, "en") == shared.summary
    # Made from the structured fields, whatever the English sentence says (G-R26).
    guandan = Outcome((1, 3), (14, 9, 14, 9), "-", deal=12, finishing_order=(1, 3, 0, 2))
    assert outcome_summary(guandan, "fr", "guandan") == (
        "Les places 1 et 3 gagnent le match à l'as lors de la donne 12 ; ordre d'arrivée : 1-3-0-2."
    )
    no_deal = Outcome((1, 3), (14, 9, 14, 9), "Seats 1 and 3 win the match at A in deal 12.")
    assert outcome_summary(no_deal, "fr", "guandan") == "Les places 1 et 3 gagnent le match à l'as."
    odd = Outcome((0,), (1, 2, 3), "seat 0 wins.")
    assert outcome_summary(odd, "fr", "chess") == "seat 0 wins."  # no known game: English kept


def test_the_i18n_package_is_pure():
    """No transport and nothing of ours but core: the texts are data any layer may use."""
    for path in (PACKAGE / "i18n").rglob("*.py"):
        tree = ast.parse(path.read_text())
        names = {
            alias.name for n in ast.walk(tree) if isinstance(n, ast.Import) for alias in n.names
        }
        names |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        assert not {n for n in names if n.startswith(("grpc", "redis", "google", "cardengine"))}
        ours = {n for n in names if n.startswith("engine_service.")}
        assert all(n.startswith(("engine_service.i18n", "engine_service.core")) for n in ours)
