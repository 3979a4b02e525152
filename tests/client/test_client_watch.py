"""EngineClient.watch, log paging and card choices.

Two halves. The first drives the client against a scripted in-process servicer (no Redis, no
engine), so each failure a stream can meet (UNAVAILABLE, WATCHER_TOO_SLOW, an early end,
VERSION_EXPIRED, a gap) arrives as a real gRPC status at a known point. The second plays
Hearts games against the real service (the ``engine_address`` fixture: gRPC + Redis) and
checks the stream against itself and against the action log.
"""

from __future__ import annotations

import threading
from concurrent import futures

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
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

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
    grpc_server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    engine_service_pb2_grpc.add_EngineServiceServicer_to_server(servicer, grpc_server)
    port = grpc_server.add_insecure_port("127.0.0.1:0")
    grpc_server.start()
    yield servicer, f"127.0.0.1:{port}"
    grpc_server.stop(None)


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
