// The Hearts of hearts.js as a boardgame.io game: setup, one move, turn order and per-seat
// views. The server runs it; the load generator's boardgame.io clients need it for the move's
// name only (the move has client: false, so a client never plays it ahead of the server).
import { createRequire } from "node:module";

import { newGame, play, view } from "./hearts.js";

const require = createRequire(import.meta.url);
const { INVALID_MOVE } = require("boardgame.io/core");

export const HeartsGame = {
  name: "hearts",
  minPlayers: 4,
  maxPlayers: 4,
  setup: (_context, setupData) => newGame(setupData?.seed ?? 1),
  moves: {
    play: {
      move: ({ G, playerID }, card) => (play(G, Number(playerID), card) ? INVALID_MOVE : undefined),
      client: false,
    },
  },
  // One card a turn; the seat to play next is the rules' (the trick's winner leads).
  turn: {
    minMoves: 1,
    maxMoves: 1,
    order: { first: ({ G }) => G.toMove, next: ({ G }) => G.toMove },
  },
  endIf: ({ G }) => (G.over ? { scores: G.scores } : undefined),
  playerView: ({ G, playerID }) => (playerID == null ? { moves: G.moves } : view(G, Number(playerID))),
};
