"""EngineClient.watch, log paging and card choices.

Two halves. The first drives the client against a scripted in-process servicer (no Redis, no
engine), so each failure a stream can meet (UNAVAILABLE, WATCHER_TOO_SLOW, an early end,
VERSION_EXPIRED, a gap) arrives as a real gRPC status at a known point. The second plays
Hearts games against the real service (the ``engine_address`` fixture: gRPC + Redis) and
checks the stream against itself and against the action log.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading

import grpc
import pytest
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import engine_service_pb2_grpc, game_pb2
from cardengine_client import (
    Cancelled,
    EngineClient,
    Internal,
    InvalidArgument,
    Unavailable,
    VersionExpired,
    WatcherTooSlow,
    choose_cards,
    format_cards,
    hearts_pass,
    parse_cards,
)
from cardengine_client.aio import AsyncEngineClient
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status
from opentelemetry.sdk.trace import TracerProvider

from engine_service.devtools.local import local_service
from tests.client.scripted_server import serving

MAX_ITEMS = 5000  # far more than a Hearts game has versions: a runaway loop fails, not hangs
JOIN_SECONDS = 120


def status_of(code: grpc.StatusCode, reason: str) -> status_pb2.Status:
    status = status_pb2.Status(code=code.value[0], message=f"{reason.lower()} happened")
    info = error_details_pb2.ErrorInfo(reason=reason, domain="cardengine")
    status.details.add().Pack(info)
    return status


def update(version: int) -> api.WatchGameResponse:
    view = game_pb2.GameView(game_id="g1", version=version)
    return api.WatchGameResponse(update=api.GameUpdate(version=version, seat=1, view=view))


def heartbeat(version: int) -> api.WatchGameResponse:
    return api.WatchGameResponse(heartbeat=api.Heartbeat(version=version))


def ended(version: int) -> api.WatchGameResponse:
    outcome = game_pb2.Outcome(winners=[2], scores=[1, 2, 3, 4], summary="seat 2 wins")
    return api.WatchGameResponse(ended=api.GameEnded(version=version, outcome=outcome))


UNAVAILABLE = status_of(grpc.StatusCode.UNAVAILABLE, "SHUTTING_DOWN")
TOO_SLOW = status_of(grpc.StatusCode.RESOURCE_EXHAUSTED, "WATCHER_TOO_SLOW")
EXPIRED = status_of(grpc.StatusCode.OUT_OF_RANGE, "VERSION_EXPIRED")


class ScriptedServicer(engine_service_pb2_grpc.EngineServiceServicer):
    """Each WatchGame call plays the next script: messages to send, then maybe a status."""

    def __init__(self):
        self.scripts: list[list[api.WatchGameResponse | status_pb2.Status]] = []
        self.requests: list[api.WatchGameRequest] = []
        self.tokens: list[str | None] = []
        self.log = [game_pb2.LogEntry(index=i, seat=i % 4) for i in range(7)]
        self.log_requests: list[api.GetActionLogRequest] = []
        self.hold = threading.Event()

    def WatchGame(self, request, context):  # noqa: N802 (the generated servicer's name)
        self.requests.append(api.WatchGameRequest.FromString(request.SerializeToString()))
        self.tokens.append(dict(context.invocation_metadata()).get("x-seat-token"))
        script = self.scripts.pop(0) if self.scripts else []
        for item in script:
            if isinstance(item, status_pb2.Status):
                context.abort_with_status(rpc_status.to_status(item))
            yield item
        if self.hold.is_set():  # a stream that stays open until the client leaves
            while context.is_active():
                self.hold.wait(0.01)

    def GetGameView(self, request, context):  # noqa: N802
        self.view_metadata = dict(context.invocation_metadata())
        view = game_pb2.GameView(game_id=request.game_id, version=20, viewer_seat=request.seat)
        return api.GetGameViewResponse(view=view)

    def GetActionLog(self, request, context):  # noqa: N802
        self.log_requests.append(request)
        start = int(request.page_token) if request.page_token else request.from_index
        end = start + request.page_size if request.page_size else len(self.log)
        page = api.GetActionLogResponse(game_type="hearts", entries=self.log[start:end])
        if end < len(self.log):
            page.next_page_token = str(end)
        return page


@pytest.fixture(scope="module")
def server():
    servicer = ScriptedServicer()
    with serving(servicer) as address:
        yield servicer, address


@pytest.fixture
def servicer(server):
    servicer, _ = server
    servicer.scripts.clear()
    servicer.requests.clear()
    servicer.tokens.clear()
    servicer.log_requests.clear()
    servicer.hold.clear()
    return servicer


@pytest.fixture
def client(server):
    _, address = server
    with EngineClient(address, retries=3, backoff=0.001) as engine:
        yield engine


def versions(items) -> list[tuple[str, int]]:
    return [(type(item).__name__, item.version) for item in items]


def test_watch_resumes_after_unavailable_and_too_slow_without_gap_or_repeat(client, servicer):
    servicer.scripts[:] = [
        [update(5), update(6), UNAVAILABLE],
        [heartbeat(6), update(7), TOO_SLOW],
        [update(7), update(8), ended(8)],  # 7 again: a repeat is dropped, not shown twice
    ]
    watch = client.watch("g1", seat=2, token="secret")
    items = list(watch)
    assert versions(items) == [
        ("GameUpdate", 5),
        ("GameUpdate", 6),
        ("GameUpdate", 7),
        ("GameUpdate", 8),
        ("GameEnded", 8),
    ]
    assert items[-1].outcome.winners == [2]
    assert [r.from_version for r in servicer.requests] == [0, 6, 7]
    assert {r.seat for r in servicer.requests} == {2}
    assert servicer.tokens == ["secret"] * 3
    assert watch.ended
    assert watch.version == 8


def test_a_stream_that_ends_before_game_ended_is_watched_again(client, servicer):
    servicer.scripts[:] = [[update(3)], [update(4), ended(4)]]
    assert versions(client.watch("g1", from_version=2)) == [
        ("GameUpdate", 3),
        ("GameUpdate", 4),
        ("GameEnded", 4),
    ]
    assert [r.from_version for r in servicer.requests] == [2, 3]
    assert servicer.tokens == [None, None]


def test_watch_gives_up_after_the_retries_in_a_row(client, servicer):
    servicer.scripts[:] = [[update(1), UNAVAILABLE]] + [[UNAVAILABLE]] * 10
    watch = client.watch("g1")
    assert next(watch).version == 1
    with pytest.raises(Unavailable) as caught:
        next(watch)
    assert caught.value.reason == "SHUTTING_DOWN"
    assert len(servicer.requests) == 4  # the cut call, then three retries, all failing
    assert watch.version == 1  # where to watch from on another channel


def test_progress_resets_the_retry_count(client, servicer):
    servicer.scripts[:] = [[update(v), UNAVAILABLE] for v in range(1, 9)] + [[ended(8)]]
    assert versions(client.watch("g1"))[-1] == ("GameEnded", 8)
    assert len(servicer.requests) == 9  # eight cuts, more than the three retries, all survived


SHED = status_pb2.Status(code=grpc.StatusCode.CANCELLED.value[0], message="CANCELLED")


def test_a_stream_shed_before_its_first_message_is_opened_again(client, servicer):
    """A server taking a burst of new calls may end some with CANCELLED before they start."""
    servicer.scripts[:] = [[SHED], [SHED], [heartbeat(3), update(4), ended(4)]]
    items = list(client.watch("g1", from_version=3))
    assert versions(items) == [("GameUpdate", 4), ("GameEnded", 4)]
    assert [r.from_version for r in servicer.requests] == [3, 3, 3]


def test_a_cancelled_stream_that_had_started_is_raised(client, servicer):
    servicer.scripts[:] = [[update(4), SHED], [update(5)]]
    watch = client.watch("g1", from_version=3)
    assert next(watch).version == 4
    with pytest.raises(Cancelled):
        next(watch)
    assert len(servicer.requests) == 1


def test_a_stream_silent_after_opening_is_opened_again(client, servicer):
    """The service sends a first message at once; a stream silent for the first-message
    timeout never started, and is opened again from the same version."""
    servicer.hold.set()
    servicer.scripts[:] = [[], [heartbeat(3), update(4), ended(4)]]
    items = list(client.watch("g1", from_version=3, first_message_timeout=0.2))
    assert versions(items) == [("GameUpdate", 4), ("GameEnded", 4)]
    assert [r.from_version for r in servicer.requests] == [3, 3]


def test_an_asyncio_watch_opens_a_silent_or_shed_stream_again(server, servicer):
    _, address = server
    servicer.hold.set()
    servicer.scripts[:] = [[], [SHED], [update(4), ended(4)]]

    async def watched() -> list[tuple[str, int]]:
        async with AsyncEngineClient(address, retries=3, backoff=0.001) as engine:
            watch = engine.watch("g1", from_version=3, first_message_timeout=0.2)
            return versions([item async for item in watch])

    assert asyncio.run(asyncio.wait_for(watched(), JOIN_SECONDS)) == [
        ("GameUpdate", 4),
        ("GameEnded", 4),
    ]
    assert [r.from_version for r in servicer.requests] == [3, 3, 3]


def test_resource_exhausted_for_another_reason_is_raised(client, servicer):
    servicer.scripts[:] = [[status_of(grpc.StatusCode.RESOURCE_EXHAUSTED, "QUOTA")]]
    with pytest.raises(Unavailable) as caught:
        list(client.watch("g1"))
    assert not isinstance(caught.value, WatcherTooSlow)
    assert len(servicer.requests) == 1


def test_version_expired_is_a_typed_error_telling_to_reload(client, servicer):
    servicer.scripts[:] = [[EXPIRED]]
    with pytest.raises(VersionExpired) as caught:
        list(client.watch("g1", from_version=3))
    assert isinstance(caught.value, InvalidArgument)  # still the OUT_OF_RANGE family
    assert caught.value.code is grpc.StatusCode.OUT_OF_RANGE
    assert caught.value.reason == "VERSION_EXPIRED"
    assert len(servicer.requests) == 1


def test_reload_on_expiry_yields_the_view_and_goes_on_from_its_version(client, servicer):
    servicer.scripts[:] = [[EXPIRED], [update(21), ended(21)]]
    items = list(client.watch("g1", seat=1, token="t", from_version=3, reload_on_expiry=True))
    assert versions(items) == [("GameUpdate", 20), ("GameUpdate", 21), ("GameEnded", 21)]
    reloaded = items[0]
    assert reloaded.view.version == 20
    assert reloaded.view.viewer_seat == 1
    assert not reloaded.events
    assert not reloaded.HasField("seat")
    assert [r.from_version for r in servicer.requests] == [3, 20]


def test_a_gap_in_the_stream_is_an_error_not_silence(client, servicer):
    servicer.scripts[:] = [[update(4), update(6)]]
    watch = client.watch("g1", from_version=3)
    assert next(watch).version == 4
    with pytest.raises(Internal, match="from version 4 to 6"):
        next(watch)


def test_a_merged_update_continues_the_stream_and_a_gap_before_it_is_an_error(client, servicer):
    merged = update(9)
    merged.update.first_version = 5
    misplaced = update(13)
    misplaced.update.first_version = 12
    servicer.scripts[:] = [[update(4), merged, update(10), misplaced]]
    watch = client.watch("g1", from_version=3)
    assert [next(watch).version for _ in range(3)] == [4, 9, 10]
    with pytest.raises(Internal, match="from version 10 to 12"):
        next(watch)


def test_close_from_another_thread_ends_the_iteration(client, servicer):
    servicer.hold.set()
    servicer.scripts[:] = [[update(1)]]
    with client.watch("g1") as watch:
        assert next(watch).version == 1
        timer = threading.Timer(0.2, watch.close)
        timer.start()
        assert list(watch) == []
        timer.join()
    assert len(servicer.requests) == 1


def test_closing_the_channel_under_a_watch_raises_cancelled(server, servicer):
    _, address = server
    servicer.hold.set()
    servicer.scripts[:] = [[update(1), update(2)]]
    engine = EngineClient(address, retries=3, backoff=0.001)
    watch = engine.watch("g1")
    assert [next(watch).version, next(watch).version] == [1, 2]
    threading.Timer(0.2, engine.close).start()
    with pytest.raises(Cancelled):
        next(watch)
    assert watch.version == 2


def test_action_log_pages_and_entries(client, servicer):
    page = client.action_log("g1", page_size=3, from_index=1)
    assert [entry.index for entry in page.entries] == [1, 2, 3]
    assert page.next_page_token == "4"
    pages = list(client.action_log_pages("g1", 2, "t", page_size=3))
    assert [len(p.entries) for p in pages] == [3, 3, 1]
    assert [r.page_token for r in servicer.log_requests[1:]] == ["", "3", "6"]
    assert {r.seat for r in servicer.log_requests[1:]} == {2}
    entries = list(client.action_log_entries("g1", page_size=2, from_index=2))
    assert [entry.index for entry in entries] == [2, 3, 4, 5, 6]


def pass_choice() -> game_pb2.CardChoice:
    cards = parse_cards(["2C", "9D", "QS", "AH", "KH"])
    return game_pb2.CardChoice(action=hearts_pass([]), cards=cards, count=3)


def test_choose_cards_fills_the_choice_action():
    action = choose_cards(pass_choice(), ["QS", "AH", "KH"])
    assert action == hearts_pass(["QS", "AH", "KH"])
    assert not pass_choice().action.hearts.pass_cards.cards  # the choice itself is untouched


@pytest.mark.parametrize(
    ("cards", "message"),
    [
        (["QS", "AH"], "exactly 3 cards, not 2"),
        (["QS", "AH", "3C"], "3C is not among"),
        (["QS", "QS", "AH"], "QS is not among"),
        (["QS", "AH", "zz"], "not a card"),
    ],
)
def test_choose_cards_checks_the_choice_when_strict(cards, message):
    with pytest.raises(ValueError, match=message):
        choose_cards(pass_choice(), cards)


def test_choose_cards_leaves_judgement_to_the_service_when_not_strict():
    action = choose_cards(pass_choice(), ["3C"], strict=False)
    assert format_cards(action.hearts.pass_cards.cards) == "3C"


def test_choose_cards_refuses_an_action_without_a_card_list():
    choice = game_pb2.CardChoice(action=game_pb2.Action(), count=1)
    with pytest.raises(ValueError, match="no list of cards"):
        choose_cards(choice, ["2C"], strict=False)


# -- against the real service ------------------------------------------------------------------

HEARTS_VS_BOTS = ["human", "heuristic", "heuristic", "heuristic"]


def first_move(view: game_pb2.GameView) -> game_pb2.Action:
    """The first legal action, or the first cards of the first choice (a Hearts pass)."""
    if view.legal_actions:
        return view.legal_actions[0]
    choice = view.legal_choices[0]
    return choose_cards(choice, choice.cards[: choice.count])


def new_game(client: EngineClient, seed: int) -> tuple[str, str]:
    created = client.create_game("hearts", HEARTS_VS_BOTS, seed=seed)
    return created.game_id, created.seat_tokens[0].token


def drive(client: EngineClient, game_id: str, token: str, *, moves: int | None = None, ready=None):
    """Play seat 0 from its own watch: each time the stream reaches its turn, the first move.

    ``ready`` is called before the first move (to let other watchers join first); with
    ``moves`` the game is left after that many of seat 0's moves. Returns every item seen.
    """
    items = []
    caught_up, made = 0, 0
    with client.watch(game_id, 0, token) as watch:
        for item in watch:
            items.append(item)
            assert len(items) < MAX_ITEMS, "the game did not end"
            if not isinstance(item, api.GameUpdate):
                continue
            view = item.view
            if 0 not in view.to_act or view.status == game_pb2.GAME_STATUS_FINISHED:
                continue
            if item.version < caught_up:
                continue  # the stream has not yet reached our own last reply
            if moves is not None and made >= moves:
                break
            if ready is not None and made == 0:
                ready()
            caught_up = client.submit(game_id, 0, token, first_move(view), view.version).version
            made += 1
    return items


def assert_consecutive(items) -> None:
    *updates, last = items
    assert updates, "no update before the end"
    assert all(isinstance(item, api.GameUpdate) for item in updates)
    numbers = [item.version for item in updates]
    assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))
    assert isinstance(last, api.GameEnded)
    assert last.version == numbers[-1]


class Watcher(threading.Thread):
    """Watches a game as seat 0 in the background, collecting what the client yields."""

    def __init__(self, address: str, game_id: str, token: str, *, cut_after: int | None = None):
        super().__init__(daemon=True)
        self.address, self.game_id, self.token = address, game_id, token
        self.cut_after = cut_after
        self.items: list = []
        self.first = threading.Event()
        self.error: BaseException | None = None
        self.cancelled_at: int | None = None
        self.watch = None

    def run(self) -> None:
        try:
            self._watch()
        except BaseException as error:
            self.error = error
        finally:
            self.first.set()

    def _collect(self, watch) -> None:
        self.watch = watch
        for item in watch:
            self.items.append(item)
            self.first.set()
            assert len(self.items) < MAX_ITEMS
            if self.cut_after is not None and len(self.items) == self.cut_after:
                return

    def _watch(self) -> None:
        engine = EngineClient(self.address)
        watch = engine.watch(self.game_id, 0, self.token)
        self._collect(watch)
        if self.cut_after is None:
            engine.close()
            return
        # Break the channel under the live stream; the watch reports it and keeps its version.
        threading.Timer(0.05, engine.close).start()
        try:
            self.items.append(next(watch))  # whatever was already buffered, if anything
            while True:
                self.items.append(next(watch))
        except Cancelled:
            self.cancelled_at = watch.version
        with EngineClient(self.address) as fresh:
            self.cut_after = None
            self._collect(fresh.watch(self.game_id, 0, self.token, from_version=watch.version))

    def finish(self) -> list:
        self.join(JOIN_SECONDS)
        if self.is_alive() and self.watch is not None:
            self.watch.close()
        assert not self.is_alive(), "the watcher did not see the game end"
        if self.error is not None:
            raise self.error
        return self.items


def serialized(items) -> list[bytes]:
    return [type(item).__name__.encode() + item.SerializeToString() for item in items]


@pytest.mark.service
def test_a_hearts_game_watched_from_version_0_to_the_end(engine_address):
    with EngineClient(engine_address) as client:
        game_id, token = new_game(client, seed=41)
        items = drive(client, game_id, token)
        assert_consecutive(items)
        first, ended_ = items[0], items[-1]
        assert not first.HasField("seat") and not first.events  # the current view, no events
        later = items[1:-1]
        assert all(item.HasField("seat") and item.HasField("applied_at") for item in later)
        assert all(item.view.version == item.version for item in items[:-1])
        final = client.view(game_id, 0, token)
        assert final.status == game_pb2.GAME_STATUS_FINISHED
        assert ended_.version == final.version
        assert ended_.outcome == final.outcome
        assert items[-2].view == final
        log = client.action_log(game_id)
        assert len(log.entries) == final.version - 1  # entry i took version i+1 to i+2


@pytest.mark.service
def test_a_watch_broken_mid_game_resumes_from_its_version_to_the_same_messages(engine_address):
    with EngineClient(engine_address) as client:
        game_id, token = new_game(client, seed=42)
        whole = Watcher(engine_address, game_id, token)
        broken = Watcher(engine_address, game_id, token, cut_after=60)
        for watcher in (whole, broken):
            watcher.start()
            assert watcher.first.wait(JOIN_SECONDS)
        drive(client, game_id, token)
        uninterrupted, resumed = whole.finish(), broken.finish()
    assert broken.cancelled_at is not None and broken.cancelled_at >= 60
    assert_consecutive(resumed)
    assert serialized(resumed) == serialized(uninterrupted)


class CuttingProxy:
    """A TCP relay in front of the service whose open connections can be cut at will.

    A cut looks to the client exactly like a network failure mid-stream (the socket closes
    under a live call), while new connections go through: what a resuming watch must survive.
    """

    def __init__(self, target: str):
        host, port = target.rsplit(":", 1)
        self.target = (host, int(port))
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.address = f"127.0.0.1:{self.listener.getsockname()[1]}"
        self.sockets: list[socket.socket] = []
        self.lock = threading.Lock()
        self.cuts = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                downstream, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            with self.lock:
                self.sockets += [downstream, upstream]
            for source, sink in ((downstream, upstream), (upstream, downstream)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for each in (source, sink):
                with contextlib.suppress(OSError):
                    each.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        with self.lock:
            doomed, self.sockets = self.sockets, []
            self.cuts += 1
        for each in doomed:
            with contextlib.suppress(OSError):
                each.shutdown(socket.SHUT_RDWR)
            each.close()

    def close(self) -> None:
        self.listener.close()
        self.cut()


@pytest.mark.service
def test_the_client_resumes_by_itself_after_dropped_connections(engine_address):
    proxy = CuttingProxy(engine_address)
    seen: list = []
    try:
        with (
            EngineClient(engine_address) as client,
            EngineClient(proxy.address, retries=8, backoff=0.05) as through_proxy,
        ):
            game_id, token = new_game(client, seed=43)
            watch = through_proxy.watch(game_id, 0, token)
            seen.append(next(watch))
            done = threading.Event()
            driver_items: list = []

            def play_it() -> None:
                try:
                    driver_items.extend(drive(client, game_id, token))
                finally:
                    done.set()

            threading.Thread(target=play_it, daemon=True).start()
            for item in watch:
                seen.append(item)
                assert len(seen) < MAX_ITEMS
                if len(seen) % 150 == 0:
                    proxy.cut()
            assert done.wait(JOIN_SECONDS)
            assert proxy.cuts >= 3
            # The last cut may land after the stream's final message was already in the
            # client's buffer, with nothing left to resume; every earlier one needs a reopen.
            assert watch.reopened >= proxy.cuts - 1
    finally:
        proxy.close()
    assert_consecutive(seen)
    # The driver watched directly from the same first version: the same messages, one for one.
    assert serialized(seen) == serialized(driver_items)


@pytest.fixture(scope="module")
def short_memory_address(redis_url):
    """A second engine server that keeps the events of only a few versions per game."""
    with local_service(redis_url, event_retention=20) as address:
        yield address


@pytest.mark.service
def test_version_expired_is_raised_or_reloaded_against_the_service(short_memory_address):
    with EngineClient(short_memory_address) as client:
        game_id, token = new_game(client, seed=44)
        # Redis trims the event stream by whole nodes (about 100 entries): go well past that.
        drive(client, game_id, token, moves=100)
        current = client.view(game_id, 0, token)
        assert current.version > 300
        assert current.status == game_pb2.GAME_STATUS_IN_PROGRESS
        with pytest.raises(VersionExpired) as caught:
            next(client.watch(game_id, 0, token, from_version=2))
        assert caught.value.code is grpc.StatusCode.OUT_OF_RANGE
        with client.watch(game_id, 0, token, from_version=2, reload_on_expiry=True) as watch:
            reloaded = next(watch)
        assert reloaded.version == current.version
        assert reloaded.view == current
        assert not reloaded.events


@pytest.mark.service
def test_action_log_paging_returns_every_entry_once_in_order(engine_address):
    with EngineClient(engine_address) as client:
        game_id, token = new_game(client, seed=45)
        drive(client, game_id, token)
        whole = client.action_log(game_id).entries
        assert len(whole) > 100
        assert [entry.index for entry in whole] == list(range(len(whole)))
        pages = list(client.action_log_pages(game_id, 0, token, page_size=37))
        assert len(pages) == -(-len(whole) // 37)
        assert all(page.entries for page in pages)
        assert not pages[-1].next_page_token
        paged = [entry for page in pages for entry in page.entries]
        assert [e.SerializeToString() for e in paged] == [e.SerializeToString() for e in whole]
        tail = list(client.action_log_entries(game_id, page_size=10, from_index=50))
        assert tail == list(whole[50:])
        assert all(entry.HasField("applied_at") for entry in whole)


def test_a_caller_with_an_active_span_sends_its_trace_context(client, servicer):
    """The service's spans join the caller's trace: the client sends W3C ``traceparent``."""
    tracer = TracerProvider().get_tracer("caller")  # not installed globally
    client.view("g1")
    assert "traceparent" not in servicer.view_metadata  # no active span, nothing sent
    with tracer.start_as_current_span("caller") as span:
        client.view("g1")
        trace_id = span.get_span_context().trace_id
    assert servicer.view_metadata["traceparent"].split("-")[1] == f"{trace_id:032x}"
