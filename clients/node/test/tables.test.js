'use strict';
// The table calls against a real service (ENGINE_ADDRESS, set by tests/client/test_node_client.py):
// a clocked, labelled game is listed, its seat left and handed back with a new token (T-R2,
// T-R6, T-R7), ended early (T-R8) and rematched once (T-R9), with the errors decoded.
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const { test } = require('node:test');
const { EngineClient, errorInfo, status } = require('../lib/client');

const SEATS = ['PLAYER_TYPE_HUMAN', 'PLAYER_TYPE_HUMAN', 'PLAYER_TYPE_BOT_HEURISTIC', 'PLAYER_TYPE_BOT_HEURISTIC'];

async function failure(promise) {
  return promise.then(() => assert.fail('the call succeeded'), (error) => error);
}

test('a table from creation to its rematch: clock, labels, seats, early end', async () => {
  const client = new EngineClient(process.env.ENGINE_ADDRESS);
  try {
    const labels = { suite: `n${crypto.randomUUID().slice(0, 12)}` };
    const clock = { perDecision: 60, bank: 30, onExpiry: 'random' };
    const game = await client.createGame('hearts', SEATS, undefined, { clock, labels });
    const { game_id: gameId, admin_token: admin } = game;
    const tokens = Object.fromEntries(game.seat_tokens.map((entry) => [entry.seat, entry.token]));
    assert.deepEqual(game.view.clocks.map((entry) => entry.seat).sort(), [0, 1]); // T-R4: humans only

    const listed = await client.listGames({ labels, state: 'waiting' });
    assert.deepEqual(listed.games.map((info) => info.game_id), [gameId]);
    const all = [];
    for await (const info of client.listAllGames({ labels, pageSize: 1 })) all.push(info.game_id);
    assert.deepEqual(all, [gameId]);
    const info = await client.getGame(gameId, admin);
    assert.equal(info.clock.per_decision.seconds, '60');
    assert.equal(info.clock.on_expiry, 'EXPIRY_ACTION_BOT_RANDOM');
    const wrong = await failure(client.getGame(gameId, 'not-the-admin-token'));
    assert.equal(wrong.code, status.UNAUTHENTICATED);
    assert.equal(errorInfo(wrong).reason, 'ADMIN_TOKEN_INVALID');

    const early = await failure(client.rematchGame(gameId, admin));
    assert.equal(errorInfo(early).reason, 'GAME_NOT_OVER'); // T-R9
    const left = await client.leaveGame(gameId, 1, tokens[1]);
    assert.notEqual(left.seats[1], 'PLAYER_TYPE_HUMAN'); // T-R2
    const again = await failure(client.leaveGame(gameId, 1, tokens[1]));
    assert.equal(errorInfo(again).reason, 'SEAT_PLAYED_BY_BOT'); // T-R1
    const back = await client.updateSeat(gameId, 1, admin, { playerType: 'PLAYER_TYPE_HUMAN', reissueToken: true });
    assert.ok(back.token && back.token !== tokens[1]); // T-R6, T-R7

    const ended = await client.endGame(gameId, admin, 'the table closed'); // T-R8
    assert.equal(ended.status, 'GAME_STATUS_FINISHED');
    assert.ok(ended.outcome.ended_early);
    const rematch = await client.rematchGame(gameId, admin);
    assert.equal((await client.getGame(rematch.game_id, rematch.admin_token)).rematch_of, gameId);
    const twice = await failure(client.rematchGame(gameId, admin));
    assert.equal(twice.code, status.ALREADY_EXISTS);
    assert.equal(errorInfo(twice).metadata.rematchId, rematch.game_id);
  } finally {
    client.close();
  }
});
