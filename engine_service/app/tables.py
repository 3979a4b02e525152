"""Seats that change hands and games that end early or start again (T-R2 to T-R9).

Each change is a table change written through :meth:`Engine.change_table`: logged and told
like a move, replayed like one, and refused with a rule ID when the table rules forbid it.
Players leave or resign with their seat's token; everything else needs the game's admin
token (or a service key), which CreateGame gives the backend and never a player.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine_service.app.engine import Change, CreatedGame, Engine, NewGame
from engine_service.app.play import SeatView, seat_view
from engine_service.app.seats import Admin, authorize_admin, new_token
from engine_service.codec.record import decode_record
from engine_service.core.errors import AlreadyExists, IllegalAction, violation
from engine_service.core.protocol import GameSpec
from engine_service.core.record import GameRecord, PlayerKind
from engine_service.core.table import (
    WHOLE_GAME,
    GameEndedEarly,
    SeatHandedOver,
    SeatLeft,
    SeatResigned,
    SeatTokenReissued,
    outcome_of,
)


def leaving_bot(record: GameRecord) -> PlayerKind:
    """The bot that takes a seat its player left: the clock's expiry bot, else the heuristic."""
    if record.clock is not None and record.clock.on_expiry.bot is not None:
        return record.clock.on_expiry.bot
    return PlayerKind.HEURISTIC_BOT


async def leave_game(
    engine: Engine, game_id: str, seat: int, token: str | None, resign: bool
) -> SeatView:
    """The seat's player leaves (T-R2) or resigns (T-R3); the seat's view afterwards.

    Raises:
        MalformedRequest: a seat out of range.
        Unauthenticated, PermissionDenied: the token is not ``seat``'s.
        IllegalAction: GAME_OVER (T-R1), SEAT_PLAYED_BY_BOT (T-R2).
    """

    def permit(record: GameRecord) -> None:
        engine.check_reader(record, seat, token)

    def changes(spec: GameSpec[Any, Any, Any, Any], record: GameRecord) -> Sequence[Change]:
        bot = leaving_bot(record)
        if not resign:
            return [(seat, SeatLeft(bot))]
        forfeit = spec.sides is not None
        return [(seat, SeatResigned(forfeit, None if forfeit else bot))]

    record, version = await engine.change_table(game_id, permit, changes)
    return seat_view(engine.rules_of(record), game_id, record, version, seat)


async def update_seat(
    engine: Engine,
    game_id: str,
    seat: int,
    admin: Admin,
    kind: PlayerKind | None,
    reissue_token: bool,
) -> tuple[str | None, SeatView]:
    """Hand a seat to ``kind`` (T-R6) and/or give it a new token (T-R7).

    A seat handed to a person who never had a token gets one. Returns the new token (if one
    was issued) and the spectator's view.

    Raises:
        MalformedRequest: a seat out of range, or nothing asked for.
        Unauthenticated: not the game's admin.
        IllegalAction: GAME_OVER (T-R1), NOTHING_TO_CHANGE (T-R6).
    """
    token, digest = new_token()
    issued = False

    def permit(record: GameRecord) -> None:
        authorize_admin(record, admin)
        engine.check_seat_of(record, seat)

    def changes(spec: GameSpec[Any, Any, Any, Any], record: GameRecord) -> Sequence[Change]:
        nonlocal issued
        found: list[Change] = []
        if kind is not None:
            found.append((seat, SeatHandedOver(kind)))
        untokened = not record.seats[seat].token_sha256
        issued = reissue_token or (kind is PlayerKind.HUMAN and untokened)
        if issued:
            found.append((seat, SeatTokenReissued(digest)))
        if not found:
            raise IllegalAction(
                violation("NOTHING_TO_CHANGE", "T-R6", "ask for a player type or a new token")
            )
        return found

    record, version = await engine.change_table(game_id, permit, changes)
    view = seat_view(engine.rules_of(record), game_id, record, version, None)
    return (token if issued else None), view


async def end_game(engine: Engine, game_id: str, admin: Admin, reason: str) -> SeatView:
    """End the game now with ``reason`` and no winner (T-R8); the spectator's view.

    Raises:
        Unauthenticated: not the game's admin.
        IllegalAction: GAME_OVER (T-R1).
    """

    def permit(record: GameRecord) -> None:
        authorize_admin(record, admin)

    def changes(spec: GameSpec[Any, Any, Any, Any], record: GameRecord) -> Sequence[Change]:
        return [(WHOLE_GAME, GameEndedEarly(reason))]

    record, version = await engine.change_table(game_id, permit, changes)
    return seat_view(engine.rules_of(record), game_id, record, version, None)


def rotated(seats: Sequence[Any]) -> list[Any]:
    """Each seat's occupant moved one seat on (T-R9): seat ``i`` goes to ``i + 1``.

    Partners stay partners (Guandan's teams are every other seat) and the first deal passes
    to the next player.

    >>> rotated(["a", "b", "c", "d"])
    ['d', 'a', 'b', 'c']
    """
    return [seats[-1], *seats[:-1]]


async def rematch(engine: Engine, game_id: str, admin: Admin) -> CreatedGame:
    """A new game from a finished one (T-R9), the two linked both ways.

    The new game keeps the type, options, clock and labels, with every player (as the seats
    are played now: a seat its player left stays a bot's) moved one seat on and new tokens
    (``tokens`` are by the new seats). A game has at most one rematch: when two calls race,
    the game of the one that lost is ended at once and it is told ALREADY_EXISTS.

    Raises:
        GameNotFound: no such game.
        Unauthenticated: not the game's admin.
        IllegalAction: GAME_NOT_OVER (T-R9).
        AlreadyExists: ALREADY_REMATCHED, with the rematch's id in ``rematchId``.
    """
    summary = await engine.store.summary(game_id)
    record = decode_record(summary.snapshot)
    authorize_admin(record, admin)
    if outcome_of(engine.rules_of(record), record) is None:
        raise IllegalAction(
            violation("GAME_NOT_OVER", "T-R9", "only a finished game can be rematched")
        )
    if summary.rematch_id:
        raise _already(game_id, summary.rematch_id)
    kinds = rotated([s.kind for s in record.seats])
    new = NewGame(record.config, None, record.clock, record.labels, rematch_of=game_id)
    created = await engine.create_game(record.game_type, kinds, new)
    linked = await engine.store.link_rematch(game_id, created.game_id)
    if linked != created.game_id:
        await end_game(engine, created.game_id, Admin(created.admin_token), "a duplicate rematch")
        raise _already(game_id, linked)
    return created


def _already(game_id: str, rematch_id: str) -> AlreadyExists:
    return AlreadyExists(f"game {game_id} already has a rematch", rematchId=rematch_id)
