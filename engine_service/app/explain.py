"""The ExplainPlay use case: what a Guandan seat's cards may be read as, and what is legal now.

It reads the game as :meth:`Engine.view` does (load, decode, check the seat's token) and
writes nothing, so it may be asked at any time, on turn or not.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine_service.app.engine import Engine
from engine_service.codec.record import decode_record
from engine_service.core.errors import MalformedRequest
from engine_service.games.guandan.explain import ReadingOption, explain
from engine_service.games.guandan.rules import GuandanRules
from engine_service.games.guandan.spec import GUANDAN


async def explain_play(
    engine: Engine, game_id: str, seat: int, token: str | None, cards: Sequence[int]
) -> tuple[ReadingOption, ...]:
    """Every reading of ``cards`` at the deal's level, each judged by the rules' ``check``.

    Raises:
        GameNotFound: no such game.
        MalformedRequest: the game is not Guandan, or ``seat`` is out of range.
        Unauthenticated, PermissionDenied: the token is not ``seat``'s.
        IllegalAction: CARD_NOT_IN_HAND (G-R1), some of ``cards`` are not in the hand.
    """
    stored = await engine.store.load(game_id)
    record = decode_record(stored.snapshot)
    if record.game_type != GUANDAN.name:
        raise MalformedRequest(
            "game_id", f"this game is {record.game_type}; ExplainPlay reads Guandan plays"
        )
    engine.check_reader(record, seat, token)
    rules = engine.rules_of(record)
    assert isinstance(rules, GuandanRules)  # the registry's Guandan entry builds these
    return explain(rules, record.state, seat, cards)
