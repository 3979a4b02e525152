'use strict';
// A Play session against a real service (ENGINE_ADDRESS, set by tests/client/test_node_client.py):
// two seats, each on a session of its own, play a whole Klaberjass game, moving from the
// updates of the game they joined (one seat's moves brief, answered with their version only); an illegal move answers only itself (with its rule) and the
// session goes on; a join of a game that does not exist is thrown by updates().
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { EngineClient, errorDetails, status } = require('../lib/client');

const MAX_MESSAGES = 5000;

async function playSeat(client, gameId, seat, token) {
  const session = client.session(token);
  const versions = [];
  let known = 0n;
  try {
    session.join(gameId, { seat });
    let told = 0;
    for await (const { message } of session.updates()) {
      told += 1;
      assert.ok(told < MAX_MESSAGES);
      if (message.message === 'ended') return versions;
      if (message.message !== 'update') continue;
      const { version, view } = message.update;
      versions.push(BigInt(version));
      if (BigInt(version) < known || !view.to_act.includes(seat)) continue;
      try {
        const [action] = view.legal_actions;
        // Odd seats move brief: answered with the version only, their view comes as the update.
        known = seat % 2 === 1
          ? BigInt(await session.moveBrief(gameId, seat, undefined, action, version))
          : BigInt((await session.move(gameId, seat, undefined, action, version)).version);
      } catch (error) {
        if (error.code !== status.ABORTED) throw error; // overtaken: the next update decides
      }
    }
    return versions;
  } finally {
    await session.close();
  }
}

test('play: two seats on their own sessions play a whole game', async () => {
  const client = new EngineClient(process.env.ENGINE_ADDRESS);
  try {
    const game = await client.createGame('klaberjass', ['PLAYER_TYPE_HUMAN', 'PLAYER_TYPE_HUMAN'], 4);
    const told = await Promise.all(game.seat_tokens.map((entry) => playSeat(client, game.game_id, entry.seat, entry.token)));
    const final = await client.view(game.game_id);
    assert.equal(final.status, 'GAME_STATUS_FINISHED');
    for (const versions of told) {
      assert.deepEqual(versions, [...versions].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      assert.equal(versions.at(-1), BigInt(final.version));
    }
  } finally {
    client.close();
  }
});

test('play: an error answers its request only', async () => {
  const client = new EngineClient(process.env.ENGINE_ADDRESS);
  const session = client.session();
  try {
    const game = await client.createGame('klaberjass', ['PLAYER_TYPE_HUMAN', 'PLAYER_TYPE_HUMAN'], 5);
    const tokens = Object.fromEntries(game.seat_tokens.map((entry) => [entry.seat, entry.token]));
    const [seat] = game.view.to_act;
    const waiting = 1 - seat;
    const view = await client.view(game.game_id, seat, tokens[seat]);
    const [legal] = view.legal_actions; // the seat to act's move, sent as the other seat's
    const refused = await session.move(game.game_id, waiting, tokens[waiting], legal, view.version)
      .then(() => assert.fail('a seat not to act moved'), (error) => error);
    const { code, reason, ruleId } = errorDetails(refused);
    assert.deepEqual([code, reason, ruleId], [status.FAILED_PRECONDITION, 'NOT_YOUR_TURN', 'K-R5']);
    session.join('0'.repeat(32), { seat: 0, token: tokens[0] });
    await assert.rejects(session.updates().next(), (error) => error.code === status.NOT_FOUND);
    const after = await session.move(game.game_id, seat, tokens[seat], legal, view.version);
    assert.ok(BigInt(after.version) > BigInt(view.version));
  } finally {
    await session.close();
    client.close();
  }
});
