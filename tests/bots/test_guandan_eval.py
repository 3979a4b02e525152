"""The static judgement of a Guandan deal the search stopped playing out, on made-up costs.

No rules are involved: :func:`estimate` sees per-seat costs to go out and the order of the
seats out so far, so each case states its race directly.
"""

from __future__ import annotations

import pytest

from engine_service.bots.guandan_eval import WIN_STEPS, estimate, race_share


def test_race_share_is_even_at_zero_odd_and_bounded() -> None:
    assert race_share(0) == 0.0
    shares = [race_share(ahead) for ahead in range(-30, 31)]
    assert shares == sorted(shares)
    assert all(-1.0 < share < 1.0 for share in shares)
    for ahead in range(1, 30):
        assert race_share(-ahead) == -race_share(ahead)


def test_nobody_out_the_team_with_the_fastest_seat_is_ahead() -> None:
    costs = [10, 14, 4, 12]  # seat 2 (team 0) is closest to going out
    for seat in range(4):
        value = estimate(costs, (), seat)
        assert (value > 0) == (seat % 2 == 0)
        assert abs(value) < WIN_STEPS
    assert estimate([6, 6, 9, 9], (), 0) == 0.0


def test_a_wider_lead_is_worth_more() -> None:
    assert estimate([4, 12, 20, 20], (), 0) > estimate([8, 12, 20, 20], (), 0) > 0


@pytest.mark.parametrize(
    ("costs", "finished", "low", "high"),
    [
        ([None, 9, None, 3], (0, 2), 3.0, 3.0),  # partner second: three levels
        ([None, None, 5, 5], (0, 1), 1.5, 1.5),  # an opponent second, an even race for third
        ([None, None, 8, 3], (0, 1), 1.0, 1.5),  # ... the partner behind: likely last
        ([None, None, 3, 8], (0, 1), 1.5, 2.0),  # ... the partner ahead: likely third
        ([None, 6, 6, 9], (0,), 2.0, 2.0),  # nobody second yet, an even race
    ],
)
def test_once_out_the_winners_and_their_partners_place_decide(
    costs: list[int | None], finished: tuple[int, ...], low: float, high: float
) -> None:
    value = estimate(costs, finished, 0)
    assert low <= value <= high
    assert estimate(costs, finished, 1) == -value


def test_the_first_out_wins_whatever_the_costs_left() -> None:
    ahead = estimate([None, 2, 20, 2], (0,), 0)
    behind = estimate([None, 20, 2, 20], (0,), 0)
    assert 1.0 < ahead < behind < 3.0
    assert estimate([None, 2, 20, 2], (0,), 3) == -ahead
