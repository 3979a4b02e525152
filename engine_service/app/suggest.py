"""The SuggestAction use case: what the game's search bot would play in a seat, and why.

It reads the game as :meth:`Engine.view` does (:meth:`Engine.read`: load, decode, check the
seat's token) and writes nothing. The search is the game's own search bot
(:mod:`engine_service.bots.search`) fed exactly what a search bot seated there is fed: the
seat's view, its legal moves, the game's public rules and the generator of a bot deciding at
this version (:func:`~engine_service.app.play.bot_rng`). So the answer depends on what the
seat may see, the budget and the game's seed and version alone, never on another seat's
hidden cards or on the time, and on the default budget it is the move a search bot would make
in the seat.

The budget counts playouts, never time: by default the game's search bot's budget (what
ListGameTypes shows as ``BotInfo.simulations``, some 20 to 50 ms of CPU at the median), at most
:data:`MAX_BUDGET_FACTOR` times it (a larger request is lowered to that).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from engine_service.app.engine import Engine
from engine_service.app.play import bot_rng
from engine_service.app.search_budgets import SEARCH
from engine_service.bots.search import SearchBot, ValueKind
from engine_service.core.errors import MalformedRequest, NoSearchBot
from engine_service.core.protocol import GameSpec
from engine_service.core.record import GameRecord
from engine_service.core.table import moves_of

MAX_BUDGET_FACTOR: Final = 4
"""A suggestion searches at most this many times the game's search bot's budget (about
200 ms of CPU on the defaults): the cap keeps one call's cost bounded, whatever it asks."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """One action the search tried, with its mean value and the worlds it was played out in.

    ``value`` is ``None`` when the action was the only candidate (taken without a search).
    """

    action: Any
    value: float | None
    playouts: int


@dataclass(frozen=True, slots=True)
class Suggestion:
    """The search's pick for a seat at one version, and what it rests on.

    Attributes:
        game_type: the game's registry name (to encode the actions).
        version: the version the suggestion was computed for.
        action: the suggested move (one of the seat's legal moves).
        value_kind: what every candidate's value measures (higher is better).
        budget: the playouts the search was given (the default, or the asked number capped).
        max_budget: the most playouts a suggestion in this game may be given.
        candidates: every action searched, in the order searched.
    """

    game_type: str
    version: int
    action: Any
    value_kind: ValueKind
    budget: int
    max_budget: int
    candidates: tuple[Candidate, ...]


def search_bot_of(spec: GameSpec[Any, Any, Any, Any]) -> SearchBot:
    """The game's search bot as this service runs it.

    Raises:
        NoSearchBot: the operator took it off the game (``--search-budget GAME=0``).
    """
    bot = spec.bots.get(SEARCH)
    if not isinstance(bot, SearchBot):
        raise NoSearchBot(f"this service offers no search bot for {spec.name}, so no suggestion")
    return bot


def asked_budget(asked: int | None) -> int | None:
    """A budget a request may ask for: unset (``None``) or at least one playout.

    Raises:
        MalformedRequest: ``asked`` is 0 (leave it unset for the default).
    """
    if asked is not None and asked < 1:
        raise MalformedRequest("playouts", "must be at least 1 (unset: the game's default)")
    return asked


def budget_of(bot: SearchBot, asked: int | None) -> int:
    """The playouts a suggestion gets: ``asked`` lowered to the cap, or the bot's own budget.

    Raises:
        MalformedRequest: ``asked`` is 0.
    """
    asked = asked_budget(asked)
    return bot.budget if asked is None else min(asked, MAX_BUDGET_FACTOR * bot.budget)


def suggest(
    spec: GameSpec[Any, Any, Any, Any],
    record: GameRecord,
    version: int,
    seat: int,
    asked: int | None,
) -> Suggestion:
    """What the game's search bot plays for ``seat`` in ``record`` at ``version``, with why.

    Pure and deterministic: the search reads the seat's view, its legal moves and the public
    rules, and draws from the version's bot generator, so two records that show ``seat`` the
    same view give the same suggestion.

    Raises:
        NoSearchBot: the game's search bot is off.
        MalformedRequest: ``asked`` is 0.
        IllegalAction: the game is over (GAME_OVER, T-R1), a bot plays the seat
            (SEAT_PLAYED_BY_BOT, T-R2), or the seat has nothing to do now (the refusal its
            game gives a move out of turn, e.g. NOT_YOUR_TURN H-R4).
    """
    bot = search_bot_of(spec)
    budget = budget_of(bot, asked)
    rules = spec.make_rules(record.config)
    legal: Sequence[Any] = moves_of(rules, record, seat)
    view = rules.view(record.state, seat)
    searched = bot.with_budget(budget).search(rules, view, legal, bot_rng(record, version))
    candidates = tuple(
        Candidate(action, searched.mean(index), searched.rounds)
        for index, action in enumerate(searched.candidates)
    )
    return Suggestion(
        game_type=record.game_type,
        version=version,
        action=searched.action,
        value_kind=bot.worlds.value_kind,
        budget=budget,
        max_budget=MAX_BUDGET_FACTOR * bot.budget,
        candidates=candidates,
    )


async def suggest_action(
    engine: Engine, game_id: str, seat: int, token: str | None, asked: int | None
) -> Suggestion:
    """:func:`suggest` for the stored game, after checking ``seat``'s token; writes nothing.

    The search (tens of milliseconds of CPU) runs in a worker thread, so the event loop
    keeps serving other calls between the interpreter's switches.

    Raises:
        GameNotFound: no such game.
        MalformedRequest: ``seat`` out of range, or ``asked`` is 0.
        Unauthenticated, PermissionDenied: the token is not ``seat``'s.
        NoSearchBot, IllegalAction: as :func:`suggest`.
    """
    asked_budget(asked)
    stored, record = await engine.read(game_id, seat, token)
    spec = engine.registry[record.game_type]
    return await asyncio.to_thread(suggest, spec, record, stored.version, seat, asked)
