#!/usr/bin/env node
'use strict';
// Plays one game of Hearts through the engine service: seat 0 is this program, seats 1-3 are
// the service's bots. Every move is one of the legal actions the view offers: pass the three
// highest cards, then play the lowest legal card (a simple ducking strategy).
//
// usage: node play-hearts.js [--address host:port] [--seed N] [--bots heuristic|random] [--json]

const { parseArgs } = require('node:util');
const { EngineClient, enumNumbers, status } = require('./lib/client');

const RANKS = enumNumbers('cardengine.v1.Rank');
const BOTS = { heuristic: 'PLAYER_TYPE_BOT_HEURISTIC', random: 'PLAYER_TYPE_BOT_RANDOM' };
const HUMAN_SEAT = 0;
const MAX_STALE_RETRIES = 5;

function cardsOf(action) {
  const hearts = action.hearts;
  return hearts.action === 'pass_cards' ? hearts.pass_cards.cards : [hearts.play_card.card];
}

function rankSum(action) {
  return cardsOf(action).reduce((sum, card) => sum + RANKS[card.rank], 0);
}

// Pass the highest cards; play the lowest card. Ties keep the service's order.
function chooseAction(legalActions) {
  const passing = legalActions[0].hearts.action === 'pass_cards';
  const better = passing ? (a, b) => rankSum(a) > rankSum(b) : (a, b) => rankSum(a) < rankSum(b);
  return legalActions.reduce((best, action) => (better(action, best) ? action : best));
}

async function playGame(client, { seed, bots }) {
  const seats = [
    'PLAYER_TYPE_HUMAN',
    ...Array(3).fill(BOTS[bots]),
  ];
  const created = await client.createGame('hearts', seats, seed);
  const gameId = created.game_id;
  const token = created.seat_tokens.find((entry) => entry.seat === HUMAN_SEAT).token;
  let view = await client.view(gameId, HUMAN_SEAT, token);
  let moves = 0;
  let stale = 0;
  while (view.status !== 'GAME_STATUS_FINISHED') {
    if (view.legal_actions.length === 0) {
      throw new Error(`seat ${HUMAN_SEAT} has nothing to do at version ${view.version}`);
    }
    const action = chooseAction(view.legal_actions);
    try {
      view = await client.submit(gameId, HUMAN_SEAT, token, action, view.version);
      moves += 1;
      stale = 0;
    } catch (error) {
      // ABORTED: the game moved on since this view; reload and decide again.
      if (error.code !== status.ABORTED || ++stale > MAX_STALE_RETRIES) {
        throw error;
      }
      view = await client.view(gameId, HUMAN_SEAT, token);
    }
  }
  return {
    game_id: gameId,
    version: Number(view.version),
    moves,
    winners: view.outcome.winners,
    scores: view.outcome.scores,
    summary: view.outcome.summary,
    last_hand: view.hearts.hand_scores.length,
  };
}

async function main() {
  const { values } = parseArgs({
    options: {
      address: { type: 'string', default: process.env.ENGINE_ADDRESS || '127.0.0.1:50051' },
      seed: { type: 'string' },
      bots: { type: 'string', default: 'heuristic' },
      json: { type: 'boolean', default: false },
    },
  });
  if (!(values.bots in BOTS)) {
    throw new Error(`--bots must be one of ${Object.keys(BOTS).join(', ')}`);
  }
  const client = new EngineClient(values.address);
  try {
    const result = await playGame(client, values);
    if (values.json) {
      console.log(JSON.stringify(result));
    } else {
      console.log(`game ${result.game_id}: over after ${result.last_hand} hands, ${result.moves} moves of seat 0`);
      console.log(`scores by seat: ${result.scores.join(' ')}; winners: ${result.winners.join(' ')}`);
      console.log(result.summary);
    }
  } finally {
    client.close();
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
