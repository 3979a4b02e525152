"""Configs as option texts and back, for any registered game.

The suite draws random rule sets and the golden files write theirs down; both go through the
option names and text values that ``GameSpec.options`` lists, so a new option of any game is
covered (or loudly missing) without test changes.
"""

from __future__ import annotations

import dataclasses
import enum
import random
from collections.abc import Mapping
from typing import Any

from engine_service.core.protocol import GameSpec


def option_texts(config: Any) -> dict[str, str]:
    """Every option of ``config`` as ``name -> text``, in declaration order."""
    texts = {}
    for item in dataclasses.fields(config):
        value = getattr(config, item.name)
        if isinstance(value, enum.Enum):
            texts[item.name] = str(value.value)
        elif isinstance(value, bool):
            texts[item.name] = str(value).lower()
        else:
            texts[item.name] = str(value)
    return texts


def config_from_texts(config_type: type[Any], texts: Mapping[str, str]) -> Any:
    """Build a config from option texts; every option must be given, and nothing else."""
    fields = dataclasses.fields(config_type)
    unknown = set(texts) - {item.name for item in fields}
    if unknown:
        raise ValueError(f"unknown options: {sorted(unknown)}")
    values: dict[str, Any] = {}
    for item in fields:
        text = texts[item.name]
        default = item.default
        if isinstance(default, enum.Enum):
            values[item.name] = type(default)(text)
        elif isinstance(default, bool):
            if text not in ("true", "false"):
                raise ValueError(f"{item.name}: not a bool: {text!r}")
            values[item.name] = text == "true"
        else:
            values[item.name] = int(text)
    return config_type(**values)


def random_config(
    spec: GameSpec[Any, Any, Any, Any],
    int_ranges: Mapping[str, tuple[int, int]],
    rng: random.Random,
) -> Any:
    """A config with every option drawn at random; integer options use ``int_ranges``."""
    texts = {}
    for spec_option in spec.options:
        if spec_option.kind == "int":
            low, high = int_ranges[spec_option.name]
            texts[spec_option.name] = str(rng.randint(low, high))
        else:
            texts[spec_option.name] = rng.choice(spec_option.choices)
    return config_from_texts(spec.config_type, texts)
