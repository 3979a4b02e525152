"""The shared deal shuffle gives exactly the standard library's order, so old games replay."""

from __future__ import annotations

import random

import pytest

from engine_service.core.shuffle import shuffled


@pytest.mark.parametrize("size", [0, 1, 2, 32, 52, 108])
def test_shuffled_is_the_order_random_shuffle_gives_for_every_seed_and_deal(size: int) -> None:
    for seed in range(300):
        for deal_number in (0, 1, 7):
            expected = list(range(size))
            random.Random(f"{seed}:{deal_number}").shuffle(expected)
            assert shuffled(range(size), seed, deal_number) == expected
