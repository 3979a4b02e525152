"""The benchmark and load-test machinery in its smallest mode, on the real fixtures.

No timings are asserted: these only show that every registered game goes through every part
(rules, recorded replays beside the floor server, storage figures, the load generator), that
the fan-out part delivers every move to its watcher on the engine and on both floor designs,
that the bot-work part plays people's games beside a long all-bot game, and that the load
test's consistency check replays games with table changes and catches a damaged game.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import game_pb2

from bench import __main__ as bench_main
from bench import bots, fanout, report, rules, service, storage
from bench.consistency import check_game, stored_game_ids
from bench.driver import record_scripts
from bench.load import generate
from bench.servers import floor_server
from engine_service.codec.record import decode_record, encode_record
from engine_service.registry import REGISTRY
from engine_service.settings import Settings
from engine_service.store.keys import events_key, game_key, log_key

pytestmark = pytest.mark.service
GAMES = sorted(REGISTRY)


@pytest.mark.parametrize("game", GAMES)
def test_rules_part_plays_every_game(game):
    rate = rules.rules_rate(game, 1)
    assert rate.games == 1 and rate.actions > 0
    share, played = rules.heuristic_win_rate(game, 1)
    assert played == 1 and 0.0 <= share <= 1.0


def test_one_deal_hearts_is_one_hand():
    ours, _ = rules.hearts_beside_openspiel(2)
    assert ours.actions == 2 * (4 + 52)


def test_the_rules_part_alone_writes_its_report(tmp_path):
    """``python -m bench --only rules``: the report's goals list no served figure it lacks."""
    figures = bench_main.run(bench_main.QUICK, tmp_path, {"rules"})
    text = (tmp_path / "bench.md").read_text()
    assert "service" not in figures
    assert "### 1. Rules alone" in text and "### Goals" in text
    assert "in flight" not in text


@pytest.mark.parametrize("game", GAMES)
def test_replays_run_beside_the_floor_without_errors(game, engine_address, redis_url, redis_client):
    scripts = asyncio.run(record_scripts(engine_address, redis_client, game, 1, 10))
    assert len(scripts[0].steps) == len(scripts[0].snapshot_bytes) > 0
    with floor_server(redis_url) as floor:
        (row,) = service.beside_floor(engine_address, floor, redis_client, scripts, [2], 0.2)
    for side in ("engine", "floor"):
        assert row[side]["calls"] > 0
        assert row[side]["errors"] == {}


def test_scaling_serves_with_process_groups_and_the_report_plots_it(
    engine_address, redis_url, redis_client, tmp_path
):
    """Part 3 runs groups of 1 and 2 processes (the launcher); the report draws every figure."""
    scripts = asyncio.run(record_scripts(engine_address, redis_client, "hearts", 1, 20))
    other_db = redis_url.rsplit("/", 1)[0] + "/3"
    runs = service.scaling(other_db, scripts, [1, 2], 2, 0.3)
    assert [run["processes"] for run in runs] == [1, 2]
    for run in runs:
        assert run["calls"] > 0 and run["errors"] == {}
        assert run["cpu_us_per_call"] > 0 and len(run["round_throughput"]) == service.ROUNDS
    with floor_server(redis_url) as floor:
        rows = service.beside_floor(engine_address, floor, redis_client, scripts, [1, 2], 0.2)
    assert all(len(row["rounds"]) == service.ROUNDS for row in rows)
    figures = {"settings": {"scaling_in_flight": 2}, "scaling": {"hearts": runs}}
    assert "| hearts | 2 |" in "\n".join(report.scaling_section(figures))
    pytest.importorskip("matplotlib")
    figures["service"] = {"hearts": rows}
    written = report.plots(figures, tmp_path)
    assert {path.name for path in written} == {"service.png", "ratios-hearts.png", "scaling.png"}
    assert all(path.stat().st_size > 0 for path in written)


def test_fanout_delivers_every_move_to_its_watcher(engine_address, redis_url, redis_client):
    scripts = asyncio.run(record_scripts(engine_address, redis_client, "hearts", 1, 40))
    with floor_server(redis_url) as floor:
        rows = fanout.deliveries(engine_address, floor, redis_client, scripts, [1, 3], 0.3)
    assert [row["watchers"] for row in rows] == [1, 3]
    for row in rows:
        for side in ("engine", "floor", "floor_own"):
            assert row[side]["deliveries"] > 0
            assert row[side]["errors"] == {}
            assert 0 < row[side]["p50_ms"] <= row[side]["p99_ms"]


def test_idle_watchers_stay_open_beside_a_process_without(engine_address, redis_url, redis_client):
    scripts = asyncio.run(record_scripts(engine_address, redis_client, "hearts", 1, 20))
    row = fanout.idle_watchers(redis_url, scripts, watchers=4, in_flight=2, seconds=0.3)
    assert row["watchers"] == 4
    for side in ("with_watchers", "without"):
        assert row[side]["calls"] > 0
        assert row[side]["errors"] == {}


def test_storage_part_reports_every_game(redis_url):
    other_db = redis_url.rsplit("/", 1)[0] + "/1"
    figures = [storage.storage(other_db, game, 1) for game in GAMES]
    assert all(f["snapshot_bytes_max"] > 0 and f["actions_in_whole_game"] > 0 for f in figures)


def test_bots_part_plays_beside_a_long_all_bot_game_in_bounded_slices(redis_url):
    """T-R10: the all-bot game's CreateGame makes at most one slice of moves, the rest follow."""
    # On the event loop: a timer worker is a process of its own, whose start-up on a busy
    # machine can outlast this short run; part 6 itself measures both.
    setting = replace(bots.ON_EVENT_LOOP, moves=16, seconds=0.002)
    other_db = redis_url.rsplit("/", 1)[0] + "/2"
    run = bots.beside_bots(other_db, setting, [1, 2], 0.3)
    assert [row["in_flight"] for row in run["levels"]] == [1, 2]
    for row in run["levels"]:
        for side in ("alone", "beside"):
            assert row[side]["calls"] > 0
            assert row[side]["errors"] == {}
    long_game = run["long_game"]
    assert 0 < long_game["moves_at_create"] <= Settings().bot_moves_per_call
    assert long_game["moves"] > 0


def test_consistency_check_replays_table_changes(stub, redis_client):
    """T-R6, T-R7, T-R8: a seat handed to a bot and back with a new token, then the game ended
    early, replays from the origin record to the stored snapshot and counts as finished."""
    seats = [game_pb2.PLAYER_TYPE_HUMAN] * 4
    created = stub.CreateGame(api.CreateGameRequest(game_type="hearts", seats=seats, seed=7))
    game_id = created.game_id
    admin = (("x-admin-token", created.admin_token),)
    token = {t.seat: t.token for t in created.seat_tokens}
    stub.LeaveGame(
        api.LeaveGameRequest(game_id=game_id, seat=1), metadata=(("x-seat-token", token[1]),)
    )
    back = api.UpdateSeatRequest(
        game_id=game_id, seat=1, player_type=game_pb2.PLAYER_TYPE_HUMAN, reissue_token=True
    )
    stub.UpdateSeat(back, metadata=admin)
    stub.EndGame(api.EndGameRequest(game_id=game_id, reason="closing time"), metadata=admin)
    assert game_id in stored_game_ids(redis_client)
    assert redis_client.llen(log_key(game_id)) >= 4  # left, its bot's pass, back, ended
    assert check_game(redis_client, game_id, finished=True) == []
    key = game_key(game_id)
    origin = redis_client.hget(key, "o")
    try:
        redis_client.hset(key, "o", redis_client.hget(key, "s"))
        assert any("illegal" in p or "replay" in p for p in check_game(redis_client, game_id))
    finally:
        redis_client.hset(key, "o", origin)
    assert check_game(redis_client, game_id, finished=True) == []


def test_load_generator_leaves_every_game_consistent(engine_address, redis_client):
    tally, _ = asyncio.run(generate(engine_address, clients=2, games=2, seconds=3.0))
    assert len(tally.games) == 2
    assert tally.codes["SubmitAction"]["OK"] > 0
    assert set(tally.codes["SubmitAction"]) <= {"OK", "ABORTED"}
    for game_id in tally.games:
        assert check_game(redis_client, game_id, game_id in tally.finished) == []


def test_consistency_check_catches_damaged_games(engine_address, redis_client):
    tally, _ = asyncio.run(generate(engine_address, clients=1, games=1, seconds=1.5))
    game_id = tally.games[0]
    key, log, events = game_key(game_id), log_key(game_id), events_key(game_id)
    assert check_game(redis_client, game_id) == []
    try:
        redis_client.rpush(log, redis_client.lindex(log, 0))
        assert any("log entries" in p for p in check_game(redis_client, game_id))
        redis_client.rpop(log)

        stream = redis_client.xrange(events)
        (last_id, fields) = stream[-1]
        _rewrite(redis_client, events, stream[:-1])
        assert any("event stream" in p for p in check_game(redis_client, game_id))
        _rewrite(redis_client, events, [*stream[:-1], (last_id, {**fields, b"a": b"other"})])
        assert any("not its log entry" in p for p in check_game(redis_client, game_id))
        _rewrite(redis_client, events, stream)
        assert check_game(redis_client, game_id) == []

        record = decode_record(redis_client.hget(key, "s"))
        rules = REGISTRY[record.game_type].make_rules(record.config)
        dealt = encode_record(replace(record, state=rules.new_game(record.seed)))
        redis_client.hset(key, "s", dealt)
        assert check_game(redis_client, game_id) == [
            "the log does not replay to the stored snapshot"
        ]
        assert "seen finished but has no outcome" in check_game(redis_client, game_id, True)
    finally:
        redis_client.delete(key, log, events)  # no damaged game outlives the test
    assert check_game(redis_client, game_id) == ["not stored"]


def _rewrite(client, key, entries):
    """Replace a stream by ``entries`` (Redis refuses IDs at or below a stream's last one)."""
    client.delete(key)
    for entry_id, fields in entries:
        client.xadd(key, fields, id=entry_id)
