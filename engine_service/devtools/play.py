"""``make play``: play a game in the terminal against the engine's bots.

With ENGINE_ADDRESS set (``HOST:PORT``), this plays against that service. Otherwise it starts
a private engine server with its own fresh redis-server for the length of one game, so a
person can try the rules without running anything else; both stop when the game ends.
The game itself is the installable client's terminal game, talking gRPC like any client: it
follows the game through the WatchGame stream, so every bot move, finished trick and hand's end
is shown as it happens, and moves go out with SubmitAction (``help`` lists the commands).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence

from cardengine_client.terminal import run

from engine_service.devtools.local import local_service

ADDRESS_VARIABLE = "ENGINE_ADDRESS"


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``--game`` and ``--seed``, find or start a service, play; the exit status."""
    parser = argparse.ArgumentParser(description="Play a card game against the engine's bots.")
    parser.add_argument("--game", default="hearts", help="the game type (default: hearts)")
    parser.add_argument("--seed", type=int, help="fix the shuffles, to replay a game")
    args = parser.parse_args(argv)
    with contextlib.ExitStack() as stack:
        address = os.environ.get(ADDRESS_VARIABLE) or stack.enter_context(local_service())
        return run(address, args.game, args.seed)


if __name__ == "__main__":
    sys.exit(main())
