"""WatchGame end to end: real Redis, real gRPC servers, one of them another process.

The stream must carry, for every version, exactly the events the rules make visible to the
viewer and the viewer's view at that version; resume without gaps or repeats; reach watchers
on another replica; and end, or refuse, with the documented statuses.
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import grpc
import pytest
import redis
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import engine_service_pb2_grpc

from engine_service.api.messages import encode_view
from engine_service.app.play import seat_view
from engine_service.codec.record import decode_log_entry, decode_record
from engine_service.codec.registry import CODECS
from engine_service.core.events import visible
from engine_service.core.record import GameRecord
from engine_service.devtools.local import local_service
from engine_service.registry import REGISTRY
from engine_service.store.keys import log_key
from tests.service.rpc_helpers import (
    HEURISTIC,
    HUMAN,
    RANDOM,
    create,
    failure_of,
    finished,
    first_legal,
    random_legal,
    stored,
    submit,
    token_md,
    tokens_of,
    turn_of,
    view,
)

pytestmark = pytest.mark.service

SEATS = {"hearts": 4, "guandan": 4, "klaberjass": 2}
MOVE_LIMIT = 150
"""Most moves a test game is driven through (a Guandan match runs to thousands)."""


def watch(
    stub: Any,
    game_id: str,
    seat: int | None = None,
    token: str | None = None,
    from_version: int = 0,
    events_only: bool = False,
) -> Any:
    """An open WatchGame call (an iterator of messages that can be cancelled)."""
    request = api.WatchGameRequest(
        game_id=game_id, from_version=from_version, events_only=events_only
    )
    if seat is not None:
        request.seat = seat
    return stub.WatchGame(request, metadata=token_md(token) if token else ())


class Collector:
    """Reads a watch stream on its own thread until it ends, keeping every message."""

    def __init__(self, call: Any) -> None:
        self.call = call
        self.messages: list[api.WatchGameResponse] = []
        self.error: grpc.RpcError | None = None
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            for message in self.call:
                self.messages.append(message)
        except grpc.RpcError as error:
            if error.code() is not grpc.StatusCode.CANCELLED:  # type: ignore[attr-defined]
                self.error = error

    def updates(self) -> list[api.GameUpdate]:
        return [m.update for m in self.messages if m.WhichOneof("message") == "update"]

    def stop(self, timeout: float = 10.0) -> None:
        """Wait for the stream to end by itself (game over), else cancel it."""
        self._thread.join(timeout)
        if self._thread.is_alive():
            self.call.cancel()
            self._thread.join(10.0)
        assert not self._thread.is_alive()


def play_all_seats(stub: Any, game_id: str, tokens: dict[int, str], rng: random.Random) -> int:
    """Random legal moves by the human seats until the game ends or MOVE_LIMIT; moves made."""
    for moves in range(MOVE_LIMIT):
        spectator = view(stub, game_id)
        if not spectator.to_act:
            return moves
        seat = rng.choice(list(spectator.to_act))
        seat_view = view(stub, game_id, seat, tokens[seat])
        submit(stub, game_id, seat, tokens[seat], random_legal(seat_view, rng), seat_view.version)
    return MOVE_LIMIT


def stored_game(client: redis.Redis, game_id: str) -> tuple[GameRecord, list[Any]]:
    """The stored record and the whole decoded log (the seed is in the record)."""
    record = decode_record(stored(client, game_id)[b"s"])
    raw = client.lrange(log_key(game_id), 0, -1)
    return record, [decode_log_entry(record.game_type, entry) for entry in raw]  # type: ignore[union-attr]


def expected_updates(
    record: GameRecord, log: list[Any], game_id: str, viewer: int | None, first: int
) -> Iterator[tuple[int, list[bytes], bytes]]:
    """Per version after ``first``: the events the rules make visible to ``viewer`` and its
    view, both as the bytes the stream must carry."""
    rules = REGISTRY[record.game_type].make_rules(record.config)
    codec = CODECS[record.game_type]
    state = rules.new_game(record.seed)
    for index, logged in enumerate(log):
        after = rules.apply(state, logged.seat, logged.action)
        version = index + 2
        if version > first:
            events = visible(rules.events(state, logged.seat, logged.action, after), viewer)
            shown = seat_view(rules, game_id, replace(record, state=after), version, viewer)
            yield (
                version,
                [codec.encode_event(e.fact).SerializeToString() for e in events],
                encode_view(shown).SerializeToString(),
            )
        state = after


@pytest.mark.parametrize("game_type", sorted(SEATS))
def test_every_viewer_receives_exactly_its_events_and_views(stub, redis_client, game_type):
    """Each seat and a spectator get, per version, the rules' events visible to them (private
    parts only to their seat) and their view at that version, byte for byte."""
    rng = random.Random(game_type)
    for seed in range(3):
        created = create(stub, [HUMAN] * SEATS[game_type], seed=seed, game_type=game_type)
        tokens = tokens_of(created)
        start = created.view.version
        viewers: list[int | None] = [*range(SEATS[game_type]), None]
        collectors = {
            v: Collector(watch(stub, created.game_id, v, tokens.get(v) if v is not None else None))
            for v in viewers
        }
        for collector in collectors.values():  # every stream open before the first move
            wait_for_version(collector, start)
        moves = play_all_seats(stub, created.game_id, tokens, rng)
        final = view(stub, created.game_id).version
        for collector in collectors.values():
            wait_for_version(collector, final)
            collector.stop(timeout=10.0 if moves < MOVE_LIMIT else 0.0)
        record, log = stored_game(redis_client, created.game_id)
        for viewer, collector in collectors.items():
            assert collector.error is None, collector.error
            updates = collector.updates()
            assert updates[0].version == start and not updates[0].events
            got = [
                (u.version, [e.SerializeToString() for e in u.events], u.view.SerializeToString())
                for u in updates[1:]
            ]
            assert got == list(expected_updates(record, log, created.game_id, viewer, start))
            if moves < MOVE_LIMIT:
                assert collector.messages[-1].WhichOneof("message") == "ended"
                assert collector.messages[-1].ended.version == final


def wait_for_version(collector: Collector, version: int, timeout: float = 10.0) -> None:
    """Wait (bounded) until the collector has received ``version``."""
    deadline = threading.Event()
    for _ in range(int(timeout / 0.02)):
        updates = collector.updates()
        if updates and updates[-1].version >= version:
            return
        deadline.wait(0.02)
    raise AssertionError(f"version {version} never arrived")


def test_a_move_on_one_process_reaches_a_watcher_on_another(stub, second_server):
    created = create(stub, [HUMAN, HEURISTIC, HEURISTIC, HEURISTIC], seed=31)
    token = tokens_of(created)[0]
    with grpc.insecure_channel(second_server) as channel:
        other = engine_service_pb2_grpc.EngineServiceStub(channel)
        collector = Collector(watch(other, created.game_id, 0, token))
        current = view(stub, created.game_id, 0, token)
        for _ in range(6):
            current = submit(stub, created.game_id, 0, token, first_legal(current), current.version)
        wait_for_version(collector, current.version)
        collector.stop(timeout=0.1)
    versions = [u.version for u in collector.updates()]
    assert versions == list(range(versions[0], current.version + 1))
    assert collector.updates()[-1].view == current


def test_resuming_after_a_drop_gives_the_uninterrupted_sequence(stub, second_server):
    """Watch on one process, act on the other; drop the stream mid-game and resume from the
    last version: the messages equal an uninterrupted watcher's, byte for byte."""
    created = create(stub, [HUMAN, RANDOM, RANDOM, RANDOM], seed=5)
    token = tokens_of(created)[0]
    rng = random.Random(5)
    with grpc.insecure_channel(second_server) as channel:
        other = engine_service_pb2_grpc.EngineServiceStub(channel)
        whole = Collector(watch(other, created.game_id, 0, token, from_version=1))
        first_part = Collector(watch(other, created.game_id, 0, token, from_version=1))
        current = view(stub, created.game_id, 0, token)
        for _ in range(10):
            current = submit(
                stub, created.game_id, 0, token, random_legal(current, rng), current.version
            )
        wait_for_version(first_part, current.version)
        first_part.stop(timeout=0.1)  # the drop
        last = first_part.updates()[-1].version
        for _ in range(10):
            current = submit(
                stub, created.game_id, 0, token, random_legal(current, rng), current.version
            )
        second_part = Collector(watch(other, created.game_id, 0, token, from_version=last))
        wait_for_version(second_part, current.version)
        wait_for_version(whole, current.version)
        second_part.stop(timeout=0.1)
        whole.stop(timeout=0.1)
    joined = [u.SerializeToString() for u in first_part.updates() + second_part.updates()]
    assert joined == [u.SerializeToString() for u in whole.updates()]
    versions = [u.version for u in whole.updates()]
    assert versions == list(range(2, current.version + 1))


def test_events_only_watch_sends_no_views(stub):
    created = create(stub, [HUMAN, RANDOM, RANDOM, RANDOM], seed=8)
    token = tokens_of(created)[0]
    collector = Collector(watch(stub, created.game_id, 0, token, events_only=True))
    current = view(stub, created.game_id, 0, token)
    current = submit(stub, created.game_id, 0, token, first_legal(current), current.version)
    wait_for_version(collector, current.version)
    collector.stop(timeout=0.1)
    updates = collector.updates()
    assert all(not u.HasField("view") for u in updates)
    assert any(u.events for u in updates)


def test_a_finished_game_ends_the_stream_with_its_outcome(stub):
    created = create(stub, [RANDOM, RANDOM, RANDOM, RANDOM], seed=3)
    final = finished(stub, created.game_id)
    messages = list(watch(stub, created.game_id, from_version=final.version))
    assert [m.WhichOneof("message") for m in messages] == ["ended"]
    assert messages[0].ended.outcome == final.outcome
    assert messages[0].ended.version == final.version


def test_an_idle_stream_gets_heartbeats(redis_url):
    with (
        local_service(redis_url, watch_idle_seconds=0.05) as address,
        grpc.insecure_channel(address) as channel,
    ):
        stub = engine_service_pb2_grpc.EngineServiceStub(channel)
        created = create(stub, [HUMAN, RANDOM, RANDOM, RANDOM], seed=2)
        token = tokens_of(created)[0]
        call = watch(stub, created.game_id, 0, token)
        first, second, third = next(call), next(call), next(call)
        call.cancel()
    assert first.update.version == created.view.version
    assert second.heartbeat.version == third.heartbeat.version == created.view.version


def test_a_stream_with_nothing_to_send_starts_with_a_heartbeat_at_once(stub):
    """A client can tell a stream that started from one that never did (a burst of new calls
    may be shed before they start): the first message comes at once, long before the idle
    heartbeat (15 s here) would."""
    created = create(stub, [HUMAN, RANDOM, RANDOM, RANDOM], seed=2)
    token = tokens_of(created)[0]
    version = created.view.version
    request = api.WatchGameRequest(game_id=created.game_id, seat=0, from_version=version)
    call = stub.WatchGame(request, metadata=token_md(token), timeout=5.0)
    try:
        first = next(call)
    finally:
        call.cancel()
    assert first.heartbeat.version == version


def test_a_version_no_longer_kept_asks_for_a_reload(redis_url):
    with (
        local_service(redis_url, event_retention=5) as address,
        grpc.insecure_channel(address) as channel,
    ):
        stub = engine_service_pb2_grpc.EngineServiceStub(channel)
        created = create(stub, [HUMAN, RANDOM, RANDOM, RANDOM], seed=6)
        token = tokens_of(created)[0]
        current = view(stub, created.game_id, 0, token)
        while current.version < 400 and current.to_act:
            current = submit(stub, created.game_id, 0, token, first_legal(current), current.version)
        failure = failure_of(lambda: next(watch(stub, created.game_id, 0, token, from_version=1)))
        recent = next(watch(stub, created.game_id, 0, token, from_version=current.version - 1))
    assert (failure.code, failure.reason) == (grpc.StatusCode.OUT_OF_RANGE, "VERSION_EXPIRED")
    assert recent.update.version == current.version


def test_a_watcher_far_behind_gets_what_it_missed_merged_and_is_never_cut_off(
    redis_url, redis_client
):
    """With room for 2 versions per watcher, every move that bots answer at once (four
    versions in one write) puts the watcher behind: those versions come as one update that
    carries all their events and the last view, and the stream goes on to the end."""
    with (
        local_service(redis_url, watcher_queue_limit=2) as address,
        grpc.insecure_channel(address) as channel,
    ):
        stub = engine_service_pb2_grpc.EngineServiceStub(channel)
        created = create(stub, [HUMAN, RANDOM, RANDOM, RANDOM], seed=9)
        token = tokens_of(created)[0]
        collector = Collector(watch(stub, created.game_id, 0, token))
        wait_for_version(collector, created.view.version)
        current = view(stub, created.game_id, 0, token)
        for _ in range(40):
            current = turn_of(stub, created.game_id, 0, token, current)
            if not current.to_act:
                break
            current = submit(stub, created.game_id, 0, token, first_legal(current), current.version)
        wait_for_version(collector, current.version)
        collector.stop(timeout=0.1)
    assert collector.error is None, collector.error
    record, log = stored_game(redis_client, created.game_id)
    expected = {
        version: (events, shown)
        for version, events, shown in expected_updates(
            record, log, created.game_id, 0, created.view.version
        )
    }
    updates = collector.updates()
    merged = [u for u in updates if u.first_version]
    assert merged, "no update was merged"
    last = updates[0].version
    for update in updates[1:]:
        first = update.first_version or update.version
        assert first == last + 1 and update.version >= first
        events = [e.SerializeToString() for e in update.events]
        assert events == [e for v in range(first, update.version + 1) for e in expected[v][0]]
        assert update.view.SerializeToString() == expected[update.version][1]
        last = update.version
    assert last == current.version


def test_a_watcher_that_stops_reading_is_cut_off(redis_url, caplog):
    """A client that takes no message blocks the stream's writes on HTTP/2 flow control;
    once a write has waited the stall time, the server stops following the game for it and
    logs the cut as one line (no traceback); the client, when it reads again, gets the
    messages that were on their way, then RESOURCE_EXHAUSTED WATCHER_TOO_SLOW. Another such
    client that leaves instead leaves nothing more in the log."""
    caplog.set_level(logging.INFO)

    def cut() -> list[logging.LogRecord]:
        return [r for r in caplog.records if getattr(r, "result", None) == "WATCHER_TOO_SLOW"]

    small_windows = [("grpc.http2.bdp_probe", 0)]
    with (
        local_service(redis_url, watcher_stall_seconds=1.0) as address,
        grpc.insecure_channel(address, options=small_windows) as channel,
    ):
        stub = engine_service_pb2_grpc.EngineServiceStub(channel)
        created = create(stub, [HUMAN, RANDOM, RANDOM, RANDOM], seed=9)
        token = tokens_of(created)[0]
        call, leaving = (watch(stub, created.game_id, 0, token) for _ in range(2))
        next(call), next(leaving)  # then read nothing while the game moves on
        current = view(stub, created.game_id, 0, token)
        for _ in range(100):
            current = turn_of(stub, created.game_id, 0, token, current)
            if not current.to_act:
                break
            current = submit(stub, created.game_id, 0, token, first_legal(current), current.version)
        pause = threading.Event()
        for _ in range(200):  # bounded: the stall time is 1 s
            if len(cut()) == 2:
                break
            pause.wait(0.05)
        logged = cut()
        leaving.cancel()
        taken: list[api.WatchGameResponse] = []
        failure = failure_of(lambda: taken.extend(call))
    assert [r.rpc for r in logged] == ["WatchGame"] * 2  # type: ignore[attr-defined]
    assert (failure.code, failure.reason) == (
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        "WATCHER_TOO_SLOW",
    )
    assert taken and taken[-1].update.version < current.version  # it was cut, not finished
    assert len(cut()) == 2
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


def test_stopping_the_server_ends_streams_with_unavailable(redis_url):
    with local_service(redis_url) as address:
        channel = grpc.insecure_channel(address)
        stub = engine_service_pb2_grpc.EngineServiceStub(channel)
        created = create(stub, [HUMAN, RANDOM, RANDOM, RANDOM], seed=10)
        call = watch(stub, created.game_id)
        next(call)
    failure = failure_of(lambda: list(call))
    channel.close()
    assert failure.code is grpc.StatusCode.UNAVAILABLE


def test_bad_watch_requests_are_refused(stub):
    created = create(stub, [HUMAN, RANDOM, RANDOM, RANDOM], seed=11)
    game_id, token = created.game_id, tokens_of(created)[0]
    ahead = failure_of(lambda: next(watch(stub, game_id, 0, token, from_version=10_000)))
    assert (ahead.code, ahead.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_FIELD")
    missing = failure_of(lambda: next(watch(stub, "0" * 32)))
    assert missing.code is grpc.StatusCode.NOT_FOUND
    malformed = failure_of(lambda: next(watch(stub, "not-an-id")))
    assert malformed.code is grpc.StatusCode.INVALID_ARGUMENT
    no_token = failure_of(lambda: next(watch(stub, game_id, 0)))
    assert (no_token.code, no_token.reason) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING")
    other_seat = failure_of(lambda: next(watch(stub, game_id, 1, token)))
    assert other_seat.code is grpc.StatusCode.PERMISSION_DENIED


def test_action_log_pages_cover_the_log_once_with_times(stub):
    created = create(stub, [RANDOM, RANDOM, RANDOM, RANDOM], seed=12)
    finished(stub, created.game_id)  # the timer loop plays the bots on: read a settled log
    whole = stub.GetActionLog(api.GetActionLogRequest(game_id=created.game_id))
    assert not whole.next_page_token
    paged, token, pages = [], "", 0
    while pages < 1000:  # the page size may change from page to page (AIP-158)
        size = (37, 5, 60)[pages % 3]
        page = stub.GetActionLog(
            api.GetActionLogRequest(game_id=created.game_id, page_size=size, page_token=token)
        )
        assert len(page.entries) == size or not page.next_page_token
        paged += page.entries
        pages += 1
        token = page.next_page_token
        if not token:
            break
    assert [e.SerializeToString() for e in paged] == [e.SerializeToString() for e in whole.entries]
    assert all(e.applied_at.seconds > 0 for e in paged)
    tail = stub.GetActionLog(api.GetActionLogRequest(game_id=created.game_id, from_index=10))
    assert list(tail.entries) == list(whole.entries[10:])
    forged = failure_of(
        lambda: stub.GetActionLog(
            api.GetActionLogRequest(game_id=created.game_id, page_size=5, page_token=token or "x")
        )
    )
    assert (forged.code, forged.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_FIELD")
