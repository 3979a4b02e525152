"""Yes/no ``ENGINE_*`` variables read the same way for every flag, and a typo is refused."""

from __future__ import annotations

import pytest

from engine_service.settings import parse_settings


@pytest.mark.parametrize("word", ["1", "true", "YES", "on", " True "])
def test_every_flag_reads_a_yes_word(word: str) -> None:
    settings = parse_settings(
        [],
        {
            "ENGINE_ALLOW_VOLATILE_REDIS": word,
            "ENGINE_INSECURE_PUBLIC": word,
            "ENGINE_JOIN_GROUP": word,
            "ENGINE_REFLECTION": word,
        },
    )
    assert settings.allow_volatile_redis and settings.insecure_public and settings.join_group
    assert settings.reflection


@pytest.mark.parametrize("word", ["0", "false", "No", "off"])
def test_every_flag_reads_a_no_word(word: str) -> None:
    settings = parse_settings([], {"ENGINE_REFLECTION": word, "ENGINE_JOIN_GROUP": word})
    assert not settings.reflection and not settings.join_group


def test_unset_flags_keep_their_defaults() -> None:
    settings = parse_settings([], {})
    assert settings.reflection and not settings.join_group and not settings.insecure_public


def test_a_word_that_is_neither_stops_the_start(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_settings([], {"ENGINE_REFLECTION": "of"})
    assert "ENGINE_REFLECTION='of' is not a yes/no value" in capsys.readouterr().err


def test_a_flag_on_the_command_line_wins_over_the_variable() -> None:
    assert not parse_settings(["--no-reflection"], {"ENGINE_REFLECTION": "1"}).reflection
