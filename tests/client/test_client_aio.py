"""cardengine_client.aio.AsyncEngineClient against the real service (gRPC + Redis).

Each test runs its own event loop with ``asyncio.run`` (no pytest plugin needed) and opens
its own ``grpc.aio`` channel inside that loop.
"""

from __future__ import annotations

import asyncio

import grpc
import pytest
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import game_pb2
from cardengine_client import (
    IllegalAction,
    NotFound,
    Unavailable,
    choose_cards,
    format_cards,
    hearts_play,
)
from cardengine_client.aio import AsyncEngineClient

from engine_service.devtools.local import free_port, local_service

pytestmark = pytest.mark.service

SECONDS = 120  # a whole game through the stream takes well under this
MAX_ITEMS = 5000


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, SECONDS))


def first_move(view: game_pb2.GameView) -> game_pb2.Action:
    if view.legal_actions:
        return view.legal_actions[0]
    choice = view.legal_choices[0]
    return choose_cards(choice, choice.cards[: choice.count])


def test_create_view_submit_and_a_typed_refusal(engine_address):
    async def scenario():
        async with AsyncEngineClient(engine_address) as client:
            seats = ["human", "heuristic", "heuristic", "heuristic"]
            game = await client.create_game("hearts", seats, seed=7)
            token = game.seat_tokens[0].token
            view = await client.view(game.game_id, seat=0, token=token)
            assert format_cards(view.hearts.hand) == "3C 5C 7C 5D 6D TD JD 5S 7S 9S JS AS 4H"
            passing = choose_cards(view.legal_choices[0], ["JS", "AS", "4H"])
            after = await client.submit(game.game_id, 0, token, passing, view.version)
            assert after.version > view.version
            with pytest.raises(IllegalAction) as caught:
                await client.submit(game.game_id, 0, token, hearts_play("TD"), after.version)
            assert (caught.value.reason, caught.value.rule_id) == ("MUST_FOLLOW_SUIT", "H-R4")
            with pytest.raises(NotFound):
                await client.view("0" * 32)
            log = await client.action_log(game.game_id, 0, token)
            entries = [e async for e in client.action_log_entries(game.game_id, 0, token)]
            assert len(entries) == len(log.entries) > 0

    run(scenario())


def test_a_suggested_move_is_submitted_as_it_is_and_not_your_turn_is_typed(engine_address):
    async def scenario():
        async with AsyncEngineClient(engine_address) as client:
            game = await client.create_game("guandan", ["human"] * 4, seed=8)
            tokens = {entry.seat: entry.token for entry in game.seat_tokens}
            (leader,) = game.view.to_act
            hint = await client.suggest_action(game.game_id, leader, tokens[leader], playouts=6)
            assert hint.value_kind == api.SUGGESTION_VALUE_KIND_LEVELS
            assert hint.playouts == 6 and hint.action in [c.action for c in hint.candidates]
            after = await client.submit(
                game.game_id, leader, tokens[leader], hint.action, hint.version
            )
            assert after.version == hint.version + 1
            with pytest.raises(IllegalAction) as caught:
                await client.suggest_action(game.game_id, leader, tokens[leader], playouts=6)
            assert (caught.value.reason, caught.value.rule_id) == ("NOT_YOUR_TURN", "G-R2")

    run(scenario())


def test_watch_follows_a_bot_game_to_its_end(engine_address):
    async def scenario():
        async with AsyncEngineClient(engine_address) as client:
            game = await client.create_game("hearts", ["random"] * 4, seed=11)
            items = [item async for item in client.watch(game.game_id, from_version=1)]
            final = await client.view(game.game_id)
            return final, items

    final, items = run(scenario())
    *updates, last = items
    assert final.status == game_pb2.GAME_STATUS_FINISHED
    assert isinstance(last, api.GameEnded) and last.version == final.version
    assert [u.version for u in updates] == list(range(2, final.version + 1))


def test_watch_drives_a_human_seat_to_the_end(engine_address):
    async def scenario():
        async with AsyncEngineClient(engine_address, language="fr") as client:
            seats = ["human", "heuristic", "heuristic", "heuristic"]
            game = await client.create_game("hearts", seats, seed=43)
            token = game.seat_tokens[0].token
            items, caught_up = [], 0
            async with client.watch(game.game_id, 0, token) as watch:
                async for item in watch:
                    items.append(item)
                    assert len(items) < MAX_ITEMS
                    if not isinstance(item, api.GameUpdate) or 0 not in item.view.to_act:
                        continue
                    if item.version < caught_up:
                        continue  # the stream has not yet reached our own last reply
                    view = item.view
                    move = first_move(view)
                    caught_up = (
                        await client.submit(game.game_id, 0, token, move, view.version)
                    ).version
            assert watch.ended and watch.reopened == 0
            return items

    *updates, last = run(scenario())
    numbers = [u.version for u in updates]
    assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))
    assert isinstance(last, api.GameEnded) and last.version == numbers[-1]
    assert last.outcome.summary  # in French, but any text shows the ending came through


def test_closing_a_watch_ends_the_iteration(engine_address):
    async def scenario():
        async with AsyncEngineClient(engine_address) as client:
            seats = ["human", "heuristic", "heuristic", "heuristic"]
            game = await client.create_game("hearts", seats, seed=5)
            watch = client.watch(game.game_id, 0, game.seat_tokens[0].token)
            first = await anext(watch)
            waiting = asyncio.ensure_future(anext(watch))  # no new version will come
            await asyncio.sleep(0.2)
            watch.close()
            with pytest.raises(StopAsyncIteration):
                await waiting
            return first

    assert isinstance(run(scenario()), api.GameUpdate)


def test_unavailable_is_retried_then_raised():
    async def scenario():
        address = f"127.0.0.1:{free_port()}"  # nothing listens there
        async with AsyncEngineClient(address, retries=2, backoff=0.01, timeout=5) as client:
            with pytest.raises(Unavailable) as caught:
                await client.view("g1")
            return caught.value.code

    assert run(scenario()) is grpc.StatusCode.UNAVAILABLE


BURST = 300  # streams opened at once: far past the server's pending-calls limit below


def test_a_burst_of_watches_all_start_even_when_the_server_sheds_some(redis_url):
    """gRPC sheds new calls (CANCELLED, before any handler runs) while more than the
    pending-calls limit wait to be taken. Every watch of the burst still hears the next move:
    a stream shed before its first message is opened again."""

    async def scenario():
        async with AsyncEngineClient(address, retries=8) as client:
            seats = ["human", "heuristic", "heuristic", "heuristic"]
            game = await client.create_game("hearts", seats, seed=7)
            token = game.seat_tokens[0].token
            view = await client.view(game.game_id, 0, token)
            version = view.version
            watches = [client.watch(game.game_id, from_version=version) for _ in range(BURST)]
            heard = [asyncio.ensure_future(anext(watch)) for watch in watches]
            await asyncio.sleep(0.5)  # the burst has reached the server
            await client.submit(game.game_id, 0, token, first_move(view), version)
            updates = await asyncio.gather(*heard)
            for watch in watches:
                watch.close()
            return version, updates, [watch.reopened for watch in watches]

    with local_service(redis_url, pending_calls_limit=20) as address:
        version, updates, reopened = run(scenario())
    assert [update.version for update in updates] == [version + 1] * BURST
    assert sum(reopened) > 0, "the server shed no stream: the burst proves nothing"
