"""``make play``: play a game in the terminal against the engine's bots.

With ENGINE_ADDRESS set (``HOST:PORT``), this plays against that service. Otherwise it starts
a private engine server with its own fresh redis-server for the length of one game, so a
person can try the rules without running anything else; both stop when the game ends.
The game itself is the installable client's terminal game, talking gRPC like any client: it
follows the game through the WatchGame stream, so every bot move, finished trick and hand's end
is shown as it happens, and moves go out with SubmitAction (``help`` lists the commands).
``make play CLOCK=30`` (``--clock 30``) plays with a turn clock of 30 seconds per decision.
``make play GAME=guandan`` seats a search bot as the person's partner, heuristic opponents.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence

from cardengine_client.terminal import add_game_arguments, run

from engine_service.devtools.local import local_service

ADDRESS_VARIABLE = "ENGINE_ADDRESS"
CLOCK_VARIABLE = "CLOCK"
"""Seconds per decision when ``--clock`` is not given: make passes ``make play CLOCK=30`` on."""


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the game arguments (``--game``, ``--bots``, ...); find or start a service; play."""
    parser = argparse.ArgumentParser(description="Play a card game against the engine's bots.")
    add_game_arguments(parser)
    args = parser.parse_args(argv)
    clock = args.clock
    if clock is None and os.environ.get(CLOCK_VARIABLE):
        try:
            clock = float(os.environ[CLOCK_VARIABLE])
        except ValueError:
            parser.error(f"{CLOCK_VARIABLE} must be a number of seconds")
    with contextlib.ExitStack() as stack:
        address = os.environ.get(ADDRESS_VARIABLE) or stack.enter_context(local_service())
        return run(address, args.game, args.seed, clock, args.bots, args.partner, args.language)


if __name__ == "__main__":
    sys.exit(main())
