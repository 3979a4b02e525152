"""Guandan's text forms on hand-built views, and one terminal match against the real service."""

from __future__ import annotations

import io
import random

import pytest
from cardengine.v1 import cards_pb2, game_pb2, guandan_pb2
from cardengine_client import (
    EngineClient,
    card_sort_key,
    format_card,
    format_cards,
    format_reading,
    guandan_pass,
    guandan_play,
    guandan_return,
    parse_card,
    parse_cards,
    parse_reading,
)
from cardengine_client.terminal import _human_vs_bots, play
from cardengine_client.text import (
    describe_action,
    describe_event,
    parse_action,
    render_menu,
    render_view,
)
from cardengine_client.text.guandan import render_hand

from engine_service.api.messages import encode_view
from engine_service.app.play import seat_view
from engine_service.core.record import GameRecord, PlayerKind, SeatRecord
from engine_service.registry import REGISTRY

HUMAN = game_pb2.PLAYER_TYPE_HUMAN
HEURISTIC = game_pb2.PLAYER_TYPE_BOT_HEURISTIC
View = guandan_pb2.GuandanView
LEVEL_SEVEN = cards_pb2.RANK_SEVEN


def reading(text: str) -> guandan_pb2.GuandanReading:
    return parse_reading(text)


def guandan_view(phase=View.PHASE_PLAYING, legal=(), **fields) -> game_pb2.GameView:
    guandan = View(
        phase=phase,
        deal_number=2,
        levels=[LEVEL_SEVEN, cards_pb2.RANK_FOUR],
        level=LEVEL_SEVEN,
        declarer=0,
        hand=parse_cards(["RJ", "7H", "3C", "AS", "7C", "3D", "8S", "8D", "8C", "9C"]),
        card_counts=[10, -1, 14, 3],
        **fields,
    )
    return game_pb2.GameView(
        game_id="g7",
        game_type="guandan",
        version=40,
        status=game_pb2.GAME_STATUS_IN_PROGRESS,
        viewer_seat=0,
        to_act=[0],
        seats=[HUMAN, HEURISTIC, HEURISTIC, HEURISTIC],
        legal_actions=list(legal),
        guandan=guandan,
    )


def test_jokers_are_bj_and_rj_without_a_suit_and_sort_last():
    red = parse_card("rj")
    assert (red.rank, red.suit) == (cards_pb2.RANK_RED_JOKER, cards_pb2.SUIT_UNSPECIFIED)
    assert format_card(parse_card("BJ")) == "BJ"
    assert format_cards(sorted(parse_cards(["RJ", "AH", "BJ", "2C"]), key=card_sort_key)) == (
        "2C AH BJ RJ"
    )


def test_readings_read_and_write_as_the_service_does():
    assert format_reading(parse_reading("full_house:8:5")) == "full_house:8:5"
    assert format_reading(parse_reading("Straight:A:5")) == "straight:14:5"
    assert parse_reading("pair:rj:2").rank == cards_pb2.RANK_RED_JOKER
    for bad in ("pair:8", "triple:1:3", "wing:8:5", "pair:8:two"):
        with pytest.raises(ValueError, match="not a reading"):
            parse_reading(bad)


def test_g_r3_g_r5_the_hand_runs_weakest_to_strongest_with_the_level_lifted():
    hand = parse_cards(["RJ", "7H", "3C", "AS", "7C", "3D", "BJ"])
    assert render_hand(hand, LEVEL_SEVEN) == "3C-3D AS 7C-7H BJ RJ  (wild 7H)"


def test_a_playing_view_shows_levels_counts_the_play_to_beat_and_the_finish():
    top = guandan_pb2.GuandanTopPlay(
        seat=3, cards=parse_cards(["5C", "5D"]), reading=reading("pair:5:2")
    )
    text = render_view(guandan_view(top=top, passed=[1], finished=[2]))
    assert "Deal 3, playing, level 7 (you & seat 2's level)" in text
    assert "Levels: you & seat 2 at 7, seat 1 & seat 3 at 4" in text
    assert "Your hand (10): 3C-3D 8C-8D-8S 9C AS 7C-7H RJ  (wild 7H)" in text
    assert "Cards left: you 10, seat 1 ?, seat 2 14, seat 3 3" in text  # G-R23: hidden count
    assert "To beat: seat 3 pair of fives: 5C 5D   (passed: seat 1)" in text
    assert "Finished: 1st seat 2" in text
    assert text.endswith("To act: you")


def test_a_returning_view_shows_the_tribute_and_the_returns_shown():
    tributes = [
        guandan_pb2.GuandanTribute(payer=1, receiver=0, card=parse_card("RJ")),
        guandan_pb2.GuandanTribute(
            payer=3, receiver=2, card=parse_card("AS"), returned=parse_card("4C")
        ),
    ]
    text = render_view(guandan_view(View.PHASE_RETURNING, tributes=tributes))
    assert "Deal 3, returning tribute, level 7" in text
    assert "Tribute: seat 1 gave RJ to you\n" in text
    assert "Tribute: seat 3 gave AS to seat 2, got back 4C" in text


def round_entry(seat, reading_text=None, cards=()):
    if reading_text is None:
        return guandan_pb2.GuandanRoundEntry(seat=seat, pass_turn=guandan_pb2.GuandanPassTurn())
    play = guandan_pb2.GuandanPlay(cards=parse_cards(list(cards)), reading=reading(reading_text))
    return guandan_pb2.GuandanRoundEntry(seat=seat, play=play)


def test_g_r17_the_round_so_far_is_listed_plays_and_passes():
    history = [
        round_entry(3, "pair:5:2", ["5C", "5D"]),
        round_entry(0),
        round_entry(1, "pair:9:2", ["9C", "9S"]),
    ]
    text = render_view(guandan_view(round_history=history))
    assert "This round: seat 3 pair of fives: 5C 5D; you pass; seat 1 pair of nines: 9C 9S" in text


def test_g_r24_the_deal_just_ended_is_shown_with_its_promotion_and_last_round():
    result = guandan_pb2.GuandanDealResult(
        deal_number=1,
        level=cards_pb2.RANK_FOUR,
        order=[0, 2],
        team=0,
        steps=3,
        levels_before=[cards_pb2.RANK_FOUR, cards_pb2.RANK_FOUR],
        levels=[LEVEL_SEVEN, cards_pb2.RANK_FOUR],
        last_plays=[round_entry(1, "single:13:1", ["KC"]), round_entry(2, "single:16:1", ["RJ"])],
    )
    text = render_view(
        guandan_view(View.PHASE_RETURNING, previous_deal=result, previous_order=[0, 2])
    )
    assert "Deal 2 (level 4) ended: 1st you, 2nd seat 2" in text
    assert "Level change: you & seat 2 4 -> 7 (up 3), seat 1 & seat 3 stay at 4" in text
    assert "Why: you 1st, partner seat 2 2nd: up 3 for you & seat 2 (G-R24)" in text
    assert "Its last round: seat 1 single king: KC; seat 2 single red joker: RJ" in text
    assert "Previous deal's finish" not in text
    later = render_view(guandan_view(previous_order=[0, 2]))
    assert "Previous deal's finish: you, seat 2" in later


A, Q, NINE = cards_pb2.RANK_ACE, cards_pb2.RANK_QUEEN, cards_pb2.RANK_NINE
TWO, FOUR, FIVE = cards_pb2.RANK_TWO, cards_pb2.RANK_FOUR, cards_pb2.RANK_FIVE


def ended_view(order, team, steps, before, after, level) -> str:
    result = guandan_pb2.GuandanDealResult(
        deal_number=4,
        level=level,
        order=order,
        team=team,
        steps=steps,
        levels_before=before,
        levels=after,
        last_plays=[round_entry(order[0], "single:13:1", ["KC"])],
    )
    return render_view(guandan_view(View.PHASE_RETURNING, previous_deal=result))


def test_g_r24_a_1_3_finish_goes_up_two():
    text = ended_view([3, 0, 1, 2], 1, 2, [FOUR, FIVE], [FOUR, cards_pb2.RANK_SEVEN], FIVE)
    assert "Deal 5 (level 5) ended: 1st seat 3, 2nd you, 3rd seat 1, 4th seat 2" in text
    assert "Level change: you & seat 2 stay at 4, seat 1 & seat 3 5 -> 7 (up 2)" in text
    assert "Why: seat 3 1st, partner seat 1 3rd: up 2 for seat 1 & seat 3 (G-R24)\n" in text


def test_g_r25_a_promotion_stops_at_a():
    text = ended_view([1, 3], 1, 2, [FOUR, Q], [FOUR, A], Q)
    assert "Level change: you & seat 2 stay at 4, seat 1 & seat 3 Q -> A (up 2)" in text
    assert (
        "Why: seat 1 1st, partner seat 3 2nd: up 3 for seat 1 & seat 3 (G-R24), "
        "but levels stop at A, so up 2 (G-R25)\n"
    ) in text


def test_g_r26_a_1_4_finish_at_a_only_keeps_the_team_at_a():
    text = ended_view([0, 1, 3, 2], 0, 0, [A, FOUR], [A, FOUR], A)
    assert "Level change: you & seat 2 stay at A, seat 1 & seat 3 stay at 4" in text
    assert (
        "Why: you 1st, partner seat 2 4th: up 1 for you & seat 2 (G-R24), but levels stop at A, "
        "so up 0 (G-R25); no match win: a 1-4 finish at A only keeps the team at A (G-R26)\n"
    ) in text


def test_g_r26_a_win_in_a_deal_played_below_a_never_wins_the_match():
    text = ended_view([2, 0], 0, 0, [A, NINE], [A, NINE], NINE)
    assert "no match win: the deal was played at 9, not A (G-R26)" in text


def test_g_r27_a_team_out_of_attempts_at_a_drops_back_to_two():
    text = ended_view([1, 2, 0, 3], 1, 1, [A, FOUR], [TWO, FIVE], A)
    assert "Level change: you & seat 2 A -> 2, seat 1 & seat 3 4 -> 5 (up 1)" in text
    assert (
        "Why: seat 1 1st, partner seat 3 4th: up 1 for seat 1 & seat 3 (G-R24); "
        "you & seat 2 used up their attempts at A and drop back to 2 (G-R27)\n"
    ) in text


def test_g_r26_the_finish_that_won_the_match_is_named():
    view = guandan_view(View.PHASE_GAME_OVER, finished=[2, 1, 0])
    view.status = game_pb2.GAME_STATUS_FINISHED
    text = render_view(view)
    assert (
        "Match won by you & seat 2 (G-R26): at A, in a deal played at A, "
        "with seat 2 1st, partner you 3rd"
    ) in text


def test_g_r24_the_why_agrees_with_every_deal_of_a_match_under_the_real_rules():
    """A whole match of heuristic bots through the real rules and codec: each deal's "Why"
    names the partner's place that its promotion comes from."""
    spec = REGISTRY["guandan"]
    config = spec.config_type()
    rules = spec.make_rules(config)
    bot = spec.bots["heuristic"]
    seats = (SeatRecord(PlayerKind.HUMAN),) + (SeatRecord(PlayerKind.HEURISTIC_BOT),) * 3
    rng = random.Random(3)
    state = rules.new_game(3)
    version, explained = 0, -1
    steps_by_place = {"2nd": 3, "3rd": 2, "4th": 1}
    while rules.outcome(state) is None:
        seat = rules.current_seats(state)[0]
        legal = list(rules.legal_actions(state, seat))
        state = rules.apply(state, seat, bot.choose(rules.view(state, seat), legal, rng))
        version += 1
        if state.previous_deal is None or state.previous_deal.deal_number == explained:
            continue
        explained = state.previous_deal.deal_number
        record = GameRecord("guandan", config, 3, seats, state)
        view = encode_view(seat_view(rules, "g", record, version, 0))
        result = view.guandan.previous_deal
        why = next(line for line in render_view(view).splitlines() if line.startswith("Why: "))
        place = why.split(": ")[1].split(", partner ")[1].split()[-1]
        nominal = steps_by_place[place]
        assert f"up {nominal} for " in why
        before = result.levels_before[result.team]
        assert result.steps == min(before + nominal, A) - before  # G-R24, G-R25
        assert (result.steps < nominal) == ("levels stop at A" in why)
    record = GameRecord("guandan", config, 3, seats, state)
    text = render_view(encode_view(seat_view(rules, "g", record, version, 0)))
    assert "Match won by " in text and "(G-R26)" in text
    assert explained >= 3


def guandan_event(**fields):
    return game_pb2.GameEvent(guandan=guandan_pb2.GuandanEvent(**fields))


def test_events_are_told_as_short_sentences():
    """G-R18, G-R19, G-R24, G-R33, G-R37: each event kind has its own sentence."""
    view = guandan_view()
    played = guandan_pb2.GuandanCardsPlayed(
        seat=1, cards=parse_cards(["9C", "9S"]), reading=reading("pair:9:2")
    )
    told = {
        "cards_played": (played, "seat 1 played a pair: 9C 9S"),
        "turn_passed": (guandan_pb2.GuandanTurnPassed(seat=0), "seat 0 (you) passed"),
        "trick_won": (
            guandan_pb2.GuandanTrickWon(winner=1, leader=3),
            "seat 1 won the round; seat 3 leads",
        ),
        "player_finished": (
            guandan_pb2.GuandanPlayerFinished(seat=2, place=1),
            "seat 2 went out, place 1",
        ),
        "deal_ended": (
            guandan_pb2.GuandanDealEnded(
                deal_number=2, order=[0, 2], team=0, steps=3, levels=[LEVEL_SEVEN, 4]
            ),
            "deal 3 ended: finishing order seat 0 (you), seat 2; seat 0 (you) & seat 2 go up 3",
        ),
        "level_changed": (
            guandan_pb2.GuandanLevelChanged(team=1, before=14, after=2),
            "seat 1 & seat 3: level A → 2",
        ),
        "deal_started": (
            guandan_pb2.GuandanDealStarted(deal_number=3, level=LEVEL_SEVEN, declarer=0, leader=3),
            "deal 4 at level 7 (seat 0 (you) & seat 2); seat 3 leads",
        ),
        "cards_dealt": (
            guandan_pb2.GuandanCardsDealt(seat=0, cards=parse_cards(["7H", "3C"])),
            "seat 0 (you) got 3C 7H*",
        ),
        "tribute_paid": (
            guandan_pb2.GuandanTributePaid(payer=1, receiver=0, card=parse_card("RJ")),
            "seat 1 paid RJ in tribute to seat 0 (you)",
        ),
        "anti_tribute": (
            guandan_pb2.GuandanAntiTribute(payers=[1, 3], red_joker_holders=[3, 3]),
            "no tribute: seat 1, seat 3 hold both red jokers",
        ),
        "return_chosen": (
            guandan_pb2.GuandanReturnChosen(returner=0, payer=1, card=parse_card("4C")),
            "seat 0 (you) will return 4C to seat 1",
        ),
        "card_returned": (
            guandan_pb2.GuandanCardReturned(returner=2, payer=3, card=parse_card("5D")),
            "seat 2 returned 5D to seat 3",
        ),
        "match_over": (
            guandan_pb2.GuandanMatchOver(winners=[1, 3]),
            "match over, won by seat 1, seat 3",
        ),
    }
    assert set(told) == {f.name for f in guandan_pb2.GuandanEvent.DESCRIPTOR.fields}
    for kind, (message, text) in told.items():
        assert describe_event(view, guandan_event(**{kind: message})) == text
    mine = guandan_pb2.GuandanCardsPlayed(seat=0, cards=played.cards, reading=played.reading)
    assert describe_event(view, guandan_event(cards_played=mine)).startswith("seat 0 (you) played ")
    assert describe_event(view, guandan_event()) is None


def test_an_anti_tribute_names_the_red_joker_holders_g_r33():
    text = render_view(guandan_view(anti_tribute=True, red_joker_holders=[1, 3]))
    assert "No tribute this deal (anti-tribute: red jokers held by seat 1, seat 3)" in text


def test_moves_are_described_as_the_service_writes_them():
    play_action = guandan_play(["8C", "8D", "8S", "5H", "5H"], "full_house:8:5")
    assert describe_action(play_action) == "play full house, eights over fives: 8C 8D 8S 5H 5H"
    assert describe_action(guandan_pass()) == "pass"
    assert describe_action(guandan_return("4c")) == "return 4C"
    menu = render_menu(guandan_view(legal=[play_action, guandan_pass()]))
    assert menu == "   1) play full house, eights over fives: 8C 8D 8S 5H 5H\n   2) pass"


def test_typed_cards_take_their_reading_from_the_legal_plays():
    pairs = [guandan_play(["8C", "8D"], "pair:8:2"), guandan_play(["3C", "3D"], "pair:3:2")]
    view = guandan_view(legal=[*pairs, guandan_pass()])
    # same ranks in other suits: the service accepts any suits that support the reading
    assert parse_action(view, "8s 8d") == guandan_play(["8S", "8D"], "pair:8:2")
    assert parse_action(view, "play 3C 3D") == pairs[1]
    assert parse_action(view, "pass") == guandan_pass()
    assert parse_action(view, "8C 9C pair:9:2") == guandan_play(["8C", "9C"], "pair:9:2")


def test_g_r13_several_readings_ask_the_player_to_choose():
    cards = ["8C", "8D", "8S", "7H", "7H"]
    view = guandan_view(
        legal=[guandan_play(cards, "bomb:8:5"), guandan_play(cards, "full_house:8:5")]
    )
    with pytest.raises(ValueError, match="bomb:8:5 or full_house:8:5"):
        parse_action(view, " ".join(cards))
    assert parse_action(view, " ".join(cards) + " bomb:8:5") == guandan_play(cards, "bomb:8:5")


def test_a_straight_flush_reading_needs_one_suit():
    run = ["5C", "6C", "7C", "8C", "9C"]
    mixed = ["5C", "6C", "7C", "8C", "9D"]
    view = guandan_view(
        legal=[guandan_play(mixed, "straight:9:5"), guandan_play(run, "straight_flush:9:5")]
    )
    assert parse_action(view, " ".join(mixed)).guandan.play.reading == reading("straight:9:5")
    with pytest.raises(ValueError, match="straight:9:5 or straight_flush:9:5"):
        parse_action(view, " ".join(run))


def test_a_single_card_while_returning_is_a_return():
    view = guandan_view(View.PHASE_RETURNING)
    assert parse_action(view, "3C") == guandan_return("3C")
    assert parse_action(guandan_view(), "return 3C") == guandan_return("3C")


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("8C 9C", "no legal play uses 8C 9C"),
        ("pass 8C", "takes no cards"),
        ("return 3C 3D", "return one card"),
        ("play", "name the cards"),
        ("8C pair:8:2 pair:8:2", "at most one reading"),
        ("zz", "not a card"),
        ("8C 8D pair:8", "not a reading"),
    ],
)
def test_typing_mistakes_are_explained(typed, message):
    with pytest.raises(ValueError, match=message):
        parse_action(guandan_view(), typed)


@pytest.mark.service
def test_the_terminal_plays_a_whole_guandan_match_seat_0_with_a_bot_partner(engine_address):
    """The person at seat 0, heuristic bots at seats 1, 2 and 3 (``--partner heuristic``)."""
    output = io.StringIO()
    with EngineClient(engine_address) as client:
        final = play(
            client,
            "guandan",
            input_fn=lambda _prompt: "1",
            output=output,
            seed=2,
            partner="heuristic",
        )
    text = output.getvalue()
    assert final.status == game_pb2.GAME_STATUS_FINISHED
    assert list(final.seats) == [HUMAN, HEURISTIC, HEURISTIC, HEURISTIC]
    assert "you & seat 2 at" in text
    assert "Your hand (27):" in text
    assert "Refused" not in text
    assert "Game over." in text


@pytest.mark.service
def test_make_play_guandan_seats_a_search_partner(engine_address):
    """``make play GAME=guandan``: the partner opposite the person is the search bot."""
    with EngineClient(engine_address) as client:
        assert _human_vs_bots(client, "guandan") == ["human", "heuristic", "search", "heuristic"]
        assert _human_vs_bots(client, "guandan", "random", "heuristic") == [
            "human",
            "random",
            "heuristic",
            "random",
        ]
        assert _human_vs_bots(client, "hearts", "search") == ["human"] + ["search"] * 3
