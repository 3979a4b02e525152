"""Tell the timer loops at once of a game that is due before their next look.

A timer loop reads its share of the due index once per look and plans every game due
before the next look, so a turn clock known ahead fires on its time however seldom the loop
looks. What a look cannot see in time is a game a write makes due sooner than the next look:
bots left to move after a request's budget, a search bot's turn, a clock about to run out.
Such a write (:class:`~engine_service.store.redis_store.RedisGameStore`) also publishes the
game on one Pub/Sub channel, and every timer loop listens there and plans it at once, so the
looks can be a second apart (reading a thousand groups five times a second was most of an
idle Redis's CPU) while bots answer at once.

A notice is a hint, never the truth: the loop still claims the game in the due index, so a
duplicate notice costs nothing and a lost one (a listener reconnecting, Pub/Sub's at-most-once
delivery) only the wait until the next look. On a Redis Cluster a message published on any
node reaches the subscribers of every node, so a listener subscribes on one node of its
choice.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Final

import redis.asyncio as redis
from redis.exceptions import ResponseError

from engine_service.store.connect import (
    UNAVAILABLE_ERRORS,
    Client,
    parse_target,
    reader_client,
    refresh_nodes,
)
from engine_service.store.failures import storage_trouble
from engine_service.store.keys import DUE_CHANNEL, due_key, group_of
from engine_service.store.outage_log import OutageLog
from engine_service.store.protocol import DueNotice

RECONNECT_SECONDS: Final = 0.5
BLOCK_SECONDS: Final = 2.0
"""How long one read waits for a message; a quiet channel is then pinged, so a listener
whose Redis went away notices within its socket timeout rather than never."""


def notice(game_id: str, due_ms: int) -> bytes:
    """The message announcing ``game_id`` due at ``due_ms``."""
    return f"{game_id} {due_ms}".encode()


def read_notice(message: bytes) -> DueNotice | None:
    """The notice a message carries; ``None`` for one that is not a notice."""
    game_id, _, due = message.decode(errors="replace").partition(" ")
    if not game_id or not due.isdigit():
        return None
    return DueNotice(game_id, group_of(game_id), int(due))


class DueNotices:
    """The notices published on ``url``'s Redis, as one timer loop hears them.

    ``control`` is the store's client, through which a cluster's nodes are found.
    """

    def __init__(self, url: str, control: Client) -> None:
        self._target = parse_target(url)
        self._control = control
        self._outage = OutageLog("due notices")

    async def listen(self) -> AsyncIterator[DueNotice]:
        """Every notice from now on; reconnects for ever on trouble."""
        while True:
            reader: redis.Redis | None = None
            try:
                reader = reader_client(self._target, self._control, due_key(0))
                async with reader.pubsub(ignore_subscribe_messages=True) as channel:
                    await channel.subscribe(DUE_CHANNEL)
                    self._outage.succeeded()
                    while True:
                        message = await channel.get_message(timeout=BLOCK_SECONDS)
                        if message is None:
                            await channel.ping()
                        elif message["type"] == "message":
                            found = read_notice(message["data"])
                            if found is not None:
                                yield found
            except (*UNAVAILABLE_ERRORS, ResponseError) as error:
                self._outage.failed(storage_trouble(error) or type(error).__name__)
                await asyncio.sleep(RECONNECT_SECONDS)
                await refresh_nodes(self._control)
            finally:
                if reader is not None:
                    await reader.aclose()
