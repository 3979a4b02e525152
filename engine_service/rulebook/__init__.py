"""Every hosted game's rules and options as text for people, in several languages.

The texts are data shipped with the package, one TOML file per game and language
(``rulebook/<game>/<language>.toml``, and ``rulebook/table/`` for the table rules every game
shares): the game's title, every rule of its specification
(``seeds/<game>.md``) with its ID, a title and a text, and every option of its config with a
title, what it changes and what each value means. The English files restate the specs; the
others translate them. ``ranges.toml`` holds the values whole-number options accept.

Option names, defaults and values come from the game's config (:func:`option_specs`), never
from these files, so a description cannot drift from what ``CreateGame`` accepts; the test
suite checks that every file describes exactly the spec's rule IDs and the config's options.

Pure Python: nothing here knows gRPC.
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final

from engine_service.core.protocol import OptionSpec
from engine_service.i18n.languages import ENGLISH, SUPPORTED, negotiate

LANGUAGES: Final = SUPPORTED
"""The languages every game's rules are written in: those the service speaks."""

DEFAULT_LANGUAGE: Final = ENGLISH
"""The language used when the one asked for is not available."""

TABLE: Final = "table"
"""The folder of the table rules (``seeds/table.md``: ``T-R1`` ...), shared by every game."""


@dataclass(frozen=True, slots=True)
class RuleText:
    """One rule: its ID in the spec (``H-R5``, ``G-R13a``), a short title and its text."""

    rule_id: str
    title: str
    text: str


@dataclass(frozen=True, slots=True)
class OptionWords:
    """What one data file says about an option: a title, a description, each value's meaning."""

    title: str
    description: str
    choices: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class Rulebook:
    """One data file: a game's texts in one language, rules in the spec's order."""

    game_type: str
    language: str
    title: str
    rules: tuple[RuleText, ...]
    options: Mapping[str, OptionWords]


@dataclass(frozen=True, slots=True)
class ChoiceText:
    """One value of an option (as clients send it) and what it means."""

    value: str
    description: str


@dataclass(frozen=True, slots=True)
class OptionText:
    """One option of a game, explained.

    Attributes:
        name: the config field, as ``ListGameTypes`` names it.
        rule_id: the rule it changes.
        title: a short label.
        description: what the option changes.
        default_value: the value a game gets when the option is not set.
        choices: every value with its meaning (empty for whole-number options).
        allowed_range: the smallest and largest value of a whole-number option, else ``None``.
    """

    name: str
    rule_id: str
    title: str
    description: str
    default_value: str
    choices: tuple[ChoiceText, ...]
    allowed_range: tuple[int, int] | None


@dataclass(frozen=True, slots=True)
class GameDescription:
    """A game's rules and options in one language, as ``DescribeGame`` returns them."""

    game_type: str
    language: str
    title: str
    rules: tuple[RuleText, ...]
    options: tuple[OptionText, ...]
    available_languages: tuple[str, ...]
    table_rules: tuple[RuleText, ...] = ()
    """The table rules every game shares (leaving, resigning, clocks, the admin)."""


def language_of(tag: str) -> str:
    """The language to answer a BCP 47 ``tag`` in: its primary subtag if available, else English.

    >>> language_of("de-AT"), language_of("NL"), language_of("fr_CA")
    ('de', 'nl', 'fr')
    >>> language_of(""), language_of("pt-BR"), language_of("x-private")
    ('en', 'en', 'en')
    """
    return negotiate(tag.strip().replace("_", "-"))


def games() -> tuple[str, ...]:
    """The game types that have a rulebook (a folder of data files), sorted."""
    root = resources.files(__name__)
    return tuple(
        sorted(
            item.name
            for item in root.iterdir()
            if item.is_dir() and item.name != TABLE and _is_game(item)
        )
    )


def _is_game(folder: Any) -> bool:
    return any(item.name.endswith(".toml") for item in folder.iterdir())


def _text(table: Mapping[str, Any], key: str, where: str) -> str:
    value = table.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{where}: {key!r} must be a non-empty string")
    # Lines are wrapped in the files; only a blank line (a new paragraph) is kept, as "\n".
    paragraphs = re.split(r"\n\s*\n", value.strip())
    return "\n".join(" ".join(paragraph.split()) for paragraph in paragraphs)


@functools.cache
def rulebook(game_type: str, language: str) -> Rulebook:
    """The texts of ``game_type`` in ``language`` (one of :data:`LANGUAGES`), read once.

    Raises:
        FileNotFoundError: no data file for that game and language.
        ValueError: the file is not a rulebook (a text missing or empty).
    """
    where = f"rulebook/{game_type}/{language}.toml"
    source = resources.files(__name__).joinpath(game_type, f"{language}.toml")
    data = tomllib.loads(source.read_text("utf-8"))
    rules = tuple(
        RuleText(
            rule_id=_text(rule, "id", where),
            title=_text(rule, "title", where),
            text=_text(rule, "text", where),
        )
        for rule in data.get("rule", ())
    )
    options = {
        name: OptionWords(
            title=_text(option, "title", f"{where} option {name}"),
            description=_text(option, "description", f"{where} option {name}"),
            choices={
                value: _text(option["choices"], value, f"{where} option {name}")
                for value in option.get("choices", {})
            },
        )
        for name, option in data.get("option", {}).items()
    }
    return Rulebook(game_type, language, _text(data, "title", where), rules, options)


@functools.cache
def int_ranges() -> Mapping[str, Mapping[str, tuple[int, int]]]:
    """The values each whole-number option accepts, ``{game: {option: (min, max)}}``."""
    data = tomllib.loads(resources.files(__name__).joinpath("ranges.toml").read_text("utf-8"))
    return {
        game: {name: (int(low), int(high)) for name, (low, high) in options.items()}
        for game, options in data.items()
    }


def describe(game_type: str, options: Sequence[OptionSpec], tag: str) -> GameDescription:
    """``game_type``'s rules and ``options`` in the language of ``tag`` (English by default).

    ``options`` are the game's config options (``GameSpec.options``): their names, rule IDs,
    defaults and values are taken from there, the words from the data file.

    Raises:
        FileNotFoundError: the game has no rulebook.
        KeyError: the rulebook does not describe one of ``options`` or one of its values.
    """
    language = language_of(tag)
    book = rulebook(game_type, language)
    ranges = int_ranges().get(game_type, {})
    described = []
    for spec in options:
        words = book.options[spec.name]
        choices = tuple(ChoiceText(value, words.choices[value]) for value in spec.choices)
        described.append(
            OptionText(
                name=spec.name,
                rule_id=spec.rule_id,
                title=words.title,
                description=words.description,
                default_value=spec.default,
                choices=choices,
                allowed_range=ranges[spec.name] if spec.kind == "int" else None,
            )
        )
    return GameDescription(
        game_type=game_type,
        language=language,
        title=book.title,
        rules=book.rules,
        options=tuple(described),
        available_languages=LANGUAGES,
        table_rules=rulebook(TABLE, language).rules,
    )
