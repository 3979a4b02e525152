"""OpenSpiel's Hearts beside ours: the rule set, the card and action mapping, ISMCTS seats.

OpenSpiel numbers a card ``rank * 4 + suit`` with suits clubs, diamonds, hearts, spades; we
number it ``suit * 13 + rank`` with clubs, diamonds, spades, hearts. Seats are the same
(0..3, play to seat + 1, "left" is seat + 1, as both pass). Its chance outcomes are the pass
direction first, then the 52 cards, the k-th going to player ``k % 4``: :func:`deal_actions`
turns one of our deals into that sequence.

ISMCTS seats get only their own information. In play they are handed a state resampled from
their information state (``resample_from_infostate``), never the true one. OpenSpiel 2.0.2's
resampling is wrong while passing for every player but the first to pass (the rollouts then
reach states without legal moves, and the C++ bot crashes), so a pass is chosen on a private
state instead: the passer's hand dealt to player 0, the other 39 cards dealt at random, the
same direction. That is exactly what a passer knows, since a pass is chosen before anybody
else's is seen.
"""

from __future__ import annotations

import importlib
import random
import time
from collections.abc import Sequence
from functools import cache
from typing import Any, Final

from engine_service.core.cards import SUIT_SIZE, Suit, cards_in
from engine_service.games.hearts.config import FirstTrickBan, HeartsConfig

SPIEL_PARAMETERS: Final[dict[str, bool]] = {
    "pass_cards": True,
    "no_pts_on_first_trick": True,
    "can_lead_any_club": False,
    "jd_bonus": False,
    "avoid_all_tricks_bonus": False,
    "must_break_hearts": True,
    "qs_breaks_hearts": False,
    "can_lead_hearts_instead_of_qs": False,
}
"""OpenSpiel's Hearts as close to GameTwist's Special game as its parameters allow."""

COMMON_CONFIG: Final = HeartsConfig(first_trick_ban=FirstTrickBan.QUEEN_OF_SPADES_AND_HEARTS)
"""Our Special rules with the one change needed for both engines to agree on every move.

OpenSpiel either bans hearts and the queen from the first trick or bans nothing; GameTwist
bans the queen alone, so both play with hearts banned too (our H-R5a option).
"""

DIFFERENCES: Final = (
    "First trick: hearts are banned as well as the queen of spades (GameTwist bans only the "
    "queen); OpenSpiel has no queen-only ban, so our side plays the `first_trick_ban = "
    "queen_of_spades_and_hearts` option and both engines agree on every legal move.",
    "Shooting the moon: OpenSpiel gives each opponent 26 points, GameTwist 13; the hands are "
    "scored by our rules (13), but ISMCTS searches for OpenSpiel's returns (26 minus points).",
    "One hand per game: OpenSpiel's Hearts is a single deal, so ISMCTS plays every hand as if "
    "it were the last, without the running totals, the target of 100 or the Special end "
    "rules (perfect hand, tie); the tournament also scores hand by hand.",
    "Passing: OpenSpiel passes one card at a time, seat 0 first; ours is simultaneous. No "
    "seat sees another's pass either way.",
)
"""What still differs between the two games, printed with the results."""

_OUR_SUIT_TO_SPIEL: Final = {Suit.CLUBS: 0, Suit.DIAMONDS: 1, Suit.SPADES: 3, Suit.HEARTS: 2}
PASS_DIRECTION_ACTION: Final = {1: 1, 2: 2, 3: 3, 0: 0}
"""Our pass step (seats clockwise: left 1, across 2, right 3, keep 0) to OpenSpiel's first
chance action (no pass 0, left 1, across 2, right 3): they coincide."""


def to_spiel(card: int) -> int:
    """OpenSpiel's number for our card ``card``."""
    return (card % SUIT_SIZE) * 4 + _OUR_SUIT_TO_SPIEL[Suit(card // SUIT_SIZE)]


SPIEL_TO_OURS: Final[tuple[int, ...]] = tuple(
    sorted(range(52), key=to_spiel)  # position i holds our card whose OpenSpiel number is i
)


def to_ours(action: int) -> int:
    """Our card for OpenSpiel's card action ``action``."""
    return SPIEL_TO_OURS[action]


def pyspiel() -> Any:
    """The ``pyspiel`` module (no type stubs exist for it, so it is ``Any``)."""
    return importlib.import_module("pyspiel")


@cache
def spiel_game() -> Any:
    """OpenSpiel's Hearts under :data:`SPIEL_PARAMETERS`, loaded once per process."""
    return pyspiel().load_game("hearts", dict(SPIEL_PARAMETERS))


def deal_actions(hands: Sequence[int]) -> list[int]:
    """The 52 chance actions that deal our ``hands`` (bitmasks by seat) to the same seats."""
    cards = [[to_spiel(card) for card in cards_in(hand)] for hand in hands]
    return [cards[seat][index] for index in range(13) for seat in range(4)]


def dealt_state(hands: Sequence[int], pass_step: int) -> Any:
    """OpenSpiel's state right after the deal of ``hands`` with pass direction ``pass_step``."""
    state = spiel_game().new_initial_state()
    state.apply_action(PASS_DIRECTION_ACTION[pass_step])
    for action in deal_actions(hands):
        state.apply_action(action)
    return state


def legal_cards(state: Any) -> set[int]:
    """OpenSpiel's legal card actions at ``state``, as our cards."""
    return {to_ours(action) for action in state.legal_actions()}


class IsmctsSeat:
    """One OpenSpiel ISMCTS bot with random rollouts, for one seat in one hand.

    The budget is ``simulations`` per decision (never wall time), and every generator it is
    given starts from ``seed``. A hand still does not replay exactly: two runs of the same
    tournament in fresh processes make different ISMCTS moves (OpenSpiel 2.0.2; our bots'
    moves replay), so Hearts figures differ a little from run to run.
    """

    def __init__(self, seed: int, simulations: int, uct_c: float) -> None:
        spiel = pyspiel()
        self._rng = random.Random(seed)
        self._evaluator = spiel.RandomRolloutEvaluator(1, seed)
        self._bot = spiel.ISMCTSBot(
            seed,
            self._evaluator,
            uct_c,
            simulations,
            -1,
            spiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
            False,
            False,
        )

    def play(self, state: Any, player: int) -> int:
        """A card action for ``player`` from a state resampled from its information state."""
        resampled = state.resample_from_infostate(player, self._rng.random)
        return int(self._bot.step(resampled))

    def choose_pass(self, hand: int, pass_step: int, times_ms: list[float]) -> list[int]:
        """Three of our cards to pass from ``hand``, searched on a private state (see module).

        Each card is one ISMCTS decision; its CPU time is added to ``times_ms``.
        """
        rest = [card for card in range(52) if not hand >> card & 1]
        self._rng.shuffle(rest)
        hands = [hand] + [_mask(rest[13 * k : 13 * k + 13]) for k in range(3)]
        private = dealt_state(hands, pass_step)
        chosen: list[int] = []
        for _ in range(3):
            started = time.process_time()
            action = int(self._bot.step(private))
            times_ms.append((time.process_time() - started) * 1000)
            private.apply_action(action)
            chosen.append(to_ours(action))
        return chosen


def _mask(cards: Sequence[int]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def calibrate(target_ms: float, probe: int = 200, moves: int = 60, seed: int = 1) -> int:
    """Simulations per ISMCTS decision that cost about ``target_ms`` of CPU on this machine.

    Times ``moves`` play decisions (whole hands from the first card, no passing) at ``probe``
    simulations with this process's CPU clock and scales linearly.
    """
    rng = random.Random(seed)
    spent, made = 0.0, 0
    while made < moves:
        deck = list(range(52))
        rng.shuffle(deck)
        state = dealt_state([_mask(deck[13 * k : 13 * k + 13]) for k in range(4)], 0)
        bot = IsmctsSeat(rng.randrange(1 << 30), probe, 2.0)
        while not state.is_terminal() and made < moves:
            started = time.process_time()
            action = bot.play(state, state.current_player())
            spent += time.process_time() - started
            made += 1
            state.apply_action(action)
    per_sim_ms = spent * 1000 / made / probe
    return max(1, round(target_ms / per_sim_ms))
