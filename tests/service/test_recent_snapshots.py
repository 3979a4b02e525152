"""A process's kept snapshots (engine_service.app.recent) never write or answer stale.

Two engine processes share one Redis. The in-process server ``stub`` keeps the snapshot it
wrote; the other process then changes the game, so what is kept is stale. A move sent to the
first at the kept version must be judged on the game as it is now: refused as it would be
without the keeping (an old token after a reissue, with nothing written), or taken on the
newer position when only other seats' secrets came between.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast

import grpc
import pytest
from cardengine.v1 import engine_service_pb2_grpc

from engine_service.app.recent import Kept, RecentSnapshots
from engine_service.core.record import GameRecord
from engine_service.store.protocol import StoredGame
from tests.service.rpc_helpers import (
    HUMAN,
    create,
    failure_changing_nothing,
    first_legal,
    submit,
    tokens_of,
    view,
)
from tests.service.table_helpers import update_seat

pytestmark = pytest.mark.service


@pytest.fixture
def other(second_server: str) -> Iterator[Any]:
    with grpc.insecure_channel(second_server) as channel:
        yield engine_service_pb2_grpc.EngineServiceStub(channel)


def test_a_kept_snapshot_serves_only_its_version_and_the_newest_writes() -> None:
    recent = RecentSnapshots(capacity=2)
    records = {name: cast(GameRecord, object()) for name in "abc"}  # kept as given, by identity
    recent.wrote("a", 3, b"three", records["a"])
    kept = recent.at("a", 3)
    assert kept is not None
    assert kept.stored == StoredGame(b"three", 3) and kept.record is records["a"]
    assert recent.at("a", 2) is None
    recent.wrote("b", 1, b"b", records["b"])
    recent.wrote("c", 1, b"c", records["c"])
    assert recent.at("a", 3) is None  # the least recently written went first
    recent.forget("b")
    assert recent.at("b", 1) is None
    assert recent.at("c", 1) == Kept(StoredGame(b"c", 1), records["c"])


def pass_first(stub: Any, game_id: str, seat: int, token: str, version: int) -> Any:
    """``seat`` passes its first legal cards, the client having seen ``version``."""
    return submit(
        stub, game_id, seat, token, first_legal(view(stub, game_id, seat, token)), version
    )


def test_an_old_token_is_refused_although_the_kept_snapshot_still_knows_it(
    stub: Any, other: Any, redis_client: Any
) -> None:
    created = create(stub, [HUMAN] * 4, seed=21)
    game_id, tokens = created.game_id, tokens_of(created)
    kept = pass_first(stub, game_id, 0, tokens[0], 1).version  # stub keeps this version
    passing = first_legal(view(stub, game_id, 1, tokens[1]))
    update_seat(other, game_id, created.admin_token, 1, reissue=True)
    failure = failure_changing_nothing(
        redis_client, game_id, lambda: submit(stub, game_id, 1, tokens[1], passing, kept)
    )
    assert (failure.code, failure.reason) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_INVALID")


def test_a_move_on_a_stale_kept_snapshot_is_judged_on_the_newer_position(
    stub: Any, other: Any
) -> None:
    created = create(stub, [HUMAN] * 4, seed=22)
    game_id, tokens = created.game_id, tokens_of(created)
    kept = pass_first(stub, game_id, 0, tokens[0], 1).version  # stub keeps this version
    # another process takes seat 1's pass (a secret to seat 2): stub's kept snapshot is stale
    newer = pass_first(other, game_id, 1, tokens[1], kept).version
    moved = pass_first(stub, game_id, 2, tokens[2], kept).version
    assert moved == newer + 1
    assert view(other, game_id, 2, tokens[2]).version == moved
