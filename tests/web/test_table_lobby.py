"""The lobby lists the service's games: a running one is watched as a spectator (no hand is
shown), and a finished one is replayed move by move, forward and back, from its versions."""

from __future__ import annotations

from collections.abc import Callable

from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import engine_service_pb2_grpc, game_pb2, hearts_pb2

from tests.service.rpc_helpers import finished
from tests.web.table import Table, wait_for
from tests.web.test_accessibility import findings

HUMAN = game_pb2.PLAYER_TYPE_HUMAN
RANDOM = game_pb2.PLAYER_TYPE_BOT_RANDOM
HEURISTIC = game_pb2.PLAYER_TYPE_BOT_HEURISTIC


def listed(table: Table, game_id: str, kind: str) -> None:
    """Open the lobby and click ``kind`` (watch or replay) beside ``game_id``."""
    table.open()
    selector = f"#games li[data-game='{game_id}'] button.{kind}"
    wait_for(f"the game in the lobby's list, to {kind}", lambda: table.elements(selector))
    table.screenshot("lobby")
    table.elements(selector)[0].click()


def test_a_finished_game_is_replayed_forward_and_back(
    open_table: Callable[[], Table], stub: engine_service_pb2_grpc.EngineServiceStub
) -> None:
    request = api.CreateGameRequest(game_type="klaberjass", seats=[RANDOM, RANDOM], seed=3)
    request.options.klaberjass.target = 100
    created = stub.CreateGame(request)
    last = finished(stub, created.game_id)
    table = open_table()
    listed(table, created.game_id, "replay")
    wait_for("the replay", lambda: table.browser.find_element("id", "replay").is_displayed())
    step = lambda: int(table.browser.find_element("id", "replay").get_attribute("data-step"))  # noqa: E731
    assert step() == 0 and "replay" in table.browser.find_element("id", "status").text
    first = table.version()
    table.browser.find_element("id", "replay-forward").click()
    assert step() == 1 and table.version() > first
    table.browser.find_element("id", "replay-back").click()
    assert step() == 0 and table.version() == first
    table.browser.find_element("id", "replay-last").click()
    assert table.version() == last.version and table.finished()
    assert table.elements("#events li") and not table.elements("#legal button")
    assert findings(table) == []
    table.screenshot("replay")


def test_a_running_game_is_watched_without_any_hand(
    open_table: Callable[[], Table], stub: engine_service_pb2_grpc.EngineServiceStub
) -> None:
    created = stub.CreateGame(
        api.CreateGameRequest(game_type="hearts", seats=[HUMAN, HEURISTIC, HEURISTIC, HEURISTIC])
    )
    table = open_table()
    listed(table, created.game_id, "watch")
    wait_for("the watched game", table.version)
    assert "watching" in table.browser.find_element("id", "status").text
    assert not table.elements("#hand .card") and not table.elements("#legal button")
    assert not table.browser.find_element("id", "leave").is_displayed()
    table.screenshot("lobby-watch")


def test_a_game_is_created_with_the_options_chosen_in_the_lobby(
    open_table: Callable[[], Table], stub: engine_service_pb2_grpc.EngineServiceStub
) -> None:
    """H-R12 and the variant option: the lobby's fields come from ListGameTypes."""
    table = open_table()
    table.create(
        "hearts",
        ["HUMAN", "BOT_RANDOM", "BOT_RANDOM", "BOT_RANDOM"],
        options={"target": "30", "variant": "classic"},
    )
    game_id = table.game_id()
    options = stub.GetGameView(api.GetGameViewRequest(game_id=game_id)).view.hearts.options
    assert options.target == 30
    assert options.variant == hearts_pb2.HEARTS_VARIANT_CLASSIC
