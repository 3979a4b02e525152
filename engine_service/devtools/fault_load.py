"""Load for the fault scenarios, and the ledger that says what a client was told.

Workers play all-human Hearts games through the public gRPC API (one ``SubmitAction`` applies
exactly one action, so an acknowledged reply at version ``v`` names log entry ``v - 2``). A
call that fails with UNAVAILABLE or DEADLINE_EXCEEDED is sent again with the same
``request_id``, as the Python client does, so a move that was applied before its reply was
lost is answered from the stored reply rather than applied twice. Every reply is written down
with its time and status code; :func:`verify` then holds the stored games against every
acknowledged reply, and replays each stored game to its snapshot.
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import grpc
import redis.asyncio as aioredis
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import engine_service_pb2_grpc, game_pb2

from engine_service.app.engine import Engine
from engine_service.codec.record import decode_log_entry, encode_record
from engine_service.codec.registry import CODECS
from engine_service.store.connect import open_client, parse_target
from engine_service.store.keys import game_key, log_key
from engine_service.store.redis_store import RedisGameStore

GAME = "hearts"
CALL_SECONDS = 2.0
"""Each call's deadline: long enough for a loaded shared machine, short enough to see a hang."""
RETRY_PAUSE = 0.05
ACTIONS_PER_GAME = 30
"""Moves before a worker starts a new game, so CreateGame runs all along the load."""
RETRIED = {"UNAVAILABLE", "DEADLINE_EXCEEDED"}
"""What a client may send again with the same request_id; nothing else is ever retried."""
NEVER = {"INTERNAL", "UNKNOWN", "DATA_LOSS", "UNIMPLEMENTED"}
"""Codes no storage or process fault may give a client."""

Metadata = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Call:
    """One finished call: when it ended (monotonic seconds), which RPC, its status code."""

    ended: float
    rpc: str
    code: str


@dataclass(frozen=True)
class Ack:
    """An acknowledged SubmitAction: the version its reply showed, the seat and the action."""

    version: int
    seat: int
    action: game_pb2.Action


@dataclass
class Ledger:
    """Everything the clients were told: each call's code, each created game, each ack."""

    calls: list[Call] = field(default_factory=list)
    acks: dict[str, list[Ack]] = field(default_factory=dict)

    def note(self, rpc: str, code: str) -> None:
        """Write down a finished call, at the time it ended."""
        self.calls.append(Call(time.monotonic(), rpc, code))

    def codes(self, start: float = 0.0, end: float = float("inf")) -> Counter[str]:
        """``rpc:code`` counts of the calls that ended in [start, end)."""
        return Counter(f"{c.rpc}:{c.code}" for c in self.calls if start <= c.ended < end)

    def rate(self, rpc: str, start: float, end: float) -> float:
        """Successful ``rpc`` calls per second over [start, end)."""
        done = sum(
            1 for c in self.calls if c.rpc == rpc and c.code == "OK" and start <= c.ended < end
        )
        return done / max(end - start, 1e-9)

    def first_ok_after(self, moment: float) -> float | None:
        """Seconds from ``moment`` to the first successful call after it."""
        ends = [c.ended for c in self.calls if c.code == "OK" and c.ended >= moment]
        return min(ends) - moment if ends else None

    @property
    def acknowledged(self) -> int:
        """SubmitAction calls answered OK."""
        return sum(len(acks) for acks in self.acks.values())


async def _call(
    ledger: Ledger,
    rpc: str,
    method: Callable[..., Awaitable[Any]],
    request: Any,
    md: Metadata,
    deadline: float,
) -> tuple[str, Any]:
    try:
        reply = await method(request, metadata=md, timeout=deadline)
    except grpc.aio.AioRpcError as error:
        ledger.note(rpc, error.code().name)
        return error.code().name, None
    ledger.note(rpc, "OK")
    return "OK", reply


def _legal(view: game_pb2.GameView, rng: random.Random) -> game_pb2.Action:
    """A random legal action: a listed one, or a card choice filled with random cards."""
    listed = len(view.legal_actions)
    index = rng.randrange(listed + len(view.legal_choices))
    if index < listed:
        return view.legal_actions[index]
    choice = view.legal_choices[index - listed]
    action = game_pb2.Action()
    action.CopyFrom(choice.action)
    inner = getattr(action, str(action.WhichOneof("game")))
    cards = rng.sample(list(choice.cards), choice.count)
    getattr(inner, str(inner.WhichOneof("action"))).cards.extend(cards)
    return action


@dataclass
class Worker:
    """One client playing games one after another until ``stop`` is set."""

    stub: Any
    ledger: Ledger
    stop: asyncio.Event
    rng: random.Random
    deadline: float = CALL_SECONDS

    async def run(self) -> None:
        """Create a game, play it for a while, again, until stopped."""
        while not self.stop.is_set():
            request = api.CreateGameRequest(game_type=GAME, seats=[game_pb2.PLAYER_TYPE_HUMAN] * 4)
            code, created = await _call(
                self.ledger, "CreateGame", self.stub.CreateGame, request, (), self.deadline
            )
            if code != "OK":
                await asyncio.sleep(RETRY_PAUSE)
                continue
            self.ledger.acks[created.game_id] = []
            tokens: dict[int, Metadata] = {
                t.seat: (("x-seat-token", t.token),) for t in created.seat_tokens
            }
            await self._play(created.game_id, tokens, created.view)

    async def _view(self, game_id: str, seat: int, md: Metadata) -> game_pb2.GameView | None:
        request = api.GetGameViewRequest(game_id=game_id, seat=seat)
        while not self.stop.is_set():
            code, reply = await _call(
                self.ledger, "GetGameView", self.stub.GetGameView, request, md, self.deadline
            )
            if code == "OK":
                return reply.view  # type: ignore[no-any-return]
            if code not in RETRIED:
                return None
            await asyncio.sleep(RETRY_PAUSE)
        return None

    async def _submit(self, request: api.SubmitActionRequest, md: Metadata) -> tuple[str, Any]:
        """Send until answered, the same request_id each time.

        ``("STOPPED", None)`` if the load ends first (the move's outcome is then unknown to
        the client: not acknowledged).
        """
        while not self.stop.is_set():
            code, reply = await _call(
                self.ledger, "SubmitAction", self.stub.SubmitAction, request, md, self.deadline
            )
            if code not in RETRIED:
                return code, reply
            await asyncio.sleep(RETRY_PAUSE)
        return "STOPPED", None

    async def _play(
        self, game_id: str, tokens: dict[int, Metadata], view: game_pb2.GameView
    ) -> None:
        seat: int | None = None
        for _ in range(ACTIONS_PER_GAME):
            if self.stop.is_set() or not view.to_act:
                return
            if seat != view.to_act[0] or not (view.legal_actions or view.legal_choices):
                seat = view.to_act[0]
                found = await self._view(game_id, seat, tokens[seat])
                if found is None or not (found.legal_actions or found.legal_choices):
                    # A failover without WAIT may have rolled the game back to another seat's
                    # turn: this client leaves the game, as one that lost its place would.
                    return
                view = found
            action = _legal(view, self.rng)
            request = api.SubmitActionRequest(
                game_id=game_id,
                seat=seat,
                expected_version=view.version,
                request_id=uuid.uuid4().hex,
                action=action,
            )
            code, reply = await self._submit(request, tokens[seat])
            if code != "OK":
                return  # NOT_FOUND after a Redis that kept nothing, or the load stopped
            view = reply.view
            self.ledger.acks[game_id].append(Ack(view.version, seat, action))


def open_stubs(targets: Sequence[str]) -> tuple[list[Any], list[grpc.aio.Channel]]:
    """A stub per target, each its own connection.

    A target of several addresses (``ipv4:a,b``) balances round-robin, so calls move to the
    replica left standing when one dies.
    """
    options = [("grpc.lb_policy_name", "round_robin"), ("grpc.use_local_subchannel_pool", 1)]
    channels = [grpc.aio.insecure_channel(target, options=options) for target in targets]
    return [engine_service_pb2_grpc.EngineServiceStub(c) for c in channels], channels


@dataclass
class Load:
    """``workers`` concurrent clients over the given channels, started and stopped together."""

    targets: Sequence[str]
    workers: int
    deadline: float = CALL_SECONDS
    seed: int = 1
    ledger: Ledger = field(default_factory=Ledger)
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    _tasks: list[asyncio.Task[None]] = field(default_factory=list)
    _channels: list[grpc.aio.Channel] = field(default_factory=list)

    def start(self) -> None:
        """Start every worker on this event loop."""
        stubs, self._channels = open_stubs(self.targets)
        rng = random.Random(self.seed)
        for index in range(self.workers):
            worker = Worker(
                stubs[index % len(stubs)], self.ledger, self.stop, random.Random(rng.random())
            )
            self._tasks.append(asyncio.create_task(worker.run()))

    async def finish(self) -> None:
        """Stop every worker (each call is bounded by its deadline) and close the channels."""
        self.stop.set()
        await asyncio.gather(*self._tasks)
        for channel in self._channels:
            await channel.close(None)


@dataclass
class Verdict:
    """What the stored games say about the ledger after a fault."""

    games: int = 0
    games_lost: int = 0
    acknowledged: int = 0
    acks_lost: int = 0
    not_replaying: list[str] = field(default_factory=list)


async def verify(redis_url: str, ledger: Ledger) -> Verdict:
    """Hold the stored games to the ledger.

    Every acknowledged game stored, every acknowledged action at its place in the log, and
    every stored game rebuilt by :meth:`Engine.replay_from_origin` byte for byte as its snapshot.
    ``redis_url`` is any the service takes: after a failover, a Sentinel URL reads the
    promoted master and a Cluster URL the nodes that serve each slot now.
    """
    client = cast("aioredis.Redis", open_client(parse_target(redis_url), max_connections=4))
    engine = Engine(RedisGameStore(client, ttl_seconds=3600))
    verdict = Verdict(games=len(ledger.acks), acknowledged=ledger.acknowledged)
    codec = CODECS[GAME]
    try:
        for game_id, acks in ledger.acks.items():
            version, snapshot = cast(
                list[bytes | None], await client.hmget(game_key(game_id), ["v", "s"])
            )
            if snapshot is None:
                verdict.games_lost += 1
                verdict.acks_lost += len(acks)
                continue
            entries = cast(list[bytes], await client.lrange(log_key(game_id), 0, -1))
            for ack in acks:
                index = ack.version - 2
                logged = decode_log_entry(GAME, entries[index]) if index < len(entries) else None
                if logged is None or (logged.seat, logged.action) != (
                    ack.seat,
                    codec.decode_action(ack.action),
                ):
                    verdict.acks_lost += 1
            rebuilt = await engine.replay_from_origin(game_id, int(version or 0))
            if encode_record(rebuilt) != snapshot:
                verdict.not_replaying.append(game_id)
    finally:
        await client.aclose()
    return verdict
