"""Prometheus metrics scraped over HTTP from a real server after real calls."""

from __future__ import annotations

import time
import urllib.error
import urllib.request
from collections.abc import Iterator

import grpc
import pytest
from cardengine.v1 import engine_service_pb2_grpc
from prometheus_client.parser import text_string_to_metric_families

from engine_service.api.metrics import ActiveGames, exporter
from engine_service.devtools.local import free_port, local_service
from engine_service.settings import DEFAULT_METRICS_PORT, parse_settings
from tests.service.rpc_helpers import (
    HEURISTIC,
    HUMAN,
    create,
    failure_of,
    first_legal,
    submit,
    tokens_of,
    view,
)

pytestmark = pytest.mark.service
SETTLE_SECONDS = 30.0
"""A bound on the wait for the server to count the calls it has answered."""


@pytest.fixture(scope="module")
def metrics_service(redis_url: str) -> Iterator[tuple[str, int]]:
    port = free_port()
    with local_service(redis_url, metrics_port=port) as address:
        yield address, port


def scrape(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as reply:
        text = reply.read().decode()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(samples: dict, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_counters_move_with_calls(metrics_service: tuple[str, int]) -> None:
    address, port = metrics_service
    before = scrape(port)
    with grpc.insecure_channel(address) as channel:
        stub = engine_service_pb2_grpc.EngineServiceStub(channel)
        created = create(stub, [HUMAN, HEURISTIC, HEURISTIC, HEURISTIC], seed=11)
        token = tokens_of(created)[0]
        game_id = created.game_id
        first = view(stub, game_id, 0, token)
        passing = first_legal(first)
        after_pass = submit(stub, game_id, 0, token, passing, first.version)
        stale = failure_of(lambda: submit(stub, game_id, 0, token, passing, first.version))
        refused = failure_of(lambda: submit(stub, game_id, 0, token, passing, after_pass.version))
    assert stale.reason == "VERSION_MISMATCH"
    assert refused.code == grpc.StatusCode.FAILED_PRECONDITION
    rule_labels = {"method": "SubmitAction", "code": "FAILED_PRECONDITION"}
    after = scrape(port)

    def delta(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    # The server counts a call after its reply has left, so a scrape right after the last
    # reply may come first: wait (bounded) until the last call is counted, then compare.
    give_up = time.monotonic() + SETTLE_SECONDS
    while (
        delta("cardengine_rpc_duration_seconds_count", method="SubmitAction") < 3
        or delta("cardengine_rejections_total", **rule_labels, reason=refused.reason) < 1
    ) and time.monotonic() < give_up:
        time.sleep(0.05)
        after = scrape(port)

    assert delta("cardengine_actions_total", game_type="hearts", actor="human") == 1
    # the bots' passes inside CreateGame, then their plays inside SubmitAction
    bots = (created.view.version - 1) + (after_pass.version - first.version - 1)
    assert bots >= 3
    assert delta("cardengine_actions_total", game_type="hearts", actor="bot") == bots
    assert (
        delta(
            "cardengine_rejections_total",
            method="SubmitAction",
            code="ABORTED",
            reason="VERSION_MISMATCH",
        )
        == 1
    )
    assert delta("cardengine_rejections_total", **rule_labels, reason=refused.reason) == 1
    assert delta("cardengine_rpc_duration_seconds_count", method="SubmitAction") == 3
    assert delta("cardengine_rpc_duration_seconds_count", method="CreateGame") == 1
    assert value(after, "cardengine_active_games") >= 1


def test_a_taken_metrics_port_fails_with_advice(metrics_service: tuple[str, int]) -> None:
    _, port = metrics_service
    with pytest.raises(OSError, match="its own --metrics-port"), exporter("127.0.0.1:0", port):
        pass


def test_metrics_port_setting() -> None:
    assert parse_settings([], {}).metrics_port == DEFAULT_METRICS_PORT
    assert parse_settings([], {"ENGINE_METRICS_PORT": "0"}).metrics_port == 0
    assert parse_settings(["--metrics-port", "9500"], {}).metrics_port == 9500


def test_active_games_window_and_finished_games() -> None:
    now = [100.0]
    active = ActiveGames(60.0, clock=lambda: now[0])
    active.touch("a", over=False)
    active.touch("b", over=False)
    assert active.count() == 2
    active.touch("b", over=True)  # a finished game stops counting at once
    now[0] += 30
    active.touch("c", over=False)
    assert active.count() == 2
    now[0] += 31  # "a" was last moved 61 s ago
    assert active.count() == 1


def test_calls_on_the_web_port_are_counted_like_those_on_the_grpc_port(redis_url: str) -> None:
    port, web_port = free_port(), free_port()
    labels = {"method": "GetGameView", "code": "NOT_FOUND", "reason": "GAME_NOT_FOUND"}
    with local_service(redis_url, metrics_port=port, web_port=web_port):
        before = scrape(port)
        request = urllib.request.Request(
            f"http://127.0.0.1:{web_port}/cardengine.v1.EngineService/GetGameView",
            data=b'{"gameId": "00000000000000000000000000000000"}',
            headers={"content-type": "application/json"},
        )
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(request, timeout=10)
        assert caught.value.code == 404
        give_up = time.monotonic() + SETTLE_SECONDS
        after = scrape(port)
        while (
            value(after, "cardengine_rejections_total", **labels)
            == value(before, "cardengine_rejections_total", **labels)
            and time.monotonic() < give_up
        ):
            time.sleep(0.05)
            after = scrape(port)
    counted = "cardengine_rpc_duration_seconds_count"
    assert (
        value(after, counted, method="GetGameView") - value(before, counted, method="GetGameView")
        == 1
    )
    rejected = "cardengine_rejections_total"
    assert value(after, rejected, **labels) - value(before, rejected, **labels) == 1
