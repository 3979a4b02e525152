"""The Node.js client (clients/node) plays a whole Hearts game against the real service.

Skipped only where ``node`` is not installed; ``make test`` installs Node.js and runs
``npm ci`` for clients/node first, so CI always runs it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import engine_service_pb2_grpc, game_pb2

pytestmark = pytest.mark.service

NODE_CLIENT = Path(__file__).resolve().parents[2] / "clients" / "node"
NODE = shutil.which("node")


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
