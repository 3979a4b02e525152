"""DescribeGame against a real server: every game in every language, fallbacks and errors."""

from __future__ import annotations

import re
from pathlib import Path

import grpc
import pytest
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import game_pb2, hearts_pb2, rulebook_pb2

from engine_service.registry import REGISTRY
from tests.service.rpc_helpers import (
    HUMAN,
    assert_invalid_field,
    create,
    failure_of,
    submit,
    tokens_of,
    view,
)

pytestmark = pytest.mark.service

LANGUAGES = ("en", "es", "fr", "de", "nl")
ROOT = Path(__file__).resolve().parents[2]
DEFINED = re.compile(r"^\s*- \*\*([A-Z]-R\d+[a-z]?)\*\*", re.MULTILINE)


def describe(stub, game_type: str, language: str = "") -> rulebook_pb2.DescribeGameResponse:
    return stub.DescribeGame(
        rulebook_pb2.DescribeGameRequest(game_type=game_type, language=language)
    )


def spec_rule_ids(game: str) -> list[str]:
    return DEFINED.findall((ROOT / "seeds" / f"{game}.md").read_text())


@pytest.fixture(scope="module")
def listed(stub):
    """ListGameTypes' options by game, the reference DescribeGame's options must match."""
    reply = stub.ListGameTypes(api.ListGameTypesRequest())
    return {game.name: list(game.options) for game in reply.game_types}


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("game", sorted(REGISTRY))
def test_every_game_in_every_language(stub, listed, game, language):
    reply = describe(stub, game, language)
    assert (reply.game_type, reply.language) == (game, language)
    assert reply.title
    assert list(reply.available_languages) == list(LANGUAGES)
    assert [rule.rule_id for rule in reply.rules] == spec_rule_ids(game)
    assert all(rule.title and rule.text for rule in reply.rules)
    # The table rules every game shares, in the same language (T-R1 .. T-R10).
    assert [rule.rule_id for rule in reply.table_rules] == spec_rule_ids("table")
    assert all(rule.title and rule.text for rule in reply.table_rules)
    assert [option.name for option in reply.options] == [o.name for o in listed[game]]
    for option, listed_option in zip(reply.options, listed[game], strict=True):
        assert option.rule_id == listed_option.rule_id
        assert option.default_value == listed_option.default_value
        assert option.title and option.description
        assert [choice.value for choice in option.choices] == list(listed_option.choices)
        assert all(choice.description for choice in option.choices)
        is_int = listed_option.kind == api.OPTION_KIND_INT
        assert option.HasField("allowed_range") == is_int
        if is_int:
            low, high = option.allowed_range.min, option.allowed_range.max
            assert low <= int(option.default_value) <= high


def test_languages_differ(stub):
    titles = {language: describe(stub, "hearts", language).rules[4].title for language in LANGUAGES}
    assert len(set(titles.values())) == len(LANGUAGES), titles


@pytest.mark.parametrize(
    ("tag", "used"),
    [("de-AT", "de"), ("fr-CA", "fr"), ("NL-be", "nl"), ("es-419", "es"), ("en-GB", "en")],
)
def test_a_regional_tag_uses_its_language(stub, tag, used):
    assert describe(stub, "klaberjass", tag).language == used


@pytest.mark.parametrize("tag", ["", "pt-BR", "zh-Hant", "tlh", "not a tag"])
def test_an_unknown_or_empty_language_falls_back_to_english_and_says_so(stub, tag):
    reply = describe(stub, "guandan", tag)
    assert reply.language == "en"
    assert reply == describe(stub, "guandan", "en")


@pytest.mark.parametrize("game_type", ["chess", "", "Hearts", "hearts "])
def test_an_unknown_game_is_invalid_argument_on_game_type(stub, game_type):
    failure = failure_of(lambda: describe(stub, game_type, "de"))
    assert failure.code == grpc.StatusCode.INVALID_ARGUMENT
    assert_invalid_field(failure, "game_type")


def test_a_refusals_rule_id_is_described(stub):
    """The "why?" of a refusal: its ErrorInfo ruleId names a rule DescribeGame explains."""
    created = create(stub, [HUMAN, HUMAN, HUMAN, HUMAN], seed=21)
    token = tokens_of(created)[0]
    seat_view = view(stub, created.game_id, 0, token)
    card = seat_view.hearts.hand[0]
    action = game_pb2.Action(
        hearts=hearts_pb2.HeartsAction(play_card=hearts_pb2.HeartsPlayCard(card=card))
    )
    failure = failure_of(lambda: submit(stub, created.game_id, 0, token, action, seat_view.version))
    assert failure.code == grpc.StatusCode.FAILED_PRECONDITION
    rules = {rule.rule_id: rule for rule in describe(stub, "hearts", "fr").rules}
    assert failure.metadata["ruleId"] in rules
