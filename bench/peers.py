"""Part 7: our engine beside the peers a user would pick instead, playing the same Hearts loop.

The peers are a small Hearts of our own writing in JavaScript (``bench/peers/hearts.js``: four
seats, a seeded deal of 13 cards each, no passing, follow suit, the trick's winner leads, a
heart 1 point and the queen of spades 13, games to 100) hosted three ways, each in its own
Node process: boardgame.io's ``Server`` with its default in-memory storage, the same with its
``FlatFile`` storage in a temporary folder, and a Colyseus room (``@colyseus/core`` with
``@colyseus/ws-transport``, ``@colyseus/schema`` state whose hands are visible to their own
seat only, one patch broadcast per move). Their load generator (``bench/peers/load.js``)
drives each with the peer's own client over WebSockets.

The engine is driven the same way from here (``grpc.aio``): four-human-seat Hearts games made
by CreateGame with a seed, each seat following its game on a WatchGame stream (seat token,
with views), the seat to act sending the lowest legal card (or, in a passing round, its three
lowest cards: the engine's Hearts always passes, and has no option to turn it off) by
SubmitAction.

Every side keeps ``G`` games going at once (1, 16, 64), each with exactly one move
outstanding: the move counts as delivered once all four seats have received the state it
made, and then the game's next move is sent. Per side and ``G``: moves per second, p50 and p99
of send to delivered-to-all-four, and the server process's CPU per move (``/proc``), for the
engine with Redis's own beside it. The sides take turns, two rounds each, forward then
backward. The engine is measured three times, each transport a class of
:data:`ENGINE_DRIVERS` with a column of its own: SubmitAction with a WatchGame stream per seat;
a Play session per seat carrying both its moves (brief: answered with the version they
reached, the seat's view coming as its update) and its game's updates; and the same session
on a WebSocket of the engine's web port.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Protocol

import grpc
import redis
import websockets
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import engine_service_pb2_grpc, game_pb2

from bench.driver import Metadata, filled_choice, token_metadata
from bench.servers import ROOT, cpu_seconds, engine_servers
from engine_service.devtools.local import free_port, redis_server

PEERS_DIR = ROOT / "bench" / "peers"
PEERS: dict[str, str] = {
    "bgio-memory": "boardgame.io in memory",
    "bgio-flatfile": "boardgame.io FlatFile",
    "colyseus": "Colyseus",
}
"""The peer servers (``node bench/peers/server.js KIND``) and their columns' titles."""
REFERENCE_PEER = "bgio-memory"
"""The peer the engine's ratios are taken to."""
ROUNDS = 2
STARTUP_SECONDS = 30.0
OPEN_SECONDS = 120.0
"""Longest a generator may take to open its first games."""
DELIVERY_TIMEOUT = 5.0
"""A move not delivered to all four seats this long after it was sent counts as lost."""
_TICKS = os.sysconf("SC_CLK_TCK")


def process_cpu_seconds(pid: int) -> float:
    """utime + stime of one process so far (``/proc/<pid>/stat``), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS


@dataclass
class SideResult:
    """What one side measured at one number of games, pooled over its rounds."""

    games: int
    seconds: float = 0.0
    latencies_ms: list[float] = field(default_factory=list)
    server_cpu_seconds: float = 0.0
    redis_cpu_seconds: float = 0.0
    client_cpu_seconds: float = 0.0
    """The load generator's own CPU (for the engine: this whole process)."""
    games_created: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    first_game: str = ""

    @property
    def moves(self) -> int:
        return len(self.latencies_ms)

    def percentile(self, fraction: float) -> float:
        """Nearest-rank percentile of the latencies, in milliseconds (nan without moves)."""
        ordered = sorted(self.latencies_ms)
        if not ordered:
            return float("nan")
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]

    def per_move_us(self, seconds: float) -> float:
        return seconds / self.moves * 1e6 if self.moves else float("nan")

    def add(self, other: SideResult) -> None:
        self.seconds += other.seconds
        self.latencies_ms += other.latencies_ms
        self.server_cpu_seconds += other.server_cpu_seconds
        self.redis_cpu_seconds += other.redis_cpu_seconds
        self.client_cpu_seconds += other.client_cpu_seconds
        self.games_created += other.games_created
        for key, count in other.errors.items():
            self.errors[key] = self.errors.get(key, 0) + count
        self.first_game = self.first_game or other.first_game

    def summary(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "moves": self.moves,
            "seconds": round(self.seconds, 3),
            "moves_per_second": round(self.moves / self.seconds, 1) if self.seconds else 0.0,
            "p50_ms": round(self.percentile(0.5), 3),
            "p99_ms": round(self.percentile(0.99), 3),
            "cpu_us_per_move": round(self.per_move_us(self.server_cpu_seconds), 1),
            "redis_cpu_us_per_move": round(self.per_move_us(self.redis_cpu_seconds), 1),
            "client_cpu_us_per_move": round(self.per_move_us(self.client_cpu_seconds), 1),
            "games_created": self.games_created,
            "errors": self.errors,
        }


# --- the engine -------------------------------------------------------------------------------


@dataclass
class EngineGame:
    """One engine game under way: each seat's latest view, and who waits for which version."""

    game_id: str
    metadata: dict[int, Metadata]
    views: dict[int, game_pb2.GameView] = field(default_factory=dict)
    versions: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    target: int = 0
    waiter: asyncio.Future[float] | None = None
    calls: list[Any] = field(default_factory=list)
    tasks: list[asyncio.Task[None]] = field(default_factory=list)

    def seen(self, seat: int, version: int, view: game_pb2.GameView | None) -> None:
        if version <= self.versions[seat]:
            return
        self.versions[seat] = version
        if view is not None:
            self.views[seat] = view
        waiter = self.waiter
        if waiter is not None and not waiter.done() and min(self.versions) >= self.target:
            waiter.set_result(time.perf_counter())

    def all_seen(self, version: int) -> asyncio.Future[float]:
        """Done (with the time) once all four seats have had ``version``."""
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.target = version
        if min(self.versions) >= version:
            future.set_result(time.perf_counter())
        else:
            self.waiter = future
        return future

    @property
    def version(self) -> int:
        return min(self.versions)

    @property
    def over(self) -> bool:
        return self.views[0].status != game_pb2.GAME_STATUS_IN_PROGRESS


def lowest_action(view: game_pb2.GameView) -> game_pb2.Action:
    """The lowest legal card of a seat's view (suit clubs < diamonds < spades < hearts, then
    rank), or while passing the choice filled with its lowest cards."""

    def order(card: Any) -> tuple[int, int]:
        return int(card.suit), int(card.rank)

    if view.legal_actions:
        return min(view.legal_actions, key=lambda a: order(a.hearts.play_card.card))
    choice = view.legal_choices[0]
    return filled_choice(choice, sorted(choice.cards, key=order)[: choice.count])


def told(game: EngineGame, seat: int, message: api.WatchGameResponse) -> None:
    """A WatchGame message a seat received, as the game's bookkeeping of who has what."""
    if message.WhichOneof("message") == "update":
        game.seen(seat, message.update.version, message.update.view)
    elif message.WhichOneof("message") == "ended":
        game.seen(seat, message.ended.version, None)


def answered(game: EngineGame, seat: int, answer: api.PlayResponse) -> None:
    """A Play session's message to a seat, as the game's bookkeeping (an error stops the run)."""
    kind = answer.WhichOneof("response")
    if kind == "error":
        raise RuntimeError(f"Play answered {answer.ref} with {answer.error.message}")
    if kind == "watch":
        told(game, seat, answer.watch)


class EngineDriver(Protocol):
    """One way of playing the engine's Hearts: opens games, moves in them one move at a time,
    closes them; :func:`play_slots` does the rest. A game is whatever the driver keeps for it.
    """

    def __init__(self, address: str, web_port: int) -> None: ...

    async def start(self, games: int) -> None:
        """Connect, for ``games`` games at once."""

    async def open(self, slot: int, seed: int) -> Any:
        """A new four-human-seat Hearts game with ``seed``, every seat following it."""

    def over(self, game: Any) -> bool:
        """Whether the game has finished."""

    async def move(self, slot: int, game: Any) -> float:
        """The seat to act's lowest legal move, sent; milliseconds until all four seats have
        the state it made."""

    async def close(self, game: Any) -> None: ...

    async def stop(self) -> None: ...


class WatchGameDriver:
    """The engine through its public API: CreateGame, a WatchGame stream per seat (seat token,
    views), SubmitAction for the seat to act (an :class:`EngineDriver`).
    """

    def __init__(self, address: str, web_port: int) -> None:
        self.address = address
        self.web_port = web_port
        self.channels: list[grpc.aio.Channel] = []
        self.stubs: list[Any] = []

    async def start(self, games: int) -> None:
        """A connection per seat of each game, as each player's client would have."""
        for _ in range(4 * games):
            channel = grpc.aio.insecure_channel(
                self.address, options=[("grpc.use_local_subchannel_pool", 1)]
            )
            self.channels.append(channel)
            self.stubs.append(engine_service_pb2_grpc.EngineServiceStub(channel))

    def _stub(self, slot: int, seat: int) -> Any:
        return self.stubs[4 * slot + seat]

    async def open(self, slot: int, seed: int) -> EngineGame:
        stub = self._stub(slot, 0)
        seats = [game_pb2.PLAYER_TYPE_HUMAN] * 4
        created = await stub.CreateGame(
            api.CreateGameRequest(game_type="hearts", seats=seats, seed=seed)
        )
        game = EngineGame(
            created.game_id, {t.seat: token_metadata(t.token) for t in created.seat_tokens}
        )
        first = game.all_seen(1)
        for seat in range(4):
            await self._follow_seat(slot, game, seat)
        await asyncio.wait_for(first, DELIVERY_TIMEOUT)
        return game

    async def _follow_seat(self, slot: int, game: EngineGame, seat: int) -> None:
        """The seat's player follows the game: a WatchGame stream of its own."""
        request = api.WatchGameRequest(game_id=game.game_id, seat=seat, from_version=0)
        call = self._stub(slot, seat).WatchGame(request, metadata=game.metadata[seat])
        game.calls.append(call)
        game.tasks.append(asyncio.create_task(self._follow(game, seat, call)))

    @staticmethod
    async def _follow(game: EngineGame, seat: int, call: Any) -> None:
        with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
            async for message in call:
                told(game, seat, message)

    def over(self, game: EngineGame) -> bool:
        return game.over

    async def move(self, slot: int, game: EngineGame) -> float:
        """The seat to act's lowest legal move, sent; the time from sending it until all four
        seats have the version it made."""
        version = game.version
        seat = game.views[0].to_act[0]
        delivered = game.all_seen(version + 1)
        request = api.SubmitActionRequest(
            game_id=game.game_id,
            seat=seat,
            expected_version=version,
            request_id=str(version),
            action=lowest_action(game.views[seat]),
        )
        sent = time.perf_counter()
        await self._send(slot, game, seat, request)
        arrived = await asyncio.wait_for(delivered, DELIVERY_TIMEOUT)
        return (arrived - sent) * 1000

    async def _send(
        self, slot: int, game: EngineGame, seat: int, move: api.SubmitActionRequest
    ) -> None:
        """The move, by SubmitAction (answered once it is stored)."""
        await self._stub(slot, seat).SubmitAction(move, metadata=game.metadata[seat])

    async def close(self, game: EngineGame) -> None:
        for call in game.calls:
            call.cancel()
        for task in game.tasks:
            task.cancel()
        await asyncio.gather(*game.tasks, return_exceptions=True)

    async def stop(self) -> None:
        for channel in self.channels:
            await channel.close(None)


class PlayDriver(WatchGameDriver):
    """The engine through Play sessions: each seat's player keeps one session open on its own
    connection, joins the game on it and sends its moves on it (an :class:`EngineDriver`).
    CreateGame is still a call."""

    async def _follow_seat(self, slot: int, game: EngineGame, seat: int) -> None:
        call = self._stub(slot, seat).Play(metadata=game.metadata[seat])
        game.calls.append(call)
        game.tasks.append(asyncio.create_task(self._answers(game, seat, call)))
        join = api.WatchGameRequest(game_id=game.game_id, seat=seat, from_version=0)
        await call.write(api.PlayRequest(ref=1, join=join))

    @staticmethod
    async def _answers(game: EngineGame, seat: int, call: Any) -> None:
        with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
            async for answer in call:
                answered(game, seat, answer)

    async def _send(
        self, slot: int, game: EngineGame, seat: int, move: api.SubmitActionRequest
    ) -> None:
        """The move, written on the seat's session, brief: the seat has its view as its update
        (the answer, which is not waited for, carries only the version)."""
        request = api.PlayRequest(ref=move.expected_version + 1, move=move, brief=True)
        await game.calls[seat].write(request)


class SocketPlayDriver(PlayDriver):
    """Play sessions as :class:`PlayDriver` has them, each on a WebSocket of the web port (one
    connection per seat, its seat token in the handshake's headers). CreateGame is a gRPC call.
    """

    async def _follow_seat(self, slot: int, game: EngineGame, seat: int) -> None:
        url = f"ws://127.0.0.1:{self.web_port}/cardengine.v1.EngineService/Play"
        socket = await websockets.connect(
            url, additional_headers=game.metadata[seat], compression=None, max_size=None
        )
        game.calls.append(socket)
        game.tasks.append(asyncio.create_task(self._frames(game, seat, socket)))
        join = api.WatchGameRequest(game_id=game.game_id, seat=seat, from_version=0)
        await socket.send(api.PlayRequest(ref=1, join=join).SerializeToString())

    @staticmethod
    async def _frames(game: EngineGame, seat: int, socket: Any) -> None:
        with contextlib.suppress(asyncio.CancelledError, websockets.ConnectionClosed):
            async for frame in socket:
                answered(game, seat, api.PlayResponse.FromString(frame))

    async def _send(
        self, slot: int, game: EngineGame, seat: int, move: api.SubmitActionRequest
    ) -> None:
        request = api.PlayRequest(ref=move.expected_version + 1, move=move, brief=True)
        await game.calls[seat].send(request.SerializeToString())

    async def close(self, game: EngineGame) -> None:
        await asyncio.gather(*(socket.close() for socket in game.calls))
        await asyncio.gather(*game.tasks, return_exceptions=True)


ENGINE_DRIVERS: dict[str, type[EngineDriver]] = {
    "engine": WatchGameDriver,
    "engine Play": PlayDriver,
    "engine Play WS": SocketPlayDriver,
}
"""The engine's columns, each a transport driven by the same loop: the unary calls with a
watch per seat, a Play session per seat on gRPC, and one on a WebSocket."""


async def play_slots(driver: EngineDriver, games: int, seconds: float, probe: Any) -> SideResult:
    """``games`` games at once, one move outstanding each, for ``seconds``; as load.js does.

    Game ``n`` of slot ``s`` has seed ``1 + s + n * games``. ``probe()`` is called before and
    after the timed part and returns (server CPU, Redis CPU) seconds so far.
    """
    result = SideResult(games)
    await driver.start(games)
    try:
        tables = list(await asyncio.gather(*(driver.open(s, 1 + s) for s in range(games))))
        server_before, redis_before = probe()
        client_before = process_cpu_seconds(os.getpid())
        started = time.perf_counter()
        deadline = started + seconds

        async def slot_loop(slot: int) -> Any:
            table = tables[slot]
            nth = 0
            while time.perf_counter() < deadline:
                if driver.over(table):
                    await driver.close(table)
                    nth += 1
                    table = await driver.open(slot, 1 + slot + nth * games)
                    result.games_created += 1
                    continue
                try:
                    latency = await driver.move(slot, table)
                except (TimeoutError, grpc.aio.AioRpcError) as error:
                    name = type(error).__name__
                    if isinstance(error, grpc.aio.AioRpcError):
                        name = error.code().name
                    result.errors[name] = result.errors.get(name, 0) + 1
                    break
                result.latencies_ms.append(latency)
            return table

        finals = await asyncio.gather(*(slot_loop(slot) for slot in range(games)))
        result.seconds = time.perf_counter() - started
        server_after, redis_after = probe()
        client_after = process_cpu_seconds(os.getpid())
        result.server_cpu_seconds = server_after - server_before
        result.redis_cpu_seconds = redis_after - redis_before
        result.client_cpu_seconds = client_after - client_before
        for table in finals:
            await driver.close(table)
    finally:
        await driver.stop()
    return result


def engine_run(
    name: str, engine: tuple[str, int], redis_pid: int, games: int, seconds: float
) -> SideResult:
    """``name``'s driver on the engine at ``engine`` (its gRPC address and web port)."""
    address, web_port = engine

    def probe() -> tuple[float, float]:
        return cpu_seconds(address), process_cpu_seconds(redis_pid)

    driver = ENGINE_DRIVERS[name](address, web_port)
    return asyncio.run(play_slots(driver, games, seconds, probe))


# --- the peers --------------------------------------------------------------------------------


def node_modules() -> None:
    """``npm ci`` in bench/peers when its packages are missing or older than its lockfile."""
    stamp = PEERS_DIR / "node_modules" / ".package-lock.json"
    lock = PEERS_DIR / "package-lock.json"
    if stamp.exists() and stamp.stat().st_mtime >= lock.stat().st_mtime:
        return
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is not installed (make system-deps installs it)")
    log = ROOT / "build" / "peers-npm.log"
    log.parent.mkdir(exist_ok=True)
    print(f"installing the peers' packages (npm ci) (output in {log.relative_to(ROOT)})")
    with log.open("wb") as out:
        subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"],
            cwd=PEERS_DIR,
            stdout=out,
            stderr=subprocess.STDOUT,
            check=True,
        )


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        raise RuntimeError("node is not installed (make system-deps installs it)")
    return node


_NODE_ENV = {**os.environ, "NODE_ENV": "production"}


@contextlib.contextmanager
def peer_server(kind: str) -> Iterator[tuple[int, int]]:
    """``node server.js KIND`` on a free loopback port; yields (port, pid); stopped by its pid.

    Its output goes to ``build/peers-KIND.log``.
    """
    port = free_port()
    (ROOT / "build").mkdir(exist_ok=True)
    output = ROOT / "build" / f"peers-{kind}.log"
    with tempfile.TemporaryDirectory() as folder, output.open("w+b") as log:
        process = subprocess.Popen(
            [_node(), "server.js", kind, str(port), folder],
            cwd=PEERS_DIR,
            stdout=log,
            stderr=log,
            env=_NODE_ENV,
        )
        try:
            deadline = time.monotonic() + STARTUP_SECONDS
            while b'{"serving"' not in os.pread(log.fileno(), os.fstat(log.fileno()).st_size, 0):
                if process.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    raise RuntimeError(f"{kind} did not start: {log.read()[-2000:]!r}")
                time.sleep(0.05)
            yield port, process.pid
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _line(stream: IO[bytes], timeout: float) -> dict[str, Any]:
    """The next line of a generator's output as JSON, waiting at most ``timeout`` seconds."""
    ready, _, _ = select.select([stream], [], [], timeout)
    if not ready:
        raise TimeoutError("the load generator did not answer")
    line = stream.readline()
    if not line:
        raise RuntimeError("the load generator ended early")
    parsed: dict[str, Any] = json.loads(line)
    return parsed


def peer_run(kind: str, port: int, pid: int, games: int, seconds: float) -> SideResult:
    """One run of ``node load.js`` against a peer server; its CPU read around the timed part."""
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(
            [_node(), "load.js", kind, str(port), str(games), str(seconds)],
            cwd=PEERS_DIR,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
            env=_NODE_ENV,
        )
        assert process.stdin is not None and process.stdout is not None
        try:
            _line(process.stdout, OPEN_SECONDS)
            before = process_cpu_seconds(pid), process_cpu_seconds(process.pid)
            process.stdin.write(b"go\n")
            process.stdin.flush()
            figures = _line(process.stdout, seconds + 2 * DELIVERY_TIMEOUT + 30)
            after = process_cpu_seconds(pid), process_cpu_seconds(process.pid)
            process.stdin.write(b"stop\n")
            process.stdin.flush()
            process.wait(timeout=30)
        except (TimeoutError, RuntimeError, json.JSONDecodeError):
            errors.seek(0)
            raise RuntimeError(
                f"load generator on {kind}: {errors.read()[-2000:].decode(errors='replace')}"
            ) from None
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    result = SideResult(games, seconds=float(figures["seconds"]))
    result.latencies_ms = [float(v) for v in figures["latencies_ms"]]
    result.server_cpu_seconds = after[0] - before[0]
    result.client_cpu_seconds = after[1] - before[1]
    result.games_created = int(figures["games_created"])
    result.errors = {str(k): int(v) for k, v in figures["errors"].items()}
    result.first_game = str(figures["first_game"])
    return result


# --- the part ---------------------------------------------------------------------------------


def _same_games(played: Sequence[str]) -> bool:
    """Whether the peers' first games agree card for card as far as each got."""
    cards = [p.split(",") if p else [] for p in played]
    longest = max(cards, key=len)
    return all(c == longest[: len(c)] for c in cards)


def _ratio(value: float, base: float) -> float:
    if not base or math.isnan(value) or math.isnan(base):
        return float("nan")
    return round(value / base, 3)


def peers(levels: Sequence[int], seconds: float) -> dict[str, Any]:
    """Every side at each number of games, taking turns; rows with the ratios to the peer."""
    node_modules()
    sides = [*ENGINE_DRIVERS, *PEERS]
    rows = []
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(redis_server())
        store = redis.Redis.from_url(url)
        stack.callback(store.close)
        redis_pid = int(store.info("server")["process_id"])
        web_port = free_port()
        engine = (stack.enter_context(engine_servers(url, 1, f"--web-port={web_port}")), web_port)
        servers = {kind: stack.enter_context(peer_server(kind)) for kind in PEERS}
        load_before = os.getloadavg()
        for games in levels:
            pooled = {side: SideResult(games) for side in sides}
            for turn in range(ROUNDS):
                for side in sides[:: 1 if turn % 2 == 0 else -1]:
                    share = seconds / ROUNDS
                    print(f"peers: {side}, {games} games, round {turn + 1}", file=sys.stderr)
                    if side in ENGINE_DRIVERS:
                        run = engine_run(side, engine, redis_pid, games, share)
                    else:
                        port, pid = servers[side]
                        try:
                            run = peer_run(side, port, pid, games, share)
                        except RuntimeError as error:  # one failed run, shown in the table
                            print(error, file=sys.stderr)
                            run = SideResult(games, errors={"RUN_FAILED": 1})
                    pooled[side].add(run)
            reference = pooled[REFERENCE_PEER]
            row: dict[str, Any] = {
                "games": games,
                "sides": {side: pooled[side].summary() for side in sides},
                "same_games": _same_games([pooled[kind].first_game for kind in PEERS]),
            }
            for name in ENGINE_DRIVERS:
                real = pooled[name]
                row[f"{name}_cpu_ratio"] = _ratio(
                    real.per_move_us(real.server_cpu_seconds + real.redis_cpu_seconds),
                    reference.per_move_us(reference.server_cpu_seconds),
                )
                row[f"{name}_p50_ratio"] = _ratio(real.percentile(0.5), reference.percentile(0.5))
            rows.append(row)
        load_after = os.getloadavg()
    return {
        "seconds": seconds,
        "rounds": ROUNDS,
        "rows": rows,
        "load_average": [*load_before, *load_after],
        "cores": len(os.sched_getaffinity(0)),
    }


def _fmt(value: float, digits: int) -> str:
    return "n/a" if math.isnan(value) else f"{value:.{digits}f}"


PER_MOVE = (
    "What each side does per move. **Engine**: SubmitAction checks the seat's token, the "
    "expected version and the request id (a retried request id is answered once, not "
    "applied twice), loads the game's snapshot from Redis, checks the move against the full "
    "rules (GameTwist's Special Hearts: passing, hearts broken, the first-trick ban), writes "
    "the new snapshot, log entry and event with one compare-and-set, which Redis appends to "
    "its append-only file (fsync once a second), and answers; each seat's WatchGame stream "
    "then sends that seat its own view. On Play the same, each seat's moves and its "
    "updates on one session; moves go brief, so the mover's answer carries the version "
    "only and its view comes once, as its update. On Play WS the same session on a "
    "WebSocket of the web port, a binary frame per message. **boardgame.io**: the server "
    "(socket.io) "
    "reads the "
    "match's metadata and checks the player's credentials, reads the state, drops a move "
    "whose state id is stale (so a resent move is not applied twice) or that is not the "
    "player's turn, runs our hearts.js move in its reducer (it holds the card, follows "
    "suit), sends every connected seat its playerView (the whole filtered state, not a "
    "patch), and then stores the state and its log: in memory, or with FlatFile through "
    "node-persist to a file. The seats see a move before it is written; the game's next move "
    "waits for that write, because reading the state queues behind it, and node-persist "
    "(FlatFile's default settings) queues a write that comes while another is under way "
    "until the next write starts or its once-a-second timer fires: FlatFile's latency is "
    "mostly that wait, longest with one game, where no other game's write comes along. "
    "**Colyseus**: the room holds the game in the process's memory only (nothing "
    "is written), runs the same hearts.js check, mirrors the change into its schema state "
    "and broadcasts one patch per move (the patch timer is off), each seat's patch "
    "filtered by its StateView so that only its own hand is in it; no version or request "
    "id, so a resent card is played again if it is still legal. The peers' Hearts has no "
    "passing; the engine's always passes three cards in three deals of four, and those "
    "passes are moves here too. The engine's games are dealt by the engine's own shuffle, "
    "so its games are not the peers' (the three peers play the very same games)."
)


def markdown(figures: dict[str, Any]) -> list[str]:
    """The part's section of bench.md."""
    part = figures["peers"]
    load = part["load_average"]
    lines = [
        f"### 7. Engine beside the peers a user would pick instead (Hearts, "
        f"{part['seconds']} s per side and number of games, {part['rounds']} rounds each)",
        "",
        "Each side keeps `G` games going, one move outstanding per game; a move is delivered "
        "once all four seats have received the state it made. p50 is of send to delivered-to-"
        "all-four; CPU is the server process's per move (the engine's + its Redis's), read "
        "in the kernel's ticks (10 ms), so a side with few moves (FlatFile at 1 in flight) "
        "has a coarse one. "
        f"Load average {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f} before, "
        f"{load[3]:.2f} / {load[4]:.2f} / {load[5]:.2f} after, on {part['cores']} cores.",
        "",
    ]
    engines = list(ENGINE_DRIVERS)
    header = ["in flight"]
    header += [f"{name} p50 ms / CPU µs per move (+ Redis)" for name in engines]
    header += [f"{PEERS[kind]} p50 ms / CPU µs per move" for kind in PEERS]
    header += [f"{name} ÷ {PEERS[REFERENCE_PEER]} (CPU, p50)" for name in engines]
    header += ["moves/s " + " / ".join([*engines, *PEERS])]
    table = ["| " + " | ".join(header) + " |", "| --- " + "| ---: " * (len(header) - 1) + "|"]
    for row in part["rows"]:
        cells = [str(row["games"])]
        for name in engines:
            side = row["sides"][name]
            cells.append(
                f"{_fmt(side['p50_ms'], 2)} / {_fmt(side['cpu_us_per_move'], 0)} "
                f"(+ {_fmt(side['redis_cpu_us_per_move'], 0)})"
            )
        for kind in PEERS:
            side = row["sides"][kind]
            cells.append(f"{_fmt(side['p50_ms'], 2)} / {_fmt(side['cpu_us_per_move'], 0)}")
        for name in engines:
            cpu, p50 = row[f"{name}_cpu_ratio"], row[f"{name}_p50_ratio"]
            cells.append(f"**{_fmt(cpu, 2)}**, **{_fmt(p50, 2)}**")
        cells.append(
            " / ".join(_fmt(row["sides"][s]["moves_per_second"], 0) for s in [*engines, *PEERS])
        )
        table.append("| " + " | ".join(cells) + " |")
    lines += table
    notes = []
    for row in part["rows"]:
        for side, summary in row["sides"].items():
            if summary["errors"]:
                notes.append(f"{side} at {row['games']}: errors {summary['errors']}")
        if not row["same_games"]:
            notes.append(f"at {row['games']}: the peers did not play the same first game")
    if notes:
        lines += ["", "Errors: " + "; ".join(notes) + "."]
    p99 = "; ".join(
        f"{row['games']} in flight: "
        + ", ".join(f"{s} {_fmt(v['p99_ms'], 2)}" for s, v in row["sides"].items())
        for row in part["rows"]
    )
    client = "; ".join(
        f"{row['games']} in flight: "
        + ", ".join(f"{s} {_fmt(v['client_cpu_us_per_move'], 0)}" for s, v in row["sides"].items())
        for row in part["rows"]
    )
    return [
        *lines,
        "",
        f"p99 ms: {p99}.",
        "",
        "Load generators' own CPU µs per move, on the same cores (the engine's is this Python "
        f"process, the peers' a Node process): {client}.",
        "",
        PER_MOVE,
    ]
