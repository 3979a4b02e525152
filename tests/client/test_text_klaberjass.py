"""Klaberjass's text forms on hand-built views, and one terminal game against a real service."""

from __future__ import annotations

import io
import random
import re
from dataclasses import replace

import pytest
from cardengine.v1 import cards_pb2, game_pb2, klaberjass_pb2
from cardengine_client import (
    EngineClient,
    format_card,
    klaberjass_dix,
    klaberjass_pass,
    klaberjass_play,
    klaberjass_trump,
    parse_cards,
    parse_suit,
)
from cardengine_client.terminal import describe_event, play
from cardengine_client.text import describe_action, parse_action, render_menu, render_view

from engine_service.api.messages import encode_view
from engine_service.app.play import seat_view
from engine_service.core.record import GameRecord, PlayerKind, SeatRecord
from engine_service.games.klaberjass.config import EqualTotals
from engine_service.registry import REGISTRY

HEURISTIC = game_pb2.PLAYER_TYPE_BOT_HEURISTIC
View = klaberjass_pb2.KlaberjassView


def card(text: str) -> cards_pb2.Card:
    (parsed,) = parse_cards([text])
    return parsed


def trick(leader: int, cards: str, winner: int | None = None) -> klaberjass_pb2.KlaberjassTrick:
    message = klaberjass_pb2.KlaberjassTrick(leader=leader, cards=parse_cards(cards.split()))
    if winner is not None:
        message.winner = winner
    return message


def klaberjass_view(phase=View.PHASE_PLAYING, legal=(), **fields) -> game_pb2.GameView:
    table = klaberjass_pb2.KlaberjassView(
        phase=phase,
        deal_number=2,
        dealer=1,
        hand=parse_cards(["AH", "7C", "KH", "9S", "TC"]),
        hand_sizes=[5, 5],
        turn_up=card("JD"),
        totals=[120, 301],
        card_points=[14, 30],
        tricks_won=[1, 3],
        options=klaberjass_pb2.KlaberjassOptions(target=500),
        **fields,
    )
    return game_pb2.GameView(
        game_id="g2",
        game_type="klaberjass",
        version=40,
        status=game_pb2.GAME_STATUS_IN_PROGRESS,
        viewer_seat=0,
        to_act=[0],
        seats=[game_pb2.PLAYER_TYPE_HUMAN, HEURISTIC],
        legal_actions=list(legal),
        klaberjass=table,
    )


def test_a_bidding_view_shows_the_turn_up_the_bids_and_the_hand():
    bids = [klaberjass_pb2.KlaberjassBid(seat=0, round=1)]
    bids.append(klaberjass_pb2.KlaberjassBid(seat=1, round=1))
    view = klaberjass_view(View.PHASE_BIDDING_OTHER_SUIT, bids=bids)
    text = render_view(view)
    assert "you (human), seat 1 (heuristic bot)" in text
    assert "Deal 3, bidding on another suit; dealer seat 1" in text
    assert "Turn-up: JD\n" in text
    assert "Bids: you passed, seat 1 passed" in text
    assert "Your hand: clubs 7C TC | spades 9S | hearts KH AH" in text
    assert "Trick" not in text and "Trump" not in text
    assert text.endswith("To act: you")


def test_a_playing_view_shows_trump_tricks_sequences_bella_and_scores():
    view = klaberjass_view(
        bottom=card("8S"),
        bids=[klaberjass_pb2.KlaberjassBid(seat=0, round=1, suit=cards_pb2.SUIT_DIAMONDS)],
        trump=cards_pb2.SUIT_DIAMONDS,
        maker=0,
        dix_by=1,
        trick=trick(1, "QD"),
        last_trick=trick(0, "7S AS", winner=1),
        tricks_played=4,
        sequences=klaberjass_pb2.KlaberjassSequences(
            winner=1, cards=parse_cards(["7H", "8H", "9H"]), points=20
        ),
        bella_by=1,
    )
    text = render_view(view)
    assert "Turn-up: JD   bottom of the stock: 8S" in text
    assert "Bids: you took diamonds" in text
    assert "Trump: diamonds, chosen by you; dix swapped by seat 1" in text
    assert "Trick 5: seat 1 QD" in text
    assert "Last trick: you 7S, seat 1 AS -> won by seat 1" in text
    assert "Sequences: seat 1 scores 20 (7H 8H 9H)" in text
    assert "Bella: seat 1" in text
    assert "  seat 1    301              30 pts, 3 tricks" in text


def test_k_r11_after_a_dix_the_turn_up_taken_is_named():
    view = klaberjass_view(trump=cards_pb2.SUIT_DIAMONDS, maker=0, dix_by=1, dix_taken=card("JD"))
    view.klaberjass.turn_up.CopyFrom(card("7D"))
    text = render_view(view)
    assert "Turn-up: 7D\n" in text
    assert "Trump: diamonds, chosen by you; dix swapped by seat 1 for JD" in text


def taken(leader: int, cards: str, winner: int, points: int) -> klaberjass_pb2.KlaberjassTrick:
    message = trick(leader, cards, winner)
    message.points = points
    return message


def test_k_r19_every_trick_taken_this_deal_is_listed_in_order():
    view = klaberjass_view(
        trick=trick(1, ""),
        last_trick=trick(0, "JS 9S", winner=1),
        tricks_played=2,
        completed_tricks=[taken(0, "AC 7C", 0, 11), taken(0, "JS 9S", 1, 2)],
    )
    text = render_view(view)
    assert "Tricks this deal:\n  1. you AC, seat 1 7C -> won by you (+11)\n" in text
    assert "  2. you JS, seat 1 9S -> won by seat 1 (+2)\n" in text
    assert "Last trick" not in text  # the numbered list ends with it


def test_k_r20_the_previous_deal_shows_its_final_trick_and_score_until_the_next_first_card():
    result = klaberjass_pb2.KlaberjassDeal(
        dealer=0, maker=1, trump=cards_pb2.SUIT_HEARTS, points=[41, 7], scores=[48, 0]
    )
    previous = klaberjass_pb2.KlaberjassPreviousDeal(
        deal_number=1,
        result=result,
        tricks=[taken(1, "KD QD", 1, 7), taken(0, "AC 7C", 0, 21)],
        sequences=klaberjass_pb2.KlaberjassSequences(),
        bella_by=0,
    )
    view = klaberjass_view(View.PHASE_BIDDING_TURNED_SUIT, previous_deal=previous)
    lines = render_view(view).splitlines()
    start = lines.index("Deal 2 ended: hearts by seat 1, who went down; points 41-7, scored 48-0")
    assert lines[start + 1 : start + 8] == [
        "  Final trick: you AC, seat 1 7C -> won by you (+21)",
        "  Sequences: none scores",
        "  Bella: you",
        "  Deal points (K-R20):",
        "    you: 11 in cards + 10 last trick (K-R19) + 20 bella (K-R15) = 41",
        "    seat 1: 7 in cards = 7",
        '  Maker seat 1: 7 against 41, less, so the maker is down ("bate"): '
        "you take 41 + 7 = 48, seat 1 0 (K-R20)",
    ]
    assert lines[start + 8].startswith("Deal 3, bidding on the turned suit")


def test_k_r20_equal_totals_give_the_maker_nothing():
    result = klaberjass_pb2.KlaberjassDeal(
        dealer=1, maker=0, trump=cards_pb2.SUIT_CLUBS, points=[41, 41], scores=[0, 41]
    )
    tricks = [
        taken(0, "JC 7D", 0, 20),
        taken(0, "TH AH", 1, 21),
        taken(1, "TS TD", 1, 20),
        taken(1, "8S AS", 0, 21),
    ]
    previous = klaberjass_pb2.KlaberjassPreviousDeal(deal_number=0, result=result, tricks=tricks)
    text = render_view(klaberjass_view(View.PHASE_BIDDING_TURNED_SUIT, previous_deal=previous))
    assert "    you: 31 in cards + 10 last trick (K-R19) = 41\n" in text
    assert "    seat 1: 41 in cards = 41\n" in text
    assert (
        "  Maker you: 41 against 41, not more, so the maker scores 0 and seat 1 keeps 41 (K-R20)"
    ) in text


def test_k_r20_once_the_game_is_over_its_last_deal_is_explained():
    result = klaberjass_pb2.KlaberjassDeal(
        dealer=1, maker=1, trump=cards_pb2.SUIT_HEARTS, points=[0, 128], scores=[0, 128]
    )
    view = klaberjass_view(
        View.PHASE_GAME_OVER,
        trump=cards_pb2.SUIT_HEARTS,
        maker=1,
        deals=[result],
        completed_tricks=[
            taken(0, "JH 9H", 1, 34),
            taken(1, "QC 8C", 1, 3),
            taken(1, "AS 7S", 1, 21),
        ],
        sequences=klaberjass_pb2.KlaberjassSequences(
            winner=1, cards=parse_cards(["9D", "TD", "JD", "QD"]), points=50
        ),
        bella_by=1,
    )
    lines = render_view(view).splitlines()
    start = lines.index("Deal 3 ended: hearts by seat 1, who made it; points 0-128, scored 0-128")
    assert lines[start + 1 : start + 5] == [
        "  Deal points (K-R20):",
        "    you: 0 in cards = 0",
        "    seat 1: 48 in cards + 10 last trick (K-R19) + 50 sequence (K-R12) + 20 bella (K-R15)"
        " = 128",
        "  Maker seat 1: 128 against 0, more, so each keeps its own: seat 1 128, you 0 (K-R20)",
    ]


def test_k_r7_a_thrown_in_previous_deal_says_so():
    previous = klaberjass_pb2.KlaberjassPreviousDeal(
        deal_number=1, result=klaberjass_pb2.KlaberjassDeal(dealer=0)
    )
    view = klaberjass_view(View.PHASE_BIDDING_TURNED_SUIT, previous_deal=previous)
    assert "Deal 2 was thrown in (both passed twice)" in render_view(view)


def klaberjass_event(**fields) -> game_pb2.GameEvent:
    return game_pb2.GameEvent(klaberjass=klaberjass_pb2.KlaberjassEvent(**fields))


K = klaberjass_pb2
EVENT_TEXTS = [
    (
        {"bid_made": K.KlaberjassBidMade(bid=K.KlaberjassBid(seat=1, round=2))},
        "seat 1 passed",
    ),
    (
        {"trump_fixed": K.KlaberjassTrumpFixed(suit=cards_pb2.SUIT_SPADES, maker=0)},
        "trump is spades, chosen by seat 0 (you)",
    ),
    (
        {"deal_thrown_in": K.KlaberjassDealThrownIn(deal_number=3, dealer=1)},
        "deal 4 is thrown in: both passed twice",
    ),
    (
        {"deal_started": K.KlaberjassDealStarted(deal_number=4, dealer=0, turn_up=card("9C"))},
        "deal 5 dealt by seat 0 (you), turn-up 9C",
    ),
    (
        {"cards_dealt": K.KlaberjassCardsDealt(seat=0, cards=parse_cards(["AH", "7C", "KH"]))},
        "seat 0 (you) got 7C KH AH",
    ),
    ({"bottom_shown": K.KlaberjassBottomShown(card=card("8S"))}, "bottom of the stock: 8S"),
    (
        {"dix_swapped": K.KlaberjassDixSwapped(seat=1, taken=card("AD"), seven=card("7D"))},
        "seat 1 swapped 7D for AD",
    ),
    ({"dix_kept": K.KlaberjassDixKept(seat=0)}, "seat 0 (you) did not swap the dix"),
    ({"card_played": K.KlaberjassCardPlayed(seat=1, card=card("QD"))}, "seat 1 played QD"),
    (
        {"bella_scored": K.KlaberjassBellaScored(seat=0, suit=cards_pb2.SUIT_HEARTS, points=20)},
        "bella for seat 0 (you) (+20)",
    ),
    (
        {"trick_taken": K.KlaberjassTrickTaken(number=9, trick=taken(0, "AC 7C", 0, 21))},
        "trick 9: AC 7C, taken by seat 0 (you) (21 points)",
    ),
    (
        {
            "sequences_compared": K.KlaberjassSequencesCompared(
                sequences=K.KlaberjassSequences(
                    winner=1, cards=parse_cards(["7H", "8H", "9H"]), points=20
                )
            )
        },
        "seat 1 scores 20 for sequences: 7H 8H 9H",
    ),
    (
        {
            "deal_scored": K.KlaberjassDealScored(
                deal_number=0, maker=1, points=[81, 50], scores=[131, 0], maker_down=True
            )
        },
        "deal 1 scored: seat 0 (you) 131, seat 1 0; the maker went down",
    ),
    (
        {"game_over": K.KlaberjassGameOver(winners=[1], totals=[420, 512])},
        "game over, won by seat 1",
    ),
]


@pytest.mark.parametrize(("fields", "text"), EVENT_TEXTS)
def test_each_event_is_told_as_a_sentence(fields, text):
    assert describe_event(klaberjass_view(), klaberjass_event(**fields)) == text


def test_every_event_kind_has_its_own_sentence():
    described = {next(iter(fields)) for fields, _ in EVENT_TEXTS}
    oneof = K.KlaberjassEvent.DESCRIPTOR.oneofs_by_name["event"]
    assert described == {member.name for member in oneof.fields}


def test_a_deal_without_a_scoring_sequence_says_so():
    view = klaberjass_view(sequences=klaberjass_pb2.KlaberjassSequences())
    assert "Sequences: none scores" in render_view(view)


@pytest.mark.parametrize(
    ("action", "text"),
    [
        (klaberjass_pass(), "pass"),
        (klaberjass_trump("S"), "trump spades"),
        (klaberjass_dix(True), "dix swap"),
        (klaberjass_dix(False), "dix keep"),
        (klaberjass_play("KH"), "play KH"),
        (klaberjass_play("KH", announce_bella=False), "play KH no-bella"),
        (klaberjass_play("7C", declare_sequences=False), "play 7C no-sequences"),
    ],
)
def test_each_move_is_described_and_the_description_reads_back(action, text):
    assert describe_action(action) == text
    assert parse_action(klaberjass_view(), text) == action


def test_the_menu_numbers_the_legal_moves():
    view = klaberjass_view(View.PHASE_DIX, legal=[klaberjass_dix(True), klaberjass_dix(False)])
    assert render_menu(view) == "   1) dix swap\n   2) dix keep"
    assert parse_action(view, "2") == klaberjass_dix(False)


@pytest.mark.parametrize(
    ("typed", "action"),
    [
        ("PASS", klaberjass_pass()),
        ("hearts", klaberjass_trump("H")),
        ("h", klaberjass_trump(cards_pb2.SUIT_HEARTS)),
        ("take c", klaberjass_trump("clubs")),
        ("swap", klaberjass_dix(True)),
        ("keep", klaberjass_dix(False)),
        ("kh", klaberjass_play("KH")),
        ("10c", klaberjass_play("TC")),
        ("play qd no-bella", klaberjass_play("QD", announce_bella=False)),
        (
            "KH no-bella no-sequences",
            klaberjass_play("KH", announce_bella=False, declare_sequences=False),
        ),
    ],
)
def test_typed_moves_are_read_as_words(typed, action):
    assert parse_action(klaberjass_view(), typed) == action


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("zz", "not a card"),
        ("KH bella", "not 'bella'"),
        ("trump x", "not a suit"),
        ("", "type a move"),
    ],
)
def test_typing_mistakes_are_explained(typed, message):
    with pytest.raises(ValueError, match=message):
        parse_action(klaberjass_view(), typed)


def test_parse_suit_takes_letters_and_names():
    assert parse_suit(" d ") == parse_suit("Diamonds") == cards_pb2.SUIT_DIAMONDS


@pytest.mark.service
def test_the_terminal_plays_a_klaberjass_game_against_one_heuristic_bot(engine_address):
    """What ``make play GAME=klaberjass`` runs: seat 0 for the person, a heuristic bot in seat 1."""
    output = io.StringIO()
    with EngineClient(engine_address) as client:
        final = play(client, "klaberjass", input_fn=lambda _prompt: "1", output=output, seed=7)
    text = output.getvalue()
    assert list(final.seats) == [game_pb2.PLAYER_TYPE_HUMAN, HEURISTIC]
    assert final.klaberjass.phase == View.PHASE_GAME_OVER
    assert max(final.outcome.scores) >= 500  # K-R21
    assert "Deal 1, " in text and "Your hand: " in text and "Game over." in text
    assert "Refused" not in text


# -- K-R20: the score explained, checked over many random games through the real rules -------

CARD_POINTS = {"J": 2, "A": 11, "T": 10, "K": 4, "Q": 3}  # K-R3, plain suits
TRUMP_POINTS = {**CARD_POINTS, "J": 20, "9": 14}  # K-R3, trump
SEAT_LINE = re.compile(r"^    (you|seat \d): (.+) = (\d+)$")
TERM = re.compile(r"^(\d+) (in cards|last trick \(K-R19\)|sequences? \(K-R12\)|bella \(K-R15\))$")
MADE = re.compile(
    r"^  Maker (you|seat \d): (\d+) against (\d+), more, so each keeps its own: "
    r"(you|seat \d) (\d+), (you|seat \d) (\d+) \(K-R20\)$"
)
EQUAL = re.compile(
    r"^  Maker (you|seat \d): (\d+) against (\d+), not more, so the maker scores 0 and "
    r"(you|seat \d) keeps? (\d+) \(K-R20\)$"
)
DOWN = re.compile(
    r'^  Maker (you|seat \d): (\d+) against (\d+), less, so the maker is down \("bate"\): '
    r"(you|seat \d) takes? (\d+) \+ (\d+) = (\d+), (you|seat \d) 0 \(K-R20\)$"
)


def seat_numbers(view: game_pb2.GameView):
    """The seat number a name in the text stands for (``"you"``: the viewer)."""

    def seat_of(name: str) -> int:
        return view.viewer_seat if name == "you" else int(name.removeprefix("seat "))

    return seat_of


def k_r3_points(trick: klaberjass_pb2.KlaberjassTrick, trump: int) -> int:
    """The card points of a trick's cards (K-R3), worked out here from the cards alone."""
    total = 0
    for played in trick.cards:
        rank = format_card(played)[:-1]
        table = TRUMP_POINTS if played.suit == trump else CARD_POINTS
        total += table.get(rank, 0)
    return total


def check_explanation(view: game_pb2.GameView, deal: klaberjass_pb2.KlaberjassDeal, tricks):
    """The explanation's terms add up to each seat's total and the maker rule to the scores."""
    lines = render_view(view).splitlines()
    start = lines.index("  Deal points (K-R20):")
    seat_of = seat_numbers(view)
    cards_by_seat = [0, 0]
    for trick in tricks:
        cards_by_seat[trick.winner] += k_r3_points(trick, deal.trump)
    for seat in (0, 1):
        match = SEAT_LINE.match(lines[start + 1 + seat])
        assert match, lines[start + 1 + seat]
        assert seat_of(match[1]) == seat
        terms = [TERM.match(term) for term in match[2].split(" + ")]
        assert all(terms), match[2]
        parts = {term[2].split(" (")[0]: int(term[1]) for term in terms if term}
        assert sum(parts.values()) == int(match[3]) == deal.points[seat]
        assert parts["in cards"] == cards_by_seat[seat]
        assert ("last trick" in parts) == (tricks[-1].winner == seat)
        assert parts.get("last trick", 10) == 10 and parts.get("bella", 20) == 20
    rule = next(line for line in lines[start + 3 :] if line.startswith("  Maker "))
    maker, other = deal.maker, 1 - deal.maker
    if made := MADE.match(rule):
        assert deal.points[maker] > deal.points[other]
        assert (seat_of(made[1]), int(made[2]), int(made[3])) == (
            maker,
            deal.points[maker],
            deal.points[other],
        )
        assert (seat_of(made[4]), int(made[5])) == (maker, deal.scores[maker])
        assert (seat_of(made[6]), int(made[7])) == (other, deal.scores[other])
        assert deal.scores[maker] == deal.points[maker]
    elif equal := EQUAL.match(rule):
        assert deal.points[maker] == deal.points[other] == int(equal[2]) == int(equal[3])
        assert (seat_of(equal[4]), int(equal[5])) == (other, deal.scores[other])
        assert deal.scores[maker] == 0
    else:
        down = DOWN.match(rule)
        assert down, rule
        assert (seat_of(down[1]), int(down[2]), int(down[3])) == (
            maker,
            deal.points[maker],
            deal.points[other],
        )
        assert int(down[2]) < int(down[3])
        assert seat_of(down[4]) == other and seat_of(down[8]) == maker
        assert int(down[5]) + int(down[6]) == int(down[7]) == deal.scores[other]
        assert (int(down[5]), int(down[6])) == (deal.points[other], deal.points[maker])
        assert deal.scores[maker] == 0
    return rule


OPTION_SETS = [
    {},
    {"score_all_winner_sequences": True},
    {"melds_need_a_trick": True},
    {"auto_declare_sequences": False, "melds_need_a_trick": True},
    {"equal_totals": EqualTotals.MAKER_WINS, "target": 300},
]


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda options: ",".join(options) or "default")
def test_k_r20_the_explained_score_adds_up_over_many_random_games(options):
    spec = REGISTRY["klaberjass"]
    config = replace(spec.config_type(), **options)
    rules = spec.make_rules(config)
    seats = (SeatRecord(PlayerKind.HUMAN), SeatRecord(PlayerKind.RANDOM_BOT))
    rules_seen = set()
    for seed in range(20):
        rng = random.Random(seed)
        state = rules.new_game(seed)
        version = 0
        explained = -1
        while rules.outcome(state) is None:
            seat = rules.current_seats(state)[0]
            state = rules.apply(state, seat, rng.choice(list(rules.legal_actions(state, seat))))
            version += 1
            finished = state.previous_deal
            if finished is None or finished.deal_number == explained:
                continue
            explained = finished.deal_number
            record = GameRecord("klaberjass", config, seed, seats, state)
            view = encode_view(seat_view(rules, "g", record, version, seed % 2))
            previous = view.klaberjass.previous_deal
            if previous.result.HasField("maker"):
                rule = check_explanation(view, previous.result, previous.tricks)
                rules_seen.add(rule.split(", ")[1])
        record = GameRecord("klaberjass", config, seed, seats, state)
        view = encode_view(seat_view(rules, "g", record, version, seed % 2))
        table = view.klaberjass
        assert table.phase == View.PHASE_GAME_OVER
        check_explanation(view, table.deals[-1], table.completed_tricks)
    assert {"more", "less"} <= rules_seen  # both the made deal and the "bate" were met
