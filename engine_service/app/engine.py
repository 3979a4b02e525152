"""The service's use cases, each a few named steps over rules, bots, codec and store.

Every call loads the game from the store, works on immutable values and, for a move, writes
the result back with one compare-and-set. Nothing is cached between calls, so any number of
processes can serve the same games; a rejected move writes nothing at all.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from engine_service.app.seats import authorize, new_token
from engine_service.codec.record import (
    decode_log_entry,
    decode_record,
    encode_log_entry,
    encode_record,
)
from engine_service.core.errors import MalformedRequest, VersionConflict
from engine_service.core.protocol import GameSpec, Outcome, Rules
from engine_service.core.record import GameRecord, PlayerKind, SeatRecord
from engine_service.games import REGISTRY
from engine_service.store.protocol import GameStore

BOT_ACTION_LIMIT: Final = 50_000
"""Most bot actions one request may run; only an all-bot game can come near it."""

VERSION_BYTES: Final = 8


@dataclass(frozen=True, slots=True)
class SeatView:
    """What one seat (or a spectator, ``viewer is None``) sees, plus the game's envelope."""

    game_id: str
    game_type: str
    version: int
    viewer: int | None
    to_act: tuple[int, ...]
    legal: Sequence[Any]
    outcome: Outcome | None
    seats: tuple[PlayerKind, ...]
    config: Any
    view: Any


@dataclass(frozen=True, slots=True)
class CreatedGame:
    """A new game: its id, one token per human seat, and the spectator's view."""

    game_id: str
    tokens: Mapping[int, str]
    view: SeatView


@dataclass(frozen=True, slots=True)
class LogLine:
    """One action-log entry; ``action`` is ``None`` when redacted for the reader."""

    index: int
    seat: int
    action: Any | None


@dataclass(frozen=True, slots=True)
class ActionLog:
    """A game's log as one reader may see it; ``seed`` only once the game is over."""

    game_type: str
    config: Any
    seed: int | None
    seats: tuple[PlayerKind, ...]
    version: int
    entries: tuple[LogLine, ...]


class Engine:
    """Create games, show views, apply actions and let bots play, over one store."""

    def __init__(
        self,
        store: GameStore,
        registry: Mapping[str, GameSpec[Any, Any, Any, Any]] = REGISTRY,
    ) -> None:
        self._store = store
        self._registry = registry

    @property
    def game_types(self) -> tuple[GameSpec[Any, Any, Any, Any], ...]:
        """Every game this engine hosts."""
        return tuple(self._registry.values())

    def spec(self, game_type: str, field_path: str = "game_type") -> GameSpec[Any, Any, Any, Any]:
        """The registry entry of a game type; raises MalformedRequest if unknown."""
        spec = self._registry.get(game_type)
        if spec is None:
            known = ", ".join(sorted(self._registry))
            raise MalformedRequest(field_path, f"unknown game type {game_type!r} (known: {known})")
        return spec

    # -- use cases -----------------------------------------------------------------------

    def create_game(
        self, game_type: str, config: Any, seats: Sequence[PlayerKind], seed: int | None
    ) -> CreatedGame:
        """Deal a new game, let bots make their opening moves, store it.

        Raises:
            MalformedRequest: unknown game type or the wrong number of seats.
        """
        spec = self.spec(game_type)
        if len(seats) != spec.seats:
            raise MalformedRequest("seats", f"{game_type} needs exactly {spec.seats} seats")
        game_seed = secrets.randbits(63) if seed is None else seed
        tokens: dict[int, str] = {}
        seat_records = []
        for index, kind in enumerate(seats):
            digest = b""
            if kind is PlayerKind.HUMAN:
                tokens[index], digest = new_token()
            seat_records.append(SeatRecord(kind, digest))
        rules = spec.make_rules(config)
        record = GameRecord(game_type, config, game_seed, tuple(seat_records), None)
        state, moves = self._run_bots(spec, rules, record, rules.new_game(game_seed), 1)
        record = replace(record, state=state)
        game_id = secrets.token_hex(16)
        log = [encode_log_entry(game_type, seat, action) for seat, action in moves]
        version = self._store.create(game_id, encode_record(record), log)
        return CreatedGame(game_id, tokens, self._seat_view(game_id, record, version, None))

    def view(self, game_id: str, seat: int | None, token: str | None) -> SeatView:
        """A seat's view (token checked) or the spectator's view (``seat is None``)."""
        stored = self._store.load(game_id)
        record = decode_record(stored.snapshot)
        self._check_reader(record, seat, token)
        return self._seat_view(game_id, record, stored.version, seat)

    def submit(
        self,
        game_id: str,
        seat: int,
        token: str | None,
        expected_version: int,
        request_id: str,
        action_game: str,
        action: Any,
    ) -> SeatView:
        """Apply ``seat``'s action, then the bots' replies, with one compare-and-set.

        Raises:
            MalformedRequest: bad seat, or an action of another game type.
            Unauthenticated, PermissionDenied: the token is not ``seat``'s.
            VersionConflict: the game is no longer at ``expected_version``.
            IllegalAction: the rules forbid the action; nothing is written.
        """
        request_key = f"{seat}:{request_id}"
        stored = self._store.load(game_id, request_key)
        record = decode_record(stored.snapshot)
        spec = self._registry[record.game_type]
        self._check_seat(spec, seat, "seat")
        authorize(record, seat, token)
        if stored.replay is not None:
            return self._replayed_view(game_id, stored.replay, seat)
        if action_game != record.game_type:
            raise MalformedRequest("action", f"this game is {record.game_type}, not {action_game}")
        if expected_version != stored.version:
            raise VersionConflict(expected_version, stored.version)
        rules = spec.make_rules(record.config)
        state = rules.apply(record.state, seat, action)
        state, bot_moves = self._run_bots(spec, rules, record, state, stored.version + 1)
        record = replace(record, state=state)
        snapshot = encode_record(record)
        log = [encode_log_entry(record.game_type, seat, action)]
        log += [encode_log_entry(record.game_type, s, a) for s, a in bot_moves]
        version = stored.version + len(log)
        reply = version.to_bytes(VERSION_BYTES, "big")
        self._store.save(game_id, stored.version, snapshot, log, request_key, reply)
        return self._seat_view(game_id, record, version, seat)

    def action_log(self, game_id: str, seat: int | None, token: str | None) -> ActionLog:
        """The log as ``seat`` may read it: others' secret moves hidden until the game ends."""
        stored, raw_entries = self._store.log(game_id)
        record = decode_record(stored.snapshot)
        self._check_reader(record, seat, token)
        rules = self._registry[record.game_type].make_rules(record.config)
        over = rules.outcome(record.state) is not None
        entries = []
        for index, raw in enumerate(raw_entries):
            actor, action = decode_log_entry(record.game_type, raw)
            hidden = not over and actor != seat and rules.is_secret(action)
            entries.append(LogLine(index, actor, None if hidden else action))
        return ActionLog(
            game_type=record.game_type,
            config=record.config,
            seed=record.seed if over else None,
            seats=tuple(s.kind for s in record.seats),
            version=stored.version,
            entries=tuple(entries),
        )

    # -- steps -----------------------------------------------------------------------------

    def _check_reader(self, record: GameRecord, seat: int | None, token: str | None) -> None:
        if seat is not None:
            self._check_seat(self._registry[record.game_type], seat, "seat")
            authorize(record, seat, token)

    @staticmethod
    def _check_seat(spec: GameSpec[Any, Any, Any, Any], seat: int, field_path: str) -> None:
        if not 0 <= seat < spec.seats:
            raise MalformedRequest(field_path, f"must be between 0 and {spec.seats - 1}")

    @staticmethod
    def _run_bots(
        spec: GameSpec[Any, Any, Any, Any],
        rules: Rules[Any, Any, Any],
        record: GameRecord,
        state: Any,
        version: int,
    ) -> tuple[Any, list[tuple[int, Any]]]:
        """Let bot seats act until a human must, or the game ends.

        Each bot move draws from ``Random(f"{seed}:bot:{version}")``, so a seeded game with
        the same human moves plays out the same way every time.
        """
        moves: list[tuple[int, Any]] = []
        while len(moves) < BOT_ACTION_LIMIT:
            bot_seats = [s for s in rules.current_seats(state) if record.seats[s].kind.is_bot]
            if not bot_seats:
                break
            seat = bot_seats[0]
            bot = spec.bots[record.seats[seat].kind.value]
            rng = random.Random(f"{record.seed}:bot:{version + len(moves)}")
            legal = rules.legal_actions(state, seat)
            action = bot.choose(rules.view(state, seat), legal, rng)
            state = rules.apply(state, seat, action)
            moves.append((seat, action))
        return state, moves

    def _seat_view(
        self, game_id: str, record: GameRecord, version: int, seat: int | None
    ) -> SeatView:
        rules = self._registry[record.game_type].make_rules(record.config)
        state = record.state
        return SeatView(
            game_id=game_id,
            game_type=record.game_type,
            version=version,
            viewer=seat,
            to_act=rules.current_seats(state),
            legal=rules.legal_actions(state, seat) if seat is not None else (),
            outcome=rules.outcome(state),
            seats=tuple(s.kind for s in record.seats),
            config=record.config,
            view=rules.view(state, seat),
        )

    def _replayed_view(self, game_id: str, reply: bytes, seat: int) -> SeatView:
        """The answer a repeated request got the first time (AIP-155 idempotency).

        Only the version a request reached is remembered (8 bytes rather than a snapshot
        per move); the game at that version is rebuilt from the seed and the log, as any
        replay is. Retries are rare, so their cost matters less than every move's.
        """
        version = int.from_bytes(reply[:VERSION_BYTES], "big")
        stored, entries = self._store.log(game_id)
        record = decode_record(stored.snapshot)
        rules = self._registry[record.game_type].make_rules(record.config)
        state = rules.new_game(record.seed)
        for raw in entries[: version - 1]:
            actor, action = decode_log_entry(record.game_type, raw)
            state = rules.apply(state, actor, action)
        return self._seat_view(game_id, replace(record, state=state), version, seat)
