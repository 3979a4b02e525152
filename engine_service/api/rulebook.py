"""DescribeGame's reply: a game's rulebook (:mod:`engine_service.rulebook`) as proto messages."""

from __future__ import annotations

from cardengine.v1 import rulebook_pb2

from engine_service.rulebook import GameDescription, OptionText, RuleText


def _encode_option(option: OptionText) -> rulebook_pb2.OptionText:
    message = rulebook_pb2.OptionText(
        name=option.name,
        rule_id=option.rule_id,
        title=option.title,
        description=option.description,
        default_value=option.default_value,
        choices=[
            rulebook_pb2.OptionChoice(value=choice.value, description=choice.description)
            for choice in option.choices
        ],
    )
    if option.allowed_range is not None:
        low, high = option.allowed_range
        message.allowed_range.CopyFrom(rulebook_pb2.IntRange(min=low, max=high))
    return message


def encode_description(described: GameDescription) -> rulebook_pb2.DescribeGameResponse:
    """The DescribeGame response carrying ``described``, every text as it is."""
    return rulebook_pb2.DescribeGameResponse(
        game_type=described.game_type,
        language=described.language,
        title=described.title,
        rules=[_encode_rule(rule) for rule in described.rules],
        options=[_encode_option(option) for option in described.options],
        available_languages=list(described.available_languages),
        table_rules=[_encode_rule(rule) for rule in described.table_rules],
    )


def _encode_rule(rule: RuleText) -> rulebook_pb2.RuleText:
    return rulebook_pb2.RuleText(rule_id=rule.rule_id, title=rule.title, text=rule.text)
