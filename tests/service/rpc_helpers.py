"""Small helpers shared by the service tests: calls with tokens, error details, stored bytes."""

from __future__ import annotations

import random
import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
import redis
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import game_pb2
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from engine_service.codec.record import decode_record
from engine_service.codec.registry import CODECS
from engine_service.registry import REGISTRY
from engine_service.store.keys import game_key

HUMAN = game_pb2.PLAYER_TYPE_HUMAN
RANDOM = game_pb2.PLAYER_TYPE_BOT_RANDOM
HEURISTIC = game_pb2.PLAYER_TYPE_BOT_HEURISTIC


@dataclass
class RpcFailure:
    code: grpc.StatusCode
    reason: str
    metadata: dict[str, str]
    details: list[Any]


def failure_of(call: Callable[[], Any]) -> RpcFailure:
    """Run ``call``, which must fail, and unpack its status details."""
    try:
        call()
    except grpc.RpcError as error:
        status = rpc_status.from_call(error)  # type: ignore[arg-type]
        assert status is not None, "the error carries no google.rpc.Status"
        info = error_details_pb2.ErrorInfo()
        details = []
        for detail in status.details:
            if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                detail.Unpack(info)
            for kind in (error_details_pb2.PreconditionFailure, error_details_pb2.BadRequest):
                if detail.Is(kind.DESCRIPTOR):
                    message = kind()
                    detail.Unpack(message)
                    details.append(message)
        assert info.domain == "cardengine"
        return RpcFailure(error.code(), info.reason, dict(info.metadata), details)  # type: ignore[attr-defined]
    raise AssertionError("the call succeeded")


def token_md(token: str) -> tuple[tuple[str, str], ...]:
    return (("x-seat-token", token),)


def create(
    stub: Any,
    seats: list[int],
    seed: int | None = None,
    game_type: str = "hearts",
    **options: Any,
) -> Any:
    """CreateGame of ``game_type`` with ``options`` set in that game's options message."""
    request = api.CreateGameRequest(game_type=game_type, seats=seats)
    if seed is not None:
        request.seed = seed
    if options:
        chosen = getattr(request.options, game_type)
        chosen.SetInParent()
        for name, value in options.items():
            setattr(chosen, name, value)
    return stub.CreateGame(request)


def view(stub: Any, game_id: str, seat: int | None = None, token: str | None = None) -> Any:
    request = api.GetGameViewRequest(game_id=game_id)
    metadata: tuple[tuple[str, str], ...] = ()
    if seat is not None:
        request.seat = seat
    if token is not None:
        metadata = token_md(token)
    return stub.GetGameView(request, metadata=metadata).view


def submit(
    stub: Any,
    game_id: str,
    seat: int,
    token: str,
    action: game_pb2.Action,
    version: int,
    request_id: str | None = None,
) -> Any:
    request = api.SubmitActionRequest(
        game_id=game_id,
        seat=seat,
        expected_version=version,
        request_id=request_id or uuid.uuid4().hex,
        action=action,
    )
    return stub.SubmitAction(request, metadata=token_md(token)).view


def stored(client: redis.Redis, game_id: str) -> dict[bytes, bytes]:
    """The stored game hash exactly as Redis holds it."""
    return client.hgetall(game_key(game_id))  # type: ignore[return-value]


def stored_state(client: redis.Redis, game_id: str) -> Any:
    """The game state Redis holds, decoded."""
    return decode_record(stored(client, game_id)[b"s"]).state


def failure_changing_nothing(
    client: redis.Redis, game_id: str, call: Callable[[], Any]
) -> RpcFailure:
    """Run ``call``, which must fail, and check the stored game stays byte-identical."""
    before = stored(client, game_id)
    failure = failure_of(call)
    assert stored(client, game_id) == before
    return failure


def assert_refused(
    stub: Any,
    client: redis.Redis,
    game_id: str,
    seat: int,
    token: str,
    action: game_pb2.Action,
    version: int,
    reason: str,
    rule_id: str,
) -> None:
    """``seat``'s ``action`` breaks ``rule_id`` with ``reason``; the stored game stays as it was."""
    failure = failure_changing_nothing(
        client, game_id, lambda: submit(stub, game_id, seat, token, action, version)
    )
    assert_rule_break(failure, reason, rule_id)


def assert_malformed(
    stub: Any,
    client: redis.Redis,
    game_id: str,
    seat: int,
    token: str,
    action: game_pb2.Action,
    version: int,
    field: str,
) -> None:
    """``seat``'s ``action`` is INVALID_ARGUMENT naming ``field``; the stored game stays."""
    failure = failure_changing_nothing(
        client, game_id, lambda: submit(stub, game_id, seat, token, action, version)
    )
    assert_invalid_field(failure, field)


def filled_choice(choice: Any, cards: Sequence[Any]) -> game_pb2.Action:
    """The action a ``CardChoice`` describes, with ``cards`` filled in."""
    action = game_pb2.Action()
    action.CopyFrom(choice.action)
    game = action.WhichOneof("game")
    inner = getattr(action, game)
    kind = inner.WhichOneof("action")
    getattr(inner, kind).cards.extend(cards)
    return action


def first_legal(seat_view: Any) -> game_pb2.Action:
    """The first listed legal action, or the first cards of the first card choice."""
    if seat_view.legal_actions:
        return seat_view.legal_actions[0]
    choice = seat_view.legal_choices[0]
    return filled_choice(choice, choice.cards[: choice.count])


def short_pass(seat_view: Any) -> game_pb2.Action:
    """A Hearts pass of one card where three must go (H-R2 refuses it)."""
    [choice] = seat_view.legal_choices
    return filled_choice(choice, choice.cards[:1])


def random_legal(seat_view: Any, rng: random.Random) -> game_pb2.Action:
    """A legal action drawn from the listed ones and the card choices, choices expanded."""
    options = list(seat_view.legal_actions) + list(seat_view.legal_choices)
    index = rng.randrange(len(options))
    if index < len(seat_view.legal_actions):
        return options[index]
    choice = options[index]
    return filled_choice(choice, rng.sample(list(choice.cards), choice.count))


WAIT_SECONDS = 60.0
"""How long a test waits for the timer loop to play bots on (a bound, not a measurement)."""


def watch_until(
    stub: Any,
    game_id: str,
    seat: int | None,
    token: str | None,
    version: int,
    done: Callable[[Any], bool],
) -> Any:
    """Follow the game from ``version`` as ``seat`` until a view satisfies ``done``.

    The first view that does is returned; the watch ends with the game or after
    :data:`WAIT_SECONDS`, whichever comes first.
    """
    request = api.WatchGameRequest(game_id=game_id, from_version=version)
    if seat is not None:
        request.seat = seat
    metadata = token_md(token) if token else None
    stream = stub.WatchGame(request, metadata=metadata, timeout=WAIT_SECONDS)
    try:
        for message in stream:
            if message.HasField("update") and done(message.update.view):
                return message.update.view
            if message.HasField("ended"):
                return view(stub, game_id, seat, token)
    finally:
        stream.cancel()
    raise AssertionError(f"game {game_id} never got there")


def finished(stub: Any, game_id: str) -> Any:
    """The spectator's view once the game is over (bots play on in the timer loop)."""
    current = view(stub, game_id)
    if current.status != game_pb2.GAME_STATUS_IN_PROGRESS:
        return current
    watch_until(stub, game_id, None, None, current.version, lambda v: False)
    return view(stub, game_id)


def turn_of(stub: Any, game_id: str, seat: int, token: str, seat_view: Any) -> Any:
    """``seat``'s view once it must act or the game is over (bots may still be moving)."""
    if seat_view.status != game_pb2.GAME_STATUS_IN_PROGRESS or seat in seat_view.to_act:
        return seat_view

    def ready(shown: Any) -> bool:
        return shown.status != game_pb2.GAME_STATUS_IN_PROGRESS or seat in shown.to_act

    return watch_until(stub, game_id, seat, token, seat_view.version, ready)


def play_randomly(
    stub: Any, game_id: str, seat: int, token: str, rng: random.Random, moves: int
) -> Any:
    """``seat`` makes up to ``moves`` random legal moves, fewer if the game ends; its last view."""
    seat_view = view(stub, game_id, seat, token)
    for _ in range(moves):
        seat_view = turn_of(stub, game_id, seat, token, seat_view)
        if seat_view.status != game_pb2.GAME_STATUS_IN_PROGRESS:
            break
        action = random_legal(seat_view, rng)
        seat_view = submit(stub, game_id, seat, token, action, seat_view.version)
    return seat_view


def finish(stub: Any, game_id: str, seat: int, token: str, rng: random.Random | None = None) -> Any:
    """Play ``seat`` to the end (first legal action, or a random one); its final view."""
    seat_view = turn_of(stub, game_id, seat, token, view(stub, game_id, seat, token))
    while seat_view.status == game_pb2.GAME_STATUS_IN_PROGRESS:
        action = random_legal(seat_view, rng) if rng else first_legal(seat_view)
        seat_view = submit(stub, game_id, seat, token, action, seat_view.version)
        seat_view = turn_of(stub, game_id, seat, token, seat_view)
    return seat_view


def replayed(log: Any, game_type: str) -> Any:
    """The state rebuilt from a finished game's action log: its seed, options and actions."""
    codec = CODECS[game_type]
    rules = REGISTRY[game_type].make_rules(codec.decode_options(log.options))
    state = rules.new_game(log.seed)
    for entry in log.entries:
        state = rules.apply(state, entry.seat, codec.decode_action(entry.action))
    return state


@dataclass(frozen=True)
class Move:
    """One SubmitAction of a race: who sends what against which version."""

    seat: int
    token: str
    action: game_pb2.Action
    version: int


def race(stub: Any, game_id: str, moves: Sequence[Move]) -> list[str]:
    """Send ``moves`` at the same moment from one thread each; each result, sorted.

    A result is ``"ok"`` or the failed call's status code as text.
    """
    barrier = threading.Barrier(len(moves))
    results: list[str] = []

    def send(move: Move) -> None:
        barrier.wait()
        try:
            submit(stub, game_id, move.seat, move.token, move.action, move.version)
            results.append("ok")
        except grpc.RpcError as error:
            results.append(str(error.code()))  # type: ignore[attr-defined]

    threads = [threading.Thread(target=send, args=(move,)) for move in moves]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sorted(results)


ONE_WINS = sorted(["ok", str(grpc.StatusCode.ABORTED)])
"""What a race of two moves on one version must give: one applied, one ABORTED."""


def tokens_of(created: Any) -> dict[int, str]:
    return {t.seat: t.token for t in created.seat_tokens}


def assert_rule_break(failure: RpcFailure, reason: str, rule_id: str) -> None:
    """A FAILED_PRECONDITION that names the broken rule in ErrorInfo and PreconditionFailure."""
    assert failure.code is grpc.StatusCode.FAILED_PRECONDITION
    assert failure.reason == reason
    assert failure.metadata["ruleId"] == rule_id
    precondition = next(
        d for d in failure.details if isinstance(d, error_details_pb2.PreconditionFailure)
    )
    assert precondition.violations[0].type == "RULE"
    assert precondition.violations[0].subject == rule_id


def assert_invalid_field(failure: RpcFailure, field: str) -> None:
    """An INVALID_ARGUMENT whose first BadRequest violation names ``field``."""
    assert (failure.code, failure.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_FIELD")
    bad_request = next(d for d in failure.details if isinstance(d, error_details_pb2.BadRequest))
    assert bad_request.field_violations[0].field == field
