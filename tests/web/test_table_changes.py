"""The browser table shows turn clocks and table changes (T-R2, T-R4, T-R5) in real chromium."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from cardengine.v1 import engine_service_pb2 as api
from cardengine.v1 import engine_service_pb2_grpc, game_pb2

from tests.web.table import Table, wait_for

pytestmark = pytest.mark.service

BOT = "BOT_HEURISTIC"
HUMAN = game_pb2.PLAYER_TYPE_HUMAN
HEUR = game_pb2.PLAYER_TYPE_BOT_HEURISTIC
COUNTDOWN_SECONDS = 6
"""The seat's clock: the countdown shows until the deadline, then the bot moves."""


def _first_line(table: Table, words: str) -> tuple[int, str] | None:
    return next(((v, text) for v, text in table.log_lines() if words in text), None)


def test_a_seat_that_does_not_move_sees_its_countdown_then_the_bot_moves_for_it_t_r5(
    open_table: Callable[[], Table],
) -> None:
    """T-R4/T-R5: the human seat's clock counts down; at the deadline the heuristic bot moves.

    The person sits at seat 1, so the seat is named in the Hearts pass event (seat 0 would be
    left out of the event's JSON as a proto3 default). The clock runs long enough that a page
    slowed by a busy machine still shows the countdown before the deadline.
    """
    table = open_table()
    table.create("hearts", [BOT, "HUMAN", BOT, BOT], clock_seconds=COUNTDOWN_SECONDS)
    clock = wait_for(
        "the seat's countdown",
        lambda: next(iter(table.texts("#clocks .clock[data-seat='1']")), ""),
    )
    assert "left for this decision" in clock and "bank" in clock, clock
    table.screenshot("clock-countdown")
    before = table.version()
    expiry = wait_for(
        "the clock expiry in the move log",
        lambda: _first_line(table, "seat 1 (you) ran out of time"),
    )
    assert expiry[1].endswith("the heuristic bot makes the move"), expiry
    wait_for(
        "the bot's pass for the seat after the expiry",
        lambda: any(
            version >= expiry[0] and "seat 1 (you) chose a pass" in text
            for version, text in table.log_lines()
        ),
    )
    assert table.version() > before
    assert not any("unknown" in text for _, text in table.log_lines())
    table.screenshot("clock-expired")


def test_leaving_the_table_hands_the_seat_to_a_bot_t_r2(
    open_table: Callable[[], Table],
) -> None:
    """T-R2: "Leave table" calls LeaveGame; the log tells it and a bot plays the seat on."""
    table = open_table()
    table.create("klaberjass", ["HUMAN", BOT])
    table.wait_turn_or_end()
    leave = table.browser.find_element("id", "leave")
    assert leave.is_enabled()
    before = table.version()
    leave.click()
    line = wait_for("the leave in the move log", lambda: _first_line(table, "(you) left;"))
    assert line[1].startswith(f"v{line[0]}: seat 0 (you) left;"), line
    assert line[1].endswith(" plays on"), line
    kind = "return document.querySelector(\"#seats-info .seat[data-seat='0'] .who\")?.dataset.kind"
    bots = ("BOT_RANDOM", "BOT_HEURISTIC", "BOT_SEARCH")
    wait_for("the seat played by a bot", lambda: table.browser.execute_script(kind) in bots)
    wait_for("the bot's moves for the seat", lambda: table.version() > line[0] > before)
    assert not table.browser.find_element("id", "leave").is_enabled()
    assert not table.my_turn()
    table.screenshot("left-table")


def test_a_game_ended_by_its_admin_shows_why_t_r8(
    open_table: Callable[[], Table], stub: engine_service_pb2_grpc.EngineServiceStub
) -> None:
    """T-R8: the backend ends the game (EndGame); the page tells it and shows the reason."""
    created = stub.CreateGame(api.CreateGameRequest(game_type="klaberjass", seats=[HUMAN, HEUR]))
    table = open_table()
    table.join(created.game_id, 0, created.seat_tokens[0].token)
    wait_for("the joined seat", table.version)
    reason = "the tournament round is over"
    stub.EndGame(
        api.EndGameRequest(game_id=created.game_id, reason=reason),
        metadata=(("x-admin-token", created.admin_token),),
    )
    wait_for("the end", table.finished)
    assert reason in table.status("ended-early")
    assert reason in table.browser.find_element("id", "status").text
    line = wait_for("the end in the move log", lambda: _first_line(table, "ended early"))
    assert reason in line[1], line
    table.screenshot("ended-early")
