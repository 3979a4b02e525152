#!/usr/bin/env node
'use strict';
// Plays one game of Hearts through the engine service: seat 0 is this program, seats 1-3 are
// the service's bots. It follows the game through the WatchGame stream and moves whenever the
// stream reaches a version where seat 0 must act: it passes its three highest cards (built from
// the view's card choice, "any 3 of these") and plays its lowest legal card (a simple ducking
// strategy). Moves go out with SubmitAction; the stream shows the bots' replies as they come.
//
// usage: node play-hearts.js [--address host:port] [--watch-address host:port] [--seed N]
//                            [--bots heuristic|random|search] [--json]
// --watch-address watches through another address than the one moves go to (a proxy, say).

const { parseArgs } = require('node:util');
const { EngineClient, chooseCards, enumNumbers, status } = require('./lib/client');

const RANKS = enumNumbers('cardengine.v1.Rank');
const BOTS = {
  heuristic: 'PLAYER_TYPE_BOT_HEURISTIC', random: 'PLAYER_TYPE_BOT_RANDOM', search: 'PLAYER_TYPE_BOT_SEARCH',
};
const HUMAN_SEAT = 0;
const MAX_STALE_RETRIES = 5;
const MAX_UPDATES = 20000; // far more than a game has versions: a runaway stream fails instead

function cardsOf(action) {
  const hearts = action.hearts;
  return hearts.action === 'pass_cards' ? hearts.pass_cards.cards : [hearts.play_card.card];
}

function rankSum(action) {
  return cardsOf(action).reduce((sum, card) => sum + RANKS[card.rank], 0);
}

// Pass the highest cards; play the lowest card. Ties keep the service's order. A pass offered
// as a card choice takes the choice's highest `count` cards; one listed as actions (an older
// service) the listed pass with the highest ranks.
function chooseAction(view) {
  const legalActions = view.legal_actions;
  if (legalActions.length === 0) {
    const [choice] = view.legal_choices;
    if (!choice) {
      throw new Error(`seat ${HUMAN_SEAT} has nothing to do at version ${view.version}`);
    }
    const highest = [...choice.cards].sort((a, b) => RANKS[b.rank] - RANKS[a.rank]);
    return chooseCards(choice, highest.slice(0, choice.count));
  }
  const passing = legalActions[0].hearts.action === 'pass_cards';
  const better = passing ? (a, b) => rankSum(a) > rankSum(b) : (a, b) => rankSum(a) < rankSum(b);
  return legalActions.reduce((best, action) => (better(action, best) ? action : best));
}

async function playGame(client, { seed, bots, watcher = client }) {
  const seats = ['PLAYER_TYPE_HUMAN', ...Array(3).fill(BOTS[bots])];
  const created = await client.createGame('hearts', seats, seed);
  const gameId = created.game_id;
  const token = created.seat_tokens.find((entry) => entry.seat === HUMAN_SEAT).token;
  const watch = watcher.watch(gameId, { seat: HUMAN_SEAT, token, retries: 8 });
  let moves = 0;
  let stale = 0;
  let updates = 0;
  let firstVersion = null;
  let lastView = null;
  let ended = null;
  let caughtUp = 0n; // the stream trails our own replies: act only on views at least this new
  for await (const item of watch) {
    if (item.message === 'ended') {
      ended = item.ended;
      break;
    }
    const { update } = item;
    if (++updates > MAX_UPDATES) throw new Error('the game did not end');
    firstVersion ??= update.version;
    const view = update.view;
    lastView = view;
    const ours = view.status !== 'GAME_STATUS_FINISHED' && view.to_act.includes(HUMAN_SEAT);
    if (!ours || BigInt(view.version) < caughtUp) continue;
    try {
      const reply = await client.submit(gameId, HUMAN_SEAT, token, chooseAction(view), view.version);
      caughtUp = BigInt(reply.version);
      moves += 1;
      stale = 0;
    } catch (error) {
      // ABORTED: the game moved on since this view; wait for the stream to show where it is.
      if (error.code !== status.ABORTED || ++stale > MAX_STALE_RETRIES) {
        throw error;
      }
      caughtUp = BigInt((await client.view(gameId, HUMAN_SEAT, token)).version);
    }
  }
  if (!ended) throw new Error('the stream stopped before the game ended');
  return {
    game_id: gameId,
    version: Number(ended.version),
    moves,
    updates,
    first_version: Number(firstVersion),
    reopened: watch.reopened,
    winners: ended.outcome.winners,
    scores: ended.outcome.scores,
    summary: ended.outcome.summary,
    last_hand: lastView.hearts.hand_scores.length,
  };
}

async function main() {
  const { values } = parseArgs({
    options: {
      address: { type: 'string', default: process.env.ENGINE_ADDRESS || '127.0.0.1:50051' },
      'watch-address': { type: 'string' },
      seed: { type: 'string' },
      bots: { type: 'string', default: 'heuristic' },
      json: { type: 'boolean', default: false },
    },
  });
  if (!(values.bots in BOTS)) {
    throw new Error(`--bots must be one of ${Object.keys(BOTS).join(', ')}`);
  }
  const client = new EngineClient(values.address);
  const watchAddress = values['watch-address'];
  const watcher = watchAddress ? new EngineClient(watchAddress) : client;
  try {
    const result = await playGame(client, { ...values, watcher });
    if (values.json) {
      console.log(JSON.stringify(result));
    } else {
      console.log(`game ${result.game_id}: over after ${result.last_hand} hands, ${result.moves} moves of seat 0`);
      console.log(`scores by seat: ${result.scores.join(' ')}; winners: ${result.winners.join(' ')}`);
      console.log(result.summary);
    }
  } finally {
    client.close();
    if (watcher !== client) watcher.close();
  }
}

module.exports = { chooseAction, playGame };

if (require.main === module) {
  main().catch((error) => {
    const code = error.code !== undefined ? ` (gRPC code ${error.code})` : '';
    console.error(`play-hearts failed${code}: ${error.details || error.message}`);
    process.exitCode = 1;
  });
}
