"""The Node.js client (clients/node) plays a whole Hearts game against the real service.

play-hearts.js follows the game through the WatchGame stream, so besides the result these
check that it saw every version once, and that its watch resumes by itself when a proxy in
front of the service cuts the connection under it. Skipped only where ``node`` is not
installed; ``make test`` installs Node.js and runs ``npm ci`` for clients/node first, so CI
always runs it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from pathlib import Path

import pytest
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import engine_service_pb2_grpc, game_pb2

from engine_service.devtools.local import local_service
from tests.client.test_client_watch import CuttingProxy

pytestmark = pytest.mark.service

NODE_CLIENT = Path(__file__).resolve().parents[2] / "clients" / "node"
NODE = shutil.which("node")
CUTS = 4  # connections cut under the Node watch, 0.3 s apart (a game takes a few seconds)


@pytest.fixture(scope="module")
def node() -> str:
    if NODE is None:
        pytest.skip("node is not installed (make test installs Node.js): Node.js client not tested")
    if not (NODE_CLIENT / "node_modules" / "@grpc" / "grpc-js").is_dir():
        pytest.fail("clients/node has no node_modules: run `make node-deps` (npm ci) first")
    return NODE


def play(node: str, address: str, *args: str) -> dict:
    finished = subprocess.run(
        [node, "play-hearts.js", "--address", address, "--json", *args],
        cwd=NODE_CLIENT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert finished.returncode == 0, finished.stderr
    return json.loads(finished.stdout)


def test_node_client_plays_hearts_to_the_end(
    node: str, engine_address: str, stub: engine_service_pb2_grpc.EngineServiceStub
) -> None:
    result = play(node, engine_address, "--seed", "2024")
    spectator = stub.GetGameView(api.GetGameViewRequest(game_id=result["game_id"])).view
    assert spectator.status == game_pb2.GAME_STATUS_FINISHED
    assert spectator.version == result["version"]
    assert list(spectator.outcome.winners) == result["winners"]
    assert list(spectator.outcome.scores) == result["scores"]
    assert max(result["scores"]) >= 100  # the default target ends the game (H-R12)
    log = stub.GetActionLog(api.GetActionLogRequest(game_id=result["game_id"]))
    assert sum(entry.seat == 0 for entry in log.entries) == result["moves"]
    bots = [game_pb2.PLAYER_TYPE_BOT_HEURISTIC] * 3
    assert list(log.seats) == [game_pb2.PLAYER_TYPE_HUMAN, *bots]
    # One update per version from the one it joined at, none missed or repeated (the client
    # checks the order itself and fails on a gap).
    assert result["updates"] == result["version"] - result["first_version"] + 1
    assert result["first_version"] == 4  # after the three bots' passes inside CreateGame
    assert result["reopened"] == 0


def test_node_watch_resumes_by_itself_when_the_connection_is_cut(
    node: str, engine_address: str, stub: engine_service_pb2_grpc.EngineServiceStub
) -> None:
    proxy = CuttingProxy(engine_address)
    done = threading.Event()

    def keep_cutting() -> None:
        # Node needs a moment to start; the cuts count only once the watch is connected.
        while not proxy.sockets:
            if done.wait(0.05):
                return
        for _ in range(CUTS):
            if done.wait(0.3):
                return
            proxy.cut()

    cutter = threading.Thread(target=keep_cutting, daemon=True)
    cutter.start()
    try:
        result = play(node, engine_address, "--watch-address", proxy.address, "--seed", "77")
    finally:
        done.set()
        cutter.join(10)
        proxy.close()
    assert 1 <= result["reopened"] <= CUTS * 2, result  # each cut: one reopen, maybe a retry
    assert result["updates"] == result["version"] - result["first_version"] + 1
    spectator = stub.GetGameView(api.GetGameViewRequest(game_id=result["game_id"])).view
    assert spectator.status == game_pb2.GAME_STATUS_FINISHED
    assert spectator.version == result["version"]
    assert list(spectator.outcome.scores) == result["scores"]


def test_node_client_reports_failures(node: str) -> None:
    finished = subprocess.run(
        [node, "play-hearts.js", "--address", "127.0.0.1:1", "--json"],
        cwd=NODE_CLIENT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert finished.returncode == 1
    assert "play-hearts failed (gRPC code 14)" in finished.stderr  # UNAVAILABLE


@pytest.fixture(scope="module")
def short_memory_address(redis_url: str):
    """An engine server that keeps the events of only a few versions per game."""
    with local_service(redis_url, event_retention=20) as address:
        yield address


def test_node_client_tests_pass_against_the_service(
    node: str, engine_address: str, short_memory_address: str
) -> None:
    env = {"ENGINE_ADDRESS": engine_address, "SHORT_MEMORY_ADDRESS": short_memory_address}
    finished = subprocess.run(
        [node, "--test", "test/"],
        cwd=NODE_CLIENT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **env},
        check=False,
    )
    assert finished.returncode == 0, finished.stdout + finished.stderr
    assert "# fail 0" in finished.stdout
    assert "# pass 4" in finished.stdout
