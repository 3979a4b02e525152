"""Deal scoring and the end of the game: K-R9, K-R20, K-R21."""

from __future__ import annotations

import pytest
from klaberjass_positions import play, position

from engine_service.core.errors import IllegalAction
from engine_service.games.klaberjass.actions import PassBid
from engine_service.games.klaberjass.config import EqualTotals, KlaberjassConfig
from engine_service.games.klaberjass.rules import KlaberjassRules
from engine_service.games.klaberjass.scoring import deal_points, deal_scores, game_winners
from engine_service.games.klaberjass.state import KlaberjassState, Phase, SequenceResult

RULES = KlaberjassRules()


@pytest.mark.parametrize(
    ("points", "maker", "scores"),
    [
        ((90, 72), 0, (90, 72)),  # maker more: both score their own
        ((72, 90), 1, (72, 90)),
        ((81, 81), 0, (0, 81)),  # tie: maker nothing, opponent own
        ((81, 81), 1, (81, 0)),
        ((60, 102), 0, (0, 162)),  # bate: the opponent takes both
        ((102, 60), 1, (162, 0)),
    ],
)
def test_k_r9_k_r20_the_maker_must_score_more(
    points: tuple[int, int], maker: int, scores: tuple[int, int]
) -> None:
    assert deal_scores(points, maker) == scores


def test_k_r20_deal_total_is_cards_last_trick_sequence_and_bella() -> None:
    config = KlaberjassConfig()
    run = SequenceResult(1, (), 50)
    assert deal_points((70, 52), (5, 4), run, 0, config) == (90, 102)
    assert deal_points((70, 52), (5, 4), SequenceResult(None), None, config) == (70, 52)


def last_trick(
    totals: tuple[int, int], card_points: tuple[int, int], maker: int = 0
) -> KlaberjassState:
    """The ninth trick, led by seat 0, which seat 0 wins with 0 card points (+10 last trick)."""
    return position(
        ["AC", "7C"],
        leader=0,
        maker=maker,
        tricks_played=8,
        totals=totals,
        card_points=card_points,
        tricks_won=(4, 4),
    )


def test_k_r20_the_deal_is_scored_and_recorded() -> None:
    done = play(RULES, last_trick((100, 40), (60, 50)), "AC 7C")
    deal = done.deals[-1]
    assert (deal.maker, deal.points, deal.scores) == (0, (81, 50), (81, 50))
    assert done.totals == (181, 90)
    assert done.deal_number == 1 and done.dealer == 1 and done.phase is Phase.BIDDING_TURNED_SUIT


def test_k_r21_reaching_the_target_ends_the_game() -> None:
    done = play(RULES, last_trick((420, 300), (60, 50)), "AC 7C")
    assert done.phase is Phase.GAME_OVER and done.winners == (0,) and done.totals == (501, 350)
    outcome = RULES.outcome(done)
    assert outcome is not None and outcome.winners == (0,) and outcome.scores == (501, 350)
    assert RULES.current_seats(done) == () and RULES.legal_actions(done, 0) == ()
    found = RULES.check(done, 0, PassBid())
    assert found is not None and (found.reason, found.rule_id) == ("GAME_OVER", "K-R21")
    with pytest.raises(IllegalAction):
        RULES.apply(done, 1, PassBid())


def test_k_r21_exactly_the_target_is_enough() -> None:
    assert game_winners((500, 10), 1, KlaberjassConfig()) == (0,)
    assert game_winners((499, 10), 1, KlaberjassConfig()) == ()
    assert game_winners((10, 120), 1, KlaberjassConfig(target=100)) == (1,)


def test_k_r21_both_over_the_target_the_higher_total_wins() -> None:
    assert game_winners((530, 560), 0, KlaberjassConfig()) == (1,)
    done = play(RULES, last_trick((450, 480), (60, 90), maker=1), "AC 7C")
    assert done.totals == (531, 570) and done.winners == (1,)


@pytest.mark.parametrize(
    ("rule", "winners"), [(EqualTotals.ANOTHER_DEAL, ()), (EqualTotals.MAKER_WINS, (1,))]
)
def test_k_r21_equal_totals_play_another_deal_or_the_maker_wins(
    rule: EqualTotals, winners: tuple[int, ...]
) -> None:
    assert game_winners((520, 520), 1, KlaberjassConfig(equal_totals=rule)) == winners
