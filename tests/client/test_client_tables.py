"""The clients' table calls against the real service: clocks, labels, listing, seat changes,
early endings and rematches (T-R1 to T-R9), and the typed errors each refusal arrives as.

Each rule a check stands for is named beside it. The retry policy of the new calls (reads are
retried after UNAVAILABLE, table changes are sent once) is checked against the scripted
servicer, the only server that can be made to answer UNAVAILABLE on demand.
"""

from __future__ import annotations

import asyncio
import io
import itertools
import re
import uuid
from collections.abc import Iterator

import grpc
import pytest
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import engine_service_pb2_grpc, game_pb2
from cardengine_client import (
    AdminTokenInvalid,
    AlreadyRematched,
    Clock,
    EngineClient,
    GameNotOver,
    NoForfeitInGame,
    NothingToChange,
    SeatPlayedByBot,
    ServiceKeyInvalid,
    Unavailable,
    terminal,
)
from cardengine_client.aio import AsyncEngineClient
from cardengine_client.text import render_clocks, render_outcome, render_view
from google.rpc import status_pb2
from grpc_status import rpc_status

from engine_service.app.seats import key_spec
from engine_service.devtools.local import local_service
from tests.client.scripted_server import serving

pytestmark = pytest.mark.service

SEATS = ["human", "human", "heuristic", "heuristic"]
SECONDS = 120  # generous: each call answers in milliseconds
SERVICE_KEY = "tables-test-key"
MAX_ITEMS = 500  # watch updates read at most: a game's first moves need a few dozen


def suite_label() -> dict[str, str]:
    """A label no other test's games carry, so listings see only this test's games."""
    return {"suite": f"t{uuid.uuid4().hex[:12]}"}


def test_clock_labels_listing_and_get_game_sync(engine_address: str) -> None:
    """CreateGame's clock shows in the view and GetGame (T-R4); listing filters by label."""
    labels = suite_label()
    with EngineClient(engine_address) as client:
        clock = Clock(60, bank=30, on_expiry="random")
        first = client.create_game("hearts", SEATS, clock=clock, labels=labels)
        second = client.create_game("hearts", SEATS, clock=45.0, labels=labels)
        assert first.admin_token and first.admin_token != second.admin_token
        assert {entry.seat for entry in first.view.clocks} == {0, 1}  # human seats only (T-R4)

        listed = client.list_games(labels=labels)
        assert {game.game_id for game in listed.games} == {first.game_id, second.game_id}
        everything = list(client.list_all_games(labels=labels, page_size=1))
        assert sorted(game.game_id for game in everything) == sorted(
            [first.game_id, second.game_id]
        )
        waiting = client.list_games(state="waiting", labels=labels, game_type="hearts")
        assert len(waiting.games) == 2
        assert not client.list_games(state="over", labels=labels).games

        info = client.get_game(first.game_id, first.admin_token)
        assert info.game_id == first.game_id and dict(info.labels) == labels
        assert info.clock.per_decision.seconds == 60 and info.clock.bank.seconds == 30
        assert info.clock.on_expiry == game_pb2.EXPIRY_ACTION_BOT_RANDOM
        assert client.get_game(second.game_id, second.admin_token).clock.per_decision.seconds == 45

        with pytest.raises(AdminTokenInvalid) as wrong:
            client.get_game(first.game_id, second.admin_token)  # another game's admin token
        assert wrong.value.code is grpc.StatusCode.UNAUTHENTICATED
        with pytest.raises(NoForfeitInGame):  # T-R5: Hearts has no forfeit to fall back on
            client.create_game("hearts", SEATS, clock=Clock(60, on_expiry="forfeit"))
        with pytest.raises(ValueError, match="expiry action"):
            client.create_game("hearts", SEATS, clock=Clock(60, on_expiry="nap"))


def test_leave_update_end_and_rematch_sync(engine_address: str) -> None:
    """T-R2 leave, T-R1 bot seat, T-R6/T-R7 seat updates, T-R8 end early, T-R9 rematch."""
    with EngineClient(engine_address) as client:
        game = client.create_game("hearts", SEATS, labels=suite_label())
        game_id, admin = game.game_id, game.admin_token
        tokens = {entry.seat: entry.token for entry in game.seat_tokens}

        with pytest.raises(GameNotOver):  # T-R9: only a finished game is rematched
            client.rematch_game(game_id, admin)

        left = client.leave_game(game_id, 1, tokens[1])
        assert left.seats[1] == game_pb2.PLAYER_TYPE_BOT_HEURISTIC  # T-R2: a bot plays on
        with pytest.raises(SeatPlayedByBot):  # T-R1: the seat is the bot's now
            client.leave_game(game_id, 1, tokens[1])

        back = client.update_seat(game_id, 1, admin, player_type="human", reissue_token=True)
        assert back.token and back.token != tokens[1]  # T-R7: a new token for the seat
        assert back.view.seats[1] == game_pb2.PLAYER_TYPE_HUMAN  # T-R6
        with pytest.raises(NothingToChange):  # T-R6: seat 0 is a person's already
            client.update_seat(game_id, 0, admin, player_type="human")

        ended = client.end_game(game_id, admin, "the table closed")
        assert ended.status == game_pb2.GAME_STATUS_FINISHED  # T-R8
        assert ended.outcome.ended_early
        info = client.get_game(game_id, admin)
        assert info.state == api.GAME_STATE_OVER

        rematch = client.rematch_game(game_id, admin)  # T-R9
        assert rematch.game_id != game_id and rematch.admin_token
        assert client.get_game(rematch.game_id, rematch.admin_token).rematch_of == game_id
        with pytest.raises(AlreadyRematched) as again:
            client.rematch_game(game_id, admin)
        assert again.value.rematch_id == rematch.game_id


def test_the_async_client_speaks_every_table_call(engine_address: str) -> None:
    """The asyncio client, once through each call (T-R2, T-R6, T-R7, T-R8, T-R9)."""

    async def scenario() -> None:
        labels = suite_label()
        async with AsyncEngineClient(engine_address) as client:
            game = await client.create_game("hearts", SEATS, clock=Clock(30, 10), labels=labels)
            game_id, admin = game.game_id, game.admin_token
            tokens = {entry.seat: entry.token for entry in game.seat_tokens}
            assert [g.game_id for g in (await client.list_games(labels=labels)).games] == [game_id]
            assert [g.game_id async for g in client.list_all_games(labels=labels)] == [game_id]
            assert (await client.get_game(game_id, admin)).clock.bank.seconds == 10

            view = await client.leave_game(game_id, 0, tokens[0], resign=True)  # Hearts: leave
            assert view.seats[0] != game_pb2.PLAYER_TYPE_HUMAN
            reissued = await client.update_seat(game_id, 1, admin, reissue_token=True)
            assert reissued.token and reissued.token != tokens[1]
            with pytest.raises(AdminTokenInvalid):
                await client.end_game(game_id, "not-the-admin-token", "no")
            ended = await client.end_game(game_id, admin, "closing time")
            assert ended.status == game_pb2.GAME_STATUS_FINISHED
            rematch = await client.rematch_game(game_id, admin)
            assert (await client.get_game(rematch.game_id, rematch.admin_token)).rematch_of

    asyncio.run(asyncio.wait_for(scenario(), SECONDS))


@pytest.fixture(scope="module")
def keyed_address(redis_url: str) -> Iterator[str]:
    """An engine server that has a service key: listing needs it, and it stands in for admin."""
    keys = (key_spec("backend", SERVICE_KEY, ("create", "list", "admin")),)
    with local_service(redis_url, service_keys=keys) as address:
        yield address


def test_the_service_key_goes_with_every_call(keyed_address: str) -> None:
    """Without the key CreateGame and ListGames are refused (SERVICE_KEY_INVALID); with it a
    backend creates and lists games and manages one without its admin token."""
    labels = suite_label()
    with EngineClient(keyed_address) as keyless:
        with pytest.raises(ServiceKeyInvalid):
            keyless.create_game("hearts", SEATS, labels=labels)
        with pytest.raises(ServiceKeyInvalid):
            keyless.list_games(labels=labels)
    with EngineClient(keyed_address, service_key=SERVICE_KEY) as backend:
        game = backend.create_game("hearts", SEATS, labels=labels)
        assert [g.game_id for g in backend.list_games(labels=labels).games] == [game.game_id]
        assert backend.get_game(game.game_id, None).game_id == game.game_id

    async def aio() -> None:
        async with AsyncEngineClient(keyed_address) as keyless_aio:
            with pytest.raises(ServiceKeyInvalid):
                await keyless_aio.list_games(labels=labels)

    asyncio.run(asyncio.wait_for(aio(), SECONDS))


class FlakyServicer(engine_service_pb2_grpc.EngineServiceServicer):
    """Answers every GetGame and LeaveGame with UNAVAILABLE; counts what arrived."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def _unavailable(self, name: str, context: grpc.ServicerContext) -> None:
        self.calls.append(name)
        status = status_pb2.Status(code=grpc.StatusCode.UNAVAILABLE.value[0], message="down")
        context.abort_with_status(rpc_status.to_status(status))

    def GetGame(self, request, context):  # noqa: N802 (the generated servicer's name)
        self._unavailable("GetGame", context)

    def LeaveGame(self, request, context):  # noqa: N802
        self._unavailable("LeaveGame", context)


def test_reads_are_retried_and_table_changes_are_sent_once() -> None:
    """GetGame is a read, retried after UNAVAILABLE; LeaveGame carries no request id, so a
    second attempt could change the table twice: it is sent once and the error raised."""
    servicer = FlakyServicer()
    with serving(servicer) as address, EngineClient(address, retries=2, backoff=0.001) as client:
        with pytest.raises(Unavailable):
            client.get_game("g1", "admin")
        assert servicer.calls == ["GetGame"] * 3
        servicer.calls.clear()
        with pytest.raises(Unavailable):
            client.leave_game("g1", 0, "token")
        assert servicer.calls == ["LeaveGame"]


def test_the_terminal_tells_table_events_in_words(engine_address: str) -> None:
    """Every table event (T-R2 leave, T-R5 clock expiry, T-R6 hand over, T-R7 new token, T-R8
    early end) as the terminal tells it, read from a real watch; the outcome says why."""
    with EngineClient(engine_address) as client:
        # 0.2 s a decision and no bank: the human seats' Hearts pass runs out of time (T-R5).
        game = client.create_game("hearts", SEATS, clock=Clock(0.2, on_expiry="random"))
        game_id, admin = game.game_id, game.admin_token
        tokens = {entry.seat: entry.token for entry in game.seat_tokens}
        told: list[str] = []
        with client.watch(game_id) as watch:
            for item in itertools.islice(watch, MAX_ITEMS):
                if isinstance(item, api.GameUpdate):
                    told += [terminal.describe_event(item.view, e) for e in item.events]
                if any(line.startswith("seat 0 ran out of time") for line in told):
                    break
        client.leave_game(game_id, 1, tokens[1])
        client.update_seat(game_id, 1, admin, player_type="human")
        client.update_seat(game_id, 0, admin, reissue_token=True)
        ended = client.end_game(game_id, admin, "the café closed")
        with client.watch(game_id, from_version=watch.version) as rest:
            for item in itertools.islice(rest, MAX_ITEMS):
                if isinstance(item, api.GameUpdate):
                    told += [terminal.describe_event(item.view, e) for e in item.events]
    assert "seat 0 ran out of time; a random bot makes the move" in told
    assert any(re.fullmatch(r"seat 1 left; a (random|heuristic) bot plays on", t) for t in told)
    assert "seat 1 was handed to a person" in told
    assert "seat 0 got a new token; the old one no longer works" in told
    assert "the game was ended early: the café closed" in told
    outcome = render_outcome(ended)
    assert "Ended early: the café closed" in outcome and "Final scores" not in outcome


def test_the_terminal_shows_each_human_seats_clock(engine_address: str) -> None:
    """A clocked game's view shows the deadline and bank of every human seat (T-R4)."""
    with EngineClient(engine_address) as client:
        game = client.create_game("hearts", SEATS, clock=Clock(90, bank=600))
        view = client.view(game.game_id, 0, game.seat_tokens[0].token)
        assert all(entry.HasField("deadline") for entry in view.clocks)  # both must pass
        deadline = view.clocks[0].deadline
        now = deadline.seconds + deadline.nanos / 1e9 - 75  # 75 s before the service's deadline
        lines = render_clocks(view, now=now)
        assert lines[0] == "Clock you: 1m 15s left to decide, on the bank now"
        earlier = render_clocks(view, now=now - 700)  # before the bank is reached
        assert earlier[0] == "Clock you: 12m 55s left to decide, the last 10m 00s from the bank"
        assert lines[1].startswith("Clock seat 1: ")
        assert "Clock you:" in render_view(view)
        plain = client.create_game("hearts", SEATS)
        assert not render_clocks(client.view(plain.game_id))


def test_the_terminal_game_takes_a_clock(engine_address: str) -> None:
    """``play(..., clock=...)`` (``make play CLOCK=...``) creates a clocked game and shows it."""
    output = io.StringIO()

    def quit_at_once(prompt: str) -> str:
        raise EOFError

    with EngineClient(engine_address) as client, pytest.raises(EOFError):
        terminal.play(client, input_fn=quit_at_once, output=output, seed=5, clock=120)
    assert "Clock you: 4m 0" in output.getvalue()  # 120 s a decision and a 120 s bank
    assert "the last 2m 00s from the bank" in output.getvalue()
