// Load generator of the peers benchmark: node load.js KIND PORT GAMES SECONDS
//
// GAMES games at once, each with its four seats on open connections of the peer's own client
// (boardgame.io: its Client with the SocketIO multiplayer; Colyseus: @colyseus/sdk). Each
// game has exactly one move outstanding: the seat to move sends the lowest legal card of what
// it sees; the move is delivered once all four seats have received the state it made; then
// the next move is sent. A finished game is closed and a new one created in its place (seeds
// 1, 2, 3... in order of creation per slot, so every host plays the same games).
//
// Protocol with bench/peers.py: creates the first GAMES games, prints {"ready": true}, waits
// for a line on stdin, plays for SECONDS, prints one JSON line of results, waits for another
// line on stdin, closes everything and exits.
import { createRequire } from "node:module";
import { createInterface } from "node:readline";

import { lowestLegal } from "./hearts.js";

const require = createRequire(import.meta.url);
const [kind, portText, gamesText, secondsText] = process.argv.slice(2);
const port = Number(portText);
const slots = Number(gamesText);
const seconds = Number(secondsText);
const DELIVERY_TIMEOUT_MS = 5000;
const OPEN_TIMEOUT_MS = 60000;

/**
 * One game under way: four seats, what each last saw, and the waiter of the move in flight.
 * A host adapter feeds ``seen(seat, moves)`` on every state a seat receives and provides
 * ``view(seat)`` (that seat's view, as hearts.js's view() shapes it), ``send(seat, card)`` and
 * ``close()``.
 */
class Table {
  constructor() {
    this.moves = [-1, -1, -1, -1];
    this.target = null;
    this.resolve = null;
  }

  seen(seat, moves) {
    if (moves <= this.moves[seat]) return;
    this.moves[seat] = moves;
    if (this.resolve && this.moves.every((m) => m >= this.target)) {
      const resolve = this.resolve;
      this.resolve = null;
      resolve(performance.now());
    }
  }

  /** Resolves once all four seats have seen ``moves`` (or, with ``moves`` null, anything). */
  allSeen(moves, timeout = DELIVERY_TIMEOUT_MS) {
    this.target = moves ?? 0;
    if (this.moves.every((m) => m >= this.target)) return Promise.resolve(performance.now());
    return new Promise((resolve, reject) => {
      this.resolve = resolve;
      const error = new Error(moves == null ? "NOT_OPENED" : "NOT_DELIVERED");
      setTimeout(() => reject(error), timeout).unref();
    });
  }
}

// --- boardgame.io: its own client over socket.io ---------------------------------------------

async function bgioGame(seed) {
  const { Client } = require("boardgame.io/client");
  const { SocketIO } = require("boardgame.io/multiplayer");
  const { HeartsGame } = await import("./bgio_game.js");
  const base = `http://127.0.0.1:${port}`;
  const post = async (path, body) => {
    const response = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
    return response.json();
  };
  const { matchID } = await post("/games/hearts/create", { numPlayers: 4, setupData: { seed } });
  const table = new Table();
  const views = [null, null, null, null];
  const clients = [];
  // Every seat joins before any connects: a connection rewrites the match's metadata too, and
  // with FlatFile a join between its read and its write would lose that seat's credentials.
  const credentials = [];
  for (let seat = 0; seat < 4; seat++) {
    const joined = await post(`/games/hearts/${matchID}/join`, {
      playerID: String(seat),
      playerName: `seat ${seat}`,
    });
    credentials.push(joined.playerCredentials);
  }
  for (let seat = 0; seat < 4; seat++) {
    const client = Client({
      game: HeartsGame,
      numPlayers: 4,
      multiplayer: SocketIO({ server: base }),
      matchID,
      playerID: String(seat),
      credentials: credentials[seat],
      debug: false,
    });
    client.subscribe((state) => {
      if (state && state.G && state.G.hand) {
        views[seat] = state.G;
        table.seen(seat, state.G.moves);
      }
    });
    client.start();
    clients.push(client);
  }
  table.view = (seat) => views[seat];
  table.send = (seat, card) => clients[seat].moves.play(card);
  table.close = () => clients.forEach((client) => client.stop());
  return table;
}

// --- Colyseus: @colyseus/sdk ------------------------------------------------------------------

async function colyseusGame(seed) {
  const { Client } = await import("@colyseus/sdk");
  const endpoint = `http://127.0.0.1:${port}`;
  const table = new Table();
  const rooms = [];
  for (let seat = 0; seat < 4; seat++) {
    const client = new Client(endpoint);
    const room =
      seat === 0
        ? await client.create("hearts", { seed, seat })
        : await client.joinById(rooms[0].roomId, { seat });
    room.onStateChange((state) => table.seen(seat, state.moves));
    room.onMessage("refused", (reason) => console.error(`refused: ${reason}`));
    rooms.push(room);
  }
  table.view = (seat) => {
    const state = rooms[seat].state;
    return {
      seat,
      hand: Array.from(state.seats[seat].hand),
      counts: state.seats.map((s) => s.count),
      trick: state.trick.map((played) => ({ seat: played.seat, card: played.card })),
      toMove: state.toMove,
      moves: state.moves,
      over: state.over,
    };
  };
  table.send = (seat, card) => rooms[seat].send("play", card);
  table.close = () => rooms.forEach((room) => room.leave());
  return table;
}

const hosts = { "bgio-memory": bgioGame, "bgio-flatfile": bgioGame, colyseus: colyseusGame };

// --- the run ------------------------------------------------------------------------------------

const latencies = [];
const errors = {};
let created = 0;
let firstGame = [];

async function openGame(slot, nth) {
  const table = await hosts[kind](1 + slot + nth * slots);
  await table.allSeen(null, OPEN_TIMEOUT_MS);
  created += 1;
  return table;
}

async function runSlot(slot, first, deadline) {
  let table = first;
  let nth = 0;
  while (performance.now() < deadline) {
    const seat = table.view(0).toMove;
    const seen = table.view(seat);
    if (seen.over) {
      table.close();
      nth += 1;
      try {
        table = await openGame(slot, nth);
      } catch (error) {
        errors[error.message] = (errors[error.message] ?? 0) + 1;
        table = null;
        break;
      }
      continue;
    }
    const card = lowestLegal(seen);
    if (slot === 0 && nth === 0 && firstGame.length < 52) firstGame.push(card);
    const delivered = table.allSeen(seen.moves + 1);
    const sent = performance.now();
    table.send(seat, card);
    try {
      latencies.push((await delivered) - sent);
    } catch (error) {
      errors[error.message] = (errors[error.message] ?? 0) + 1;
      break;
    }
  }
  return table;
}

function percentile(sorted, fraction) {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];
}

const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const tables = await Promise.all(Array.from({ length: slots }, (_, slot) => openGame(slot, 0)));
created = 0;
console.log(JSON.stringify({ ready: true }));
await lines.next();
const started = performance.now();
const finals = await Promise.all(tables.map((table, slot) => runSlot(slot, table, started + seconds * 1000)));
const elapsed = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
console.log(
  JSON.stringify({
    moves: latencies.length,
    seconds: elapsed,
    p50_ms: percentile(latencies, 0.5),
    p99_ms: percentile(latencies, 0.99),
    games_created: created,
    errors,
    first_game: firstGame.join(","),
    latencies_ms: latencies.map((ms) => Math.round(ms * 1000) / 1000),
  }),
);
await lines.next();
finals.forEach((table) => table?.close());
process.exit(0);
