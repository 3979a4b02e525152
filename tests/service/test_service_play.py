"""Play: moves and joined games on one stream, through a real gRPC server and redis-server.

Four seats each on a session of their own play whole games of every type (each seat hears
every version, in order, and the game's log agrees); a move sent brief is answered with its
version only, the seat's view coming as the update; a move's error answers that move and the
session goes on (an illegal move with its rule, nothing stored changed); a move resent with
its request id is applied once; bytes that are no request, an empty request, a join of an
unknown game or with a bad token each answer only themselves; a leave stops a game's
updates; with a service key every request takes a call from the key's bucket; the web port's
Connect protocol does not serve Play (its WebSocket does: ``test_web_socket_play``).
"""

from __future__ import annotations

import asyncio
import threading
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
import redis
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import engine_service_pb2_grpc, game_pb2
from cardengine_client.aio import AsyncEngineClient
from cardengine_client.errors import Aborted, IllegalAction, NotFound, Unauthenticated
from cardengine_client.session import PlaySession
from google.rpc import error_details_pb2

from engine_service.devtools.local import free_port, local_service
from tests.service.keyed import new_key
from tests.service.rpc_helpers import HUMAN, create, first_legal, short_pass, tokens_of, view
from tests.service.stored import contents
from tests.service.test_web_connect import connect_call

pytestmark = pytest.mark.service

SEATS = {"hearts": 4, "guandan": 4, "klaberjass": 2}
MAX_MESSAGES = 20_000
"""Every loop over a session's messages stops after this many (a whole Guandan match is fewer)."""
WAIT = 30.0


def run(coroutine: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coroutine, WAIT * 4))


async def play_seat(
    address: str, game_id: str, seat: int, token: str
) -> tuple[list[int], game_pb2.GameView | None]:
    """One seat on its own session: join, move whenever it is to act, until the game ends.

    A move is made from the newest version the seat knows; one that another seat's move
    overtook (ABORTED) is decided again from the next update. Odd seats move brief.

    Returns every version the seat was told, in order, and the final view.
    """
    versions: list[int] = []
    last: game_pb2.GameView | None = None
    async with AsyncEngineClient(address) as client, client.session(token) as session:
        await session.join(game_id, seat)
        told = known = 0
        async for _, message in session.updates():
            told += 1
            assert told < MAX_MESSAGES
            if message.HasField("ended"):
                return versions, last
            if not message.HasField("update"):
                continue
            update = message.update
            versions.append(update.version)
            last = update.view
            if update.version < known or seat not in update.view.to_act:
                continue  # a version the seat's own answers already went past
            action = first_legal(update.view)
            try:
                if seat % 2:  # brief: the version only, the seat's view comes as the update
                    known = await session.move_brief(game_id, seat, token, action, update.version)
                else:
                    moved = await session.move(game_id, seat, token, action, update.version)
                    known = moved.version
            except Aborted:  # another seat moved first: the next update shows it
                continue
    return versions, last


@pytest.mark.parametrize("game_type", sorted(SEATS))
def test_every_seat_on_its_own_session_plays_a_whole_game(
    engine_address: str, stub: Any, game_type: str
) -> None:
    created = create(stub, [HUMAN] * SEATS[game_type], seed=11, game_type=game_type)
    tokens = tokens_of(created)

    async def all_seats() -> list[tuple[list[int], game_pb2.GameView | None]]:
        return await asyncio.gather(
            *(play_seat(engine_address, created.game_id, s, t) for s, t in tokens.items())
        )

    told = run(all_seats())
    final = view(stub, created.game_id)
    assert final.status == game_pb2.GAME_STATUS_FINISHED
    for versions, last in told:
        assert versions == sorted(set(versions)), "every version once, in order"
        assert versions[-1] == final.version
        assert last is not None and last.status == game_pb2.GAME_STATUS_FINISHED
    outcomes = {last.outcome.SerializeToString() for _, last in told if last is not None}
    assert outcomes == {final.outcome.SerializeToString()}


def test_a_brief_move_is_answered_with_its_version_and_the_seat_sees_it_as_the_update(
    engine_address: str, stub: Any
) -> None:
    created = create(stub, [HUMAN] * 2, seed=4, game_type="klaberjass")
    tokens = tokens_of(created)
    [seat] = created.view.to_act
    start = view(stub, created.game_id, seat, tokens[seat])

    async def brief_move() -> tuple[api.PlayResponse, api.PlayResponse]:
        channel = grpc.aio.insecure_channel(engine_address)
        call = engine_service_pb2_grpc.EngineServiceStub(channel).Play()
        try:
            join = api.WatchGameRequest(game_id=created.game_id, seat=seat, from_version=0)
            await call.write(api.PlayRequest(ref=1, token=tokens[seat], join=join))
            first = await call.read()
            assert first.watch.update.version == start.version
            move = api.SubmitActionRequest(
                game_id=created.game_id,
                seat=seat,
                expected_version=start.version,
                request_id="brief",
                action=first_legal(start),
            )
            await call.write(api.PlayRequest(ref=2, token=tokens[seat], move=move, brief=True))
            answers = {}
            while len(answers) < 2:  # the move's answer and its update, in either order
                answer = await call.read()
                answers[answer.ref] = answer
            return answers[2], answers[1]
        finally:
            call.cancel()
            await channel.close()

    moved, update = run(brief_move())
    after = view(stub, created.game_id, seat, tokens[seat])
    assert moved.WhichOneof("response") == "moved"
    assert moved.moved.version == after.version > start.version
    assert not moved.moved.HasField("view")
    assert update.watch.update.version == after.version
    assert update.watch.update.view == after


def test_an_illegal_move_answers_only_itself_and_changes_nothing(
    engine_address: str, stub: Any, redis_client: redis.Redis
) -> None:
    created = create(stub, [HUMAN] * 4, seed=5)
    tokens = tokens_of(created)
    start = view(stub, created.game_id, 0, tokens[0])
    too_few = short_pass(start)
    before = contents(redis_client, created.game_id)

    async def on_one_session() -> game_pb2.GameView:
        async with AsyncEngineClient(engine_address) as client, client.session() as session:
            with pytest.raises(IllegalAction) as refused:
                await session.move(created.game_id, 0, tokens[0], too_few, start.version)
            assert refused.value.rule_id == "H-R2"
            assert contents(redis_client, created.game_id) == before
            legal = first_legal(start)
            return await session.move(created.game_id, 0, tokens[0], legal, start.version)

    after = run(on_one_session())
    assert after.version >= start.version
    assert view(stub, created.game_id, 0, tokens[0]).hearts.pass_submitted[0]


def test_a_move_sent_again_with_its_request_id_is_applied_once(
    engine_address: str, stub: Any
) -> None:
    created = create(stub, [HUMAN] * 4, seed=6)
    tokens = tokens_of(created)
    start = view(stub, created.game_id, 0, tokens[0])
    request_id = uuid.uuid4().hex

    async def twice() -> list[game_pb2.GameView]:
        async with AsyncEngineClient(engine_address) as client, client.session() as session:
            move = first_legal(start)
            first = await session.move(
                created.game_id, 0, tokens[0], move, start.version, request_id
            )
            again = await session.move(
                created.game_id, 0, tokens[0], move, start.version, request_id
            )
            return [first, again]

    first, again = run(twice())
    assert first == again
    log = stub.GetActionLog(api.GetActionLogRequest(game_id=created.game_id, page_size=100))
    assert len(log.entries) == 1


def raw_session(address: str, requests: list[bytes]) -> list[api.PlayResponse]:
    """The answers to ``requests`` sent as they are (bytes); the stream is closed once each
    has its answer (closing earlier would end the joins before they answer)."""
    answered = threading.Event()

    def sent() -> Iterator[bytes]:
        yield from requests
        answered.wait(WAIT)

    answers = []
    with grpc.insecure_channel(address) as channel:
        play = channel.stream_stream(
            "/cardengine.v1.EngineService/Play",
            request_serializer=lambda data: data,
            response_deserializer=api.PlayResponse.FromString,
        )
        for answer in play(sent(), timeout=WAIT):
            answers.append(answer)
            if len(answers) == len(requests):
                answered.set()
    return answers


def reason_of(error: api.PlayError) -> str:
    info = error_details_pb2.ErrorInfo()
    assert any(detail.Unpack(info) for detail in error.details)
    return info.reason


def test_requests_that_are_no_move_answer_only_themselves(engine_address: str, stub: Any) -> None:
    created = create(stub, [HUMAN] * 4, seed=7)
    tokens = tokens_of(created)
    start = view(stub, created.game_id, 0, tokens[0])
    move = api.SubmitActionRequest(
        game_id=created.game_id,
        seat=0,
        expected_version=start.version,
        request_id="r1",
        action=first_legal(start),
    )
    requests = [
        b"\xff\xff\xff",  # no PlayRequest at all
        api.PlayRequest(ref=2).SerializeToString(),  # nothing asked
        api.PlayRequest(ref=3, token=tokens[1], move=move).SerializeToString(),  # seat 1's token
        api.PlayRequest(ref=4, join=api.WatchGameRequest(game_id="0" * 32)).SerializeToString(),
        api.PlayRequest(ref=5, token=tokens[0], move=move).SerializeToString(),
    ]
    answers = {answer.ref: answer for answer in raw_session(engine_address, requests)}
    assert answers.keys() == {0, 2, 3, 4, 5}
    assert answers[0].error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert reason_of(answers[0].error) == "REQUEST_UNDECODABLE"
    assert answers[2].error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert answers[3].error.code == grpc.StatusCode.PERMISSION_DENIED.value[0]
    assert answers[4].error.code == grpc.StatusCode.NOT_FOUND.value[0]
    assert answers[5].HasField("moved") and answers[5].game_id == created.game_id
    assert answers[5].moved.view.version >= start.version


def test_join_errors_and_leave(engine_address: str, stub: Any) -> None:
    created = create(stub, [HUMAN] * 4, seed=8)
    tokens = tokens_of(created)

    async def joins() -> None:
        async with AsyncEngineClient(engine_address) as client:
            session: PlaySession = client.session()
            async with session:
                # A join's error is raised by updates(); the next updates() goes on.
                await session.join(created.game_id, 0, "not-a-token")
                with pytest.raises(Unauthenticated):
                    await anext(session.updates())
                await session.join("0" * 32, 0, tokens[0])
                with pytest.raises(NotFound):
                    await anext(session.updates())
                await session.join(created.game_id, 0, tokens[0])
                updates = session.updates()
                _, first = await anext(updates)
                assert first.update.version == created.view.version
                await session.leave(created.game_id)
                # Another seat moves; the left game tells this session nothing more.
                start = view(stub, created.game_id, 1, tokens[1])
                await session.move(created.game_id, 1, tokens[1], first_legal(start), start.version)
                try:
                    await asyncio.wait_for(anext(updates), 0.5)
                except TimeoutError:
                    return
                raise AssertionError("an update came after the leave")

    run(joins())


@pytest.fixture
def keyed_address(redis_url: str) -> Iterator[tuple[str, Any]]:
    key = new_key("create", "rate=0.01,burst=4")
    with local_service(redis_url, service_keys=(key.line,)) as address:
        yield address, key


def test_each_request_of_a_session_takes_a_call_from_the_key(
    keyed_address: tuple[str, Any],
) -> None:
    address, key = keyed_address
    with grpc.insecure_channel(address) as channel:
        stub = engine_service_pb2_grpc.EngineServiceStub(channel)
        created = stub.CreateGame(
            api.CreateGameRequest(game_type="hearts", seats=[HUMAN] * 4), metadata=key.md
        )  # call 1 of the burst of 4; opening the session is call 2
        leave = api.PlayLeave(game_id=created.game_id)
        requests = [api.PlayRequest(ref=ref, leave=leave) for ref in (1, 2, 3)]
        answers = list(stub.Play(iter(requests), metadata=key.md, timeout=WAIT))
    errors = [answer for answer in answers if answer.HasField("error")]
    assert [answer.ref for answer in errors] == [3], "calls 3 and 4 let in, the third leave not"
    assert errors[0].error.code == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
    assert reason_of(errors[0].error) == "RATE_LIMITED"
    assert sorted(answer.ref for answer in answers if answer.HasField("left")) == [1, 2]


def test_the_web_ports_connect_protocol_does_not_serve_play(redis_url: str) -> None:
    """Connect over HTTP/1.1 cannot stream requests: Play is not among its procedures."""
    port = free_port()
    with local_service(redis_url, web_port=port):
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/cardengine.v1.EngineService/Play",
            data=b"{}",
            headers={"content-type": "application/json"},
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=WAIT)
        status, answer = connect_call(f"127.0.0.1:{port}", "ListGameTypes", {})
    assert refused.value.code == 404
    assert status == 200 and answer["gameTypes"]


def test_a_games_moves_are_answered_in_the_order_sent_and_only_once_stored(
    engine_address: str, stub: Any
) -> None:
    """Four passes of one game sent at once on one session (each with its seat's token) are
    answered in the order sent; each answer's version is already what GetGameView reads."""
    created = create(stub, [HUMAN] * 4, seed=9)
    tokens = tokens_of(created)
    views = {seat: view(stub, created.game_id, seat, token) for seat, token in tokens.items()}

    async def all_passes() -> list[int]:
        answered: list[int] = []
        async with AsyncEngineClient(engine_address) as client, client.session() as session:

            async def pass_of(seat: int) -> None:
                seat_view = views[seat]
                moved = await session.move(
                    created.game_id, seat, tokens[seat], first_legal(seat_view), seat_view.version
                )
                answered.append(seat)
                assert view(stub, created.game_id).version >= moved.version  # stored first

            await asyncio.gather(*(pass_of(seat) for seat in range(4)))
        return answered

    assert run(all_passes()) == [0, 1, 2, 3]
    assert all(view(stub, created.game_id, 0, tokens[0]).hearts.pass_submitted)
