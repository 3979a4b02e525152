"""The browser table played through headless chromium against a real server and Redis."""

from __future__ import annotations

import re
import time
from collections.abc import Callable

import pytest
from cardengine.v1 import cards_pb2, engine_service_pb2_grpc, game_pb2
from cardengine.v1 import engine_service_pb2 as api

from tests.service.rpc_helpers import token_md
from tests.web.table import Table, wait_for

pytestmark = pytest.mark.service

BOT = "BOT_HEURISTIC"
HUMAN = game_pb2.PLAYER_TYPE_HUMAN
HEUR = game_pb2.PLAYER_TYPE_BOT_HEURISTIC
MAX_MOVES = 600


def test_page_and_grpc_web_are_served(open_table: Callable[[], Table]) -> None:
    table = open_table()
    table.open()
    options = [e.get_attribute("value") for e in table.elements("#game-type option")]
    assert options == ["hearts", "guandan", "klaberjass"]


def test_a_whole_hearts_game_against_bots(open_table: Callable[[], Table]) -> None:
    table = open_table()
    table.create("hearts", ["HUMAN", BOT, BOT, BOT])
    passed = refused = False
    for _ in range(MAX_MOVES):
        table.wait_turn_or_end()
        if table.finished():
            break
        if table.elements("#hand button.choosable"):
            # H-R2: the page says where the pass goes (the first hand's: left, to seat 1).
            text = table.browser.find_element("id", "choice").text
            assert "Choose 3 cards to pass " in text, text
            assert passed or "to pass left, to seat 1" in text, text
            passed = True
        elif not refused and table.elements("#hand button.unplayable"):
            # A card that may not be played: the engine refuses and the page says why.
            before = table.version()
            table.elements("#hand button.unplayable")[0].click()
            error = wait_for("the refusal", lambda: table.error()["shown"] and table.error())
            assert error["reason"] and error["rule_id"].startswith("H-R"), error
            # Said once: the explanation, then the reason and the rule, one line each.
            explanation, cited = error["shown"].splitlines()
            assert error["reason"] in cited and error["rule_id"] in cited, error
            assert error["reason"] not in explanation, error
            assert table.version() == before
            table.screenshot("hearts-refusal")
            refused = True
        table.play_one()
    else:
        pytest.fail(f"no end of the game after {MAX_MOVES} moves")
    assert passed and refused
    assert "finished" in table.browser.find_element("id", "status").text
    scores = table.browser.find_element("id", "scores").text
    assert "total" in scores
    assert table.elements("#previous .card"), "the final trick of the last hand is shown"
    assert len(table.elements("#events li")) > 50
    table.screenshot("hearts")


def _deal_ended(table: Table, event_words: str) -> bool:
    """Whether the page's move log has told the end of a deal (it keeps every line)."""
    return any(event_words in item.text for item in table.elements("#events li"))


def _play_one_deal(table: Table, event_words: str) -> None:
    """Play until the move log tells how the first deal ended (or the game is over).

    The panel of the ended deal lasts only until the next deal's first play, which a bot may
    make at once, so the end is looked for in the log, which keeps every event.
    """
    assert not table.elements("#previous *")
    for _ in range(MAX_MOVES):
        table.wait_turn_or_end()
        if table.finished() or _deal_ended(table, event_words):
            return
        table.play_one()
    pytest.fail(f"the deal did not end after {MAX_MOVES} moves")


def test_a_guandan_deal_with_a_bot_partner(open_table: Callable[[], Table]) -> None:
    table = open_table()
    table.create("guandan", ["HUMAN", BOT, BOT, BOT])
    table.wait_turn_or_end()
    # The levels are per team, the cards left per seat: each table names its own columns.
    levels, counts = table.elements("#scores table")
    assert "you (0) + seat 2" in levels.text and "seat 1 + seat 3" in levels.text
    assert "seat 3" in counts.text.splitlines()[0]
    # G-R13: cards are picked, then played as one of the plays they make, not chosen among
    # every legal play at once (over a hundred at a deal's start).
    assert table.elements("#hand button.pickable")
    assert len(table.elements("#legal button.legal")) <= 1  # at most the pass
    table.elements("#hand button.pickable")[0].click()
    plays = wait_for("the plays of the picked card", lambda: table.texts("#legal button.legal"))
    assert 1 <= len(plays) <= 2, plays
    table.elements("#hand button.pickable.selected")[0].click()  # picked off again
    table.screenshot("guandan")
    _play_one_deal(table, " ended: finishing order ")
    line = next(i.text for i in table.elements("#events li") if " ended: finishing " in i.text)
    assert re.search(r"deal 1 ended: finishing order (seat|you)", line), line
    table.screenshot("guandan-after-deal")


def test_a_klaberjass_deal_against_a_bot(open_table: Callable[[], Table]) -> None:
    table = open_table()
    table.create("klaberjass", ["HUMAN", BOT])
    table.wait_turn_or_end()
    table.screenshot("klaberjass")
    _play_one_deal(table, "deal 1 scored: ")
    # No card of the next deal is played before this seat has bid, so the panel stays.
    wait_for("the final trick of the ended deal", lambda: table.elements("#previous .card"))
    table.screenshot("klaberjass-after-deal")


def test_a_seat_that_joins_sees_the_other_seats_moves_within_a_second(
    open_table: Callable[[], Table],
) -> None:
    first = open_table()
    first.create("hearts", ["HUMAN", "HUMAN", BOT, BOT])
    tokens = first.seat_tokens()
    assert sorted(tokens) == [0, 1] and all(tokens.values())
    # The tokens are secrets: only the invite links carry them, never the page's text.
    assert not any(token in first.page_text() for token in tokens.values())
    second = open_table()
    second.join(first.game_id(), 1, tokens[1])
    assert tokens[1] not in second.page_text()
    wait_for("the joined seat", lambda: second.version() == first.version())
    assert "you are seat 1" in second.browser.find_element("id", "status").text
    tables = {0: first, 1: second}
    for _ in range(6):  # both passes, then the first plays of the hand
        movers = [seat for seat, table in tables.items() if table.my_turn()]
        if not movers:
            wait_for("a human seat's turn", lambda: any(t.my_turn() for t in tables.values()))
            continue
        mover, watcher = tables[movers[0]], tables[1 - movers[0]]
        mover.play_one()
        target = mover.version()
        started = time.monotonic()
        wait_for(
            "the move on the other tab",
            lambda watcher=watcher, target=target: watcher.version() >= target,
            seconds=1.0,
        )
        assert time.monotonic() - started < 1.0
    first.screenshot("two-tabs-seat0")
    second.screenshot("two-tabs-seat1")


def test_a_wrong_seat_token_is_refused_with_its_explanation(
    open_table: Callable[[], Table],
) -> None:
    first = open_table()
    first.create("klaberjass", ["HUMAN", "HUMAN"])
    second = open_table()
    second.join(first.game_id(), 1, "not-the-token")
    error = wait_for("the refusal", lambda: second.error()["shown"] and second.error())
    assert error["reason"] == "TOKEN_INVALID", error
    assert len(error["shown"].splitlines()) >= 2, "the reason and the localized explanation"


def test_guandan_marks_the_wild_cards_g_r5(
    open_table: Callable[[], Table], stub: engine_service_pb2_grpc.EngineServiceStub
) -> None:
    """G-R5: the level's hearts are wild; the page marks them, and no other card."""
    for seed in range(1, 40):  # bounded: a deal where seat 0 holds a two of hearts
        created = stub.CreateGame(
            api.CreateGameRequest(game_type="guandan", seats=[HUMAN] + [HEUR] * 3, seed=seed)
        )
        token = created.seat_tokens[0].token
        hand = stub.GetGameView(
            api.GetGameViewRequest(game_id=created.game_id, seat=0), metadata=token_md(token)
        ).view.guandan.hand
        if any(c.rank == cards_pb2.RANK_TWO and c.suit == cards_pb2.SUIT_HEARTS for c in hand):
            break
    else:
        pytest.fail("no deal of seeds 1..39 gave seat 0 a two of hearts")
    table = open_table()
    table.join(created.game_id, 0, token)
    wait_for("the hand", lambda: table.elements("#hand .card"))
    marked = {
        card.get_attribute("data-card"): "wild" in (card.get_attribute("class") or "")
        for card in table.elements("#hand .card")
    }
    assert marked.pop("2H") is True
    assert not any(marked.values()), marked
