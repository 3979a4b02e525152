"""The rulebook data: every game in every language describes exactly the spec's rules and the
config's options, and the English files keep in step with ``seeds/*.md``."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from engine_service import rulebook
from engine_service.registry import REGISTRY

ROOT = Path(__file__).resolve().parents[2]
DEFINED = re.compile(r"^\s*- \*\*([A-Z]-R\d+[a-z]?)\*\*", re.MULTILINE)
"""A rule definition in a spec, as ``tests/test_rule_coverage.py`` reads it."""
CASES = [(game, language) for game in sorted(REGISTRY) for language in rulebook.LANGUAGES]


def spec_rule_ids(game: str) -> list[str]:
    """The rule IDs ``seeds/<game>.md`` defines, in the order it defines them."""
    return DEFINED.findall((ROOT / "seeds" / f"{game}.md").read_text())


def test_every_registered_game_has_a_rulebook_and_no_other_game_does():
    assert rulebook.games() == tuple(sorted(REGISTRY))


@pytest.mark.parametrize("game", sorted(REGISTRY))
def test_english_rule_ids_are_the_specs_in_its_order(game):
    ids = spec_rule_ids(game)
    assert len(ids) == len(set(ids)) > 0
    assert [rule.rule_id for rule in rulebook.rulebook(game, "en").rules] == ids


@pytest.mark.parametrize(("game", "language"), CASES)
def test_every_spec_rule_has_a_title_and_text_and_no_other_rule_is_there(game, language):
    rules = rulebook.rulebook(game, language).rules
    assert [rule.rule_id for rule in rules] == spec_rule_ids(game)
    for rule in rules:
        assert rule.title.strip() and rule.text.strip(), rule.rule_id
        assert "\n" not in rule.title, rule.rule_id


@pytest.mark.parametrize(("game", "language"), CASES)
def test_every_option_and_every_value_is_described(game, language):
    book = rulebook.rulebook(game, language)
    options = REGISTRY[game].options
    assert set(book.options) == {option.name for option in options}
    for option in options:
        words = book.options[option.name]
        assert words.title.strip() and words.description.strip(), option.name
        assert set(words.choices) == set(option.choices), option.name
        assert all(text.strip() for text in words.choices.values()), option.name


@pytest.mark.parametrize(("game", "language"), CASES)
def test_describe_follows_the_config(game, language):
    spec = REGISTRY[game]
    described = rulebook.describe(game, spec.options, language)
    assert (described.game_type, described.language) == (game, language)
    assert described.title.strip()
    assert described.available_languages == rulebook.LANGUAGES
    assert [rule.rule_id for rule in described.rules] == spec_rule_ids(game)
    ids = set(spec_rule_ids(game))
    assert [option.name for option in described.options] == [o.name for o in spec.options]
    for option, config_option in zip(described.options, spec.options, strict=True):
        assert option.rule_id == config_option.rule_id and option.rule_id in ids
        assert option.default_value == config_option.default
        assert [choice.value for choice in option.choices] == list(config_option.choices)
        assert all(choice.description for choice in option.choices)
        assert (option.allowed_range is None) == (config_option.kind != "int")


@pytest.mark.parametrize("game", sorted(REGISTRY))
def test_option_ranges_are_the_ones_the_config_enforces(game):
    spec = REGISTRY[game]
    ranges = rulebook.int_ranges()[game]
    assert set(ranges) == {option.name for option in spec.options if option.kind == "int"}
    for name, (low, high) in ranges.items():
        assert low <= int(next(o.default for o in spec.options if o.name == name)) <= high
        for value in (low, high):
            spec.config_type(**{name: value})
        for value in (low - 1, high + 1):
            with pytest.raises(ValueError):
                spec.config_type(**{name: value})


@pytest.mark.parametrize("language", rulebook.LANGUAGES)
def test_the_table_rules_are_the_table_specs_in_every_language(language):
    """T-R1 .. T-R10 (seeds/table.md), in its order, each with a title and a text."""
    book = rulebook.rulebook(rulebook.TABLE, language)
    assert [rule.rule_id for rule in book.rules] == spec_rule_ids("table")
    assert all(rule.title.strip() and rule.text.strip() for rule in book.rules)
    english = rulebook.rulebook(rulebook.TABLE, "en")
    if language != "en":
        assert book.title != english.title
        assert all(
            ours.text != theirs.text for ours, theirs in zip(book.rules, english.rules, strict=True)
        )


@pytest.mark.parametrize(("game", "language"), CASES)
def test_describe_serves_the_table_rules_in_the_same_language(game, language):
    described = rulebook.describe(game, REGISTRY[game].options, language)
    assert described.table_rules == rulebook.rulebook(rulebook.TABLE, language).rules


@pytest.mark.parametrize("game", sorted(REGISTRY))
def test_translations_differ_from_english(game):
    """Each language has its own words: no title or text is left in English."""
    english = rulebook.rulebook(game, "en")
    for language in rulebook.LANGUAGES[1:]:
        book = rulebook.rulebook(game, language)
        assert book.title != english.title or language == "en"
        same = [
            ours.rule_id
            for ours, theirs in zip(book.rules, english.rules, strict=True)
            if ours.text == theirs.text
        ]
        assert not same, (language, same)
        for name, words in book.options.items():
            assert words.description != english.options[name].description, (language, name)


@pytest.mark.parametrize(
    ("tag", "language"),
    [
        ("", "en"),
        ("en", "en"),
        ("es", "es"),
        ("es-419", "es"),
        ("FR", "fr"),
        ("fr-CA", "fr"),
        ("de-CH", "de"),
        ("nl_BE", "nl"),
        (" nl ", "nl"),
        ("pt-BR", "en"),
        ("zh-Hant-TW", "en"),
        ("x-klingon", "en"),
        ("!!", "en"),
    ],
)
def test_language_of_a_bcp47_tag(tag, language):
    assert rulebook.language_of(tag) == language


def test_describe_an_unknown_language_gives_english():
    described = rulebook.describe("hearts", REGISTRY["hearts"].options, "pt-BR")
    assert described.language == "en"
    assert described == dataclasses.replace(
        rulebook.describe("hearts", REGISTRY["hearts"].options, ""), language="en"
    )
