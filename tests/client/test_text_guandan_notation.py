"""The terminal client names Guandan plays exactly as the service's notation does (G-R8 .. G-R16).

The client package does not depend on the service, so it writes the notation again over the
messages; this test holds the two to the same text over every distinct play of random hands
at random levels, both wilds included.
"""

from __future__ import annotations

import random

from cardengine.v1 import cards_pb2, game_pb2, guandan_pb2
from cardengine_client import parse_cards, parse_reading
from cardengine_client.text import render_view
from cardengine_client.text.guandan import describe_play, format_play_cards

from engine_service.codec.cards import encode_kinds
from engine_service.codec.guandan import encode_reading
from engine_service.core.cards import Suit
from engine_service.games.guandan import notation
from engine_service.games.guandan.cards import deck, hand_of, kind_of
from engine_service.games.guandan.combos import plays
from engine_service.games.guandan.config import GuandanConfig


def test_g_r8_every_listed_play_reads_the_same_in_the_client_and_the_service():
    """G-R8, G-R13a: 100 random hands, every distinct play, client text == service text."""
    rng = random.Random(77)
    config = GuandanConfig()
    compared = 0
    for _ in range(100):
        level = rng.randint(2, 14)
        wild = kind_of(level, Suit.HEARTS)
        held = [*[k for k in rng.sample(deck(), 27) if k != wild][:25], wild, wild]
        for play in plays(hand_of(held), level, None, config):
            cards = encode_kinds(rng.sample(play.cards, len(play.cards)))
            client = describe_play(cards, encode_reading(play.reading), level)
            assert client == notation.describe_play(play.cards, play.reading, level), play
            compared += 1
    assert compared > 5_000


def test_g_r5_the_play_to_beat_marks_its_wild_card_and_sorts_by_the_level():
    """G-R3, G-R5: at level 7 the 7H in a pair of eights is wild and written last."""
    top = guandan_pb2.GuandanTopPlay(
        seat=3, cards=parse_cards(["7H", "8D"]), reading=parse_reading("pair:8:2")
    )
    view = game_pb2.GameView(
        game_type="guandan",
        viewer_seat=0,
        seats=[game_pb2.PLAYER_TYPE_HUMAN] * 4,
        guandan=guandan_pb2.GuandanView(
            phase=guandan_pb2.GuandanView.PHASE_PLAYING, level=cards_pb2.RANK_SEVEN, top=top
        ),
    )
    assert "To beat: seat 3 pair of eights: 8D 7H*" in render_view(view)
    cards = parse_cards(["RJ", "7H", "AS", "2C", "7D"])
    assert format_play_cards(cards, cards_pb2.RANK_SEVEN) == "2C AS 7D 7H* RJ"
    assert format_play_cards(cards) == "2C 7D 7H AS RJ"
