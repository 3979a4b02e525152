"""The Node.js client (clients/node) plays a whole Hearts game against the real service.

play-hearts.js follows the game through the WatchGame stream, so besides the result these check that
it saw every version once, and that its watch resumes by itself when a proxy in front of the service
cuts the connection under it. The client's own node --test suite (clients/node/test: watch, log
paging, decoded error details, retries, service-key quotas, the TypeScript types) runs against the
service too (and one with service keys), and the package from ``npm pack`` is installed into a clean
folder and used there. Behind a front that loses replies, CreateGame is sent again with its request
id (one game) and a table change is sent once. Skipped only where ``node`` is not installed; ``make
test`` installs Node.js and runs ``npm ci`` for clients/node first, so CI always runs it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import engine_service_pb2_grpc, game_pb2

from engine_service.devtools.local import local_service
from engine_service.store.keys import game_key
from tests.client.scripted_server import lossy_front
from tests.client.test_client_watch import CuttingProxy
from tests.service.keyed import new_key

pytestmark = pytest.mark.service

NODE_CLIENT = Path(__file__).resolve().parents[2] / "clients" / "node"
NODE = shutil.which("node")
ALL_SCOPES = "create,list,admin"
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


@pytest.fixture(scope="module")
def merging_address(redis_url: str):
    """An engine server that buffers two versions per watcher, so watchers fall behind."""
    with local_service(redis_url, watcher_queue_limit=2) as address:
        yield address


@pytest.fixture(scope="module")
def shedding_address(redis_url: str):
    """An engine server that lets only 20 new calls wait to be taken, so a burst is shed."""
    with local_service(redis_url, pending_calls_limit=20) as address:
        yield address


@pytest.fixture(scope="module")
def keyed_env(redis_url: str) -> Iterator[dict[str, str]]:
    """A server with service keys of fresh names (so fresh quotas), for test/quota.test.js."""
    keys = {
        "QUICK_KEY_A": new_key(ALL_SCOPES, "rate=1,burst=1"),
        "QUICK_KEY_B": new_key(ALL_SCOPES, "rate=1,burst=1"),
        "SLOW_KEY": new_key(ALL_SCOPES, "rate=0.01,burst=1"),
        "GAMES_KEY": new_key(ALL_SCOPES, "games=1"),
    }
    lines = tuple(key.line for key in keys.values())
    with local_service(redis_url, service_keys=lines) as address:
        yield {"KEYED_ADDRESS": address, **{name: key.secret for name, key in keys.items()}}


def test_node_client_tests_pass_against_the_service(
    node: str,
    engine_address: str,
    short_memory_address: str,
    merging_address: str,
    shedding_address: str,
    keyed_env: dict[str, str],
) -> None:
    env = {
        "ENGINE_ADDRESS": engine_address,
        "SHORT_MEMORY_ADDRESS": short_memory_address,
        "MERGING_ADDRESS": merging_address,
        "SHEDDING_ADDRESS": shedding_address,
        **keyed_env,
    }
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
    assert "# pass 22" in finished.stdout


INSTALLED_SCRIPT = r"""
const {
  createClient, chooseCards, describeEvent, errorDetails, PROTOS_DIR,
} = require('cardengine-client');
(async () => {
  const client = createClient(process.argv[2], { language: 'de', timeoutMs: 20000 });
  try {
    const seats = ['PLAYER_TYPE_HUMAN', ...Array(3).fill('PLAYER_TYPE_BOT_RANDOM')];
    const game = await client.createGame('hearts', seats, 3);
    const token = game.seat_tokens[0].token;
    const view = await client.view(game.game_id, 0, token);
    const [choice] = view.legal_choices;
    const error = await client
      .submit(game.game_id, 0, token, chooseCards(choice, choice.cards.slice(0, 1)), view.version)
      .then(() => null, (failure) => failure);
    const details = errorDetails(error);
    console.log(JSON.stringify({
      game_id: game.game_id,
      code: error && error.code,
      reason: details.reason,
      ruleId: details.ruleId,
      locale: details.localizedMessage && details.localizedMessage.locale,
      protos: PROTOS_DIR,
      told: describeEvent({ hearts: { pass_made: { seat: 2 } } }, { language: 'de' }),
    }));
  } finally {
    client.close();
  }
})().catch((error) => { console.error(error); process.exit(1); });
"""


def test_node_client_package_installs_into_a_clean_folder(
    node: str, engine_address: str, tmp_path: Path
) -> None:
    """``npm pack`` ships the protos, the types and the events' catalogue; the tarball works
    where no repository is."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed: the packed Node.js client not tested")
    env = {**os.environ, "npm_config_update_notifier": "false", "npm_config_fund": "false"}
    env.pop("CARDENGINE_PROTOS", None)

    def run(*args: str, cwd: Path, timeout: float) -> str:
        finished = subprocess.run(
            args, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env, check=False
        )
        assert finished.returncode == 0, finished.stdout + finished.stderr
        return finished.stdout

    packs = tmp_path / "pack"
    packs.mkdir()
    run(npm, "pack", "--pack-destination", str(packs), cwd=NODE_CLIENT, timeout=180)
    assert not (NODE_CLIENT / "protos").exists()  # postpack removed the copy again
    [tarball] = packs.glob("cardengine-client-*.tgz")
    app = tmp_path / "app"
    app.mkdir()
    (app / "package.json").write_text('{"name": "app", "private": true}\n')
    run(npm, "install", "--prefer-offline", "--no-audit", str(tarball), cwd=app, timeout=300)
    installed = app / "node_modules" / "cardengine-client"
    assert (installed / "protos" / "cardengine" / "v1" / "engine_service.proto").is_file()
    assert (installed / "protos" / "google" / "rpc" / "error_details.proto").is_file()
    assert (installed / "types" / "index.d.ts").is_file()
    assert (installed / "types" / "generated" / "cardengine" / "v1" / "GameView.d.ts").is_file()
    assert not (app / "node_modules" / "google-proto-files").exists()  # a build-time source only
    (app / "refusal.js").write_text(INSTALLED_SCRIPT)
    result = json.loads(run(node, "refusal.js", engine_address, cwd=app, timeout=120))
    assert result["code"] == 9  # FAILED_PRECONDITION
    assert result["reason"] == "WRONG_PASS_SIZE"
    assert result["ruleId"] == "H-R2"
    assert result["locale"] == "de"
    assert Path(result["protos"]) == installed / "protos"
    assert (installed / "text" / "events.json").is_file()  # the events' catalogue
    assert result["told"] == "Platz 2 hat die Karten zum Weitergeben gewählt"
    assert not (NODE_CLIENT / "text").exists()


LOSSY_SCRIPT = r"""
const { createClient } = require('./lib/client');
(async () => {
  const client = createClient(process.argv[2], { backoffMs: 5, timeoutMs: 20000 });
  try {
    const seats = ['PLAYER_TYPE_HUMAN', ...Array(3).fill('PLAYER_TYPE_BOT_RANDOM')];
    const game = await client.createGame('hearts', seats, 7);
    const ended = await client.endGame(game.game_id, game.admin_token, 'closing')
      .then(() => 0, (error) => error.code);
    console.log(JSON.stringify({ game_id: game.game_id, end_code: ended }));
  } finally {
    client.close();
  }
})().catch((error) => { console.error(error); process.exit(1); });
"""


def test_node_client_sends_create_game_again_with_its_request_id_and_table_changes_once(
    node: str, engine_address: str, redis_client: Any, tmp_path: Path
) -> None:
    """Through a front that loses the first reply of each call after the engine acted."""
    before = set(redis_client.scan_iter(match="ce:*:game", count=1000))
    script = tmp_path / "lossy.js"
    script.write_text(LOSSY_SCRIPT.replace("./lib/client", str(NODE_CLIENT / "lib" / "client")))
    with lossy_front(engine_address, ["CreateGame", "EndGame"]) as (address, front):
        finished = subprocess.run(
            [node, str(script), address],
            cwd=NODE_CLIENT,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert finished.returncode == 0, finished.stderr
    result = json.loads(finished.stdout)
    first, second = front.requests["CreateGame"]
    assert first == second and first.request_id
    assert [reply.game_id for reply in front.replies["CreateGame"]] == [result["game_id"]] * 2
    created = set(redis_client.scan_iter(match="ce:*:game", count=1000)) - before
    assert created == {game_key(result["game_id"]).encode()}
    assert result["end_code"] == 14  # UNAVAILABLE, not sent again
    assert len(front.requests["EndGame"]) == 1
