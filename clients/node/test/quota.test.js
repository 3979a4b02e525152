'use strict';
// A service key over its quota, against a real service with keys (KEYED_ADDRESS and the keys'
// secrets in QUICK_KEY_A, QUICK_KEY_B (1 call a second, bursts of 1), SLOW_KEY (a call every
// 100 s) and GAMES_KEY (1 game); run by tests/client/test_node_client.py): the typed errors,
// and which calls the client sends again. A counting interceptor records each call sent.
const assert = require('node:assert/strict');
const { test } = require('node:test');
const grpc = require('@grpc/grpc-js');
const {
  createClient, errorDetails, GameQuotaExceeded, QuotaExceeded, RateLimited, status,
} = require('../lib/client');

const ADDRESS = process.env.KEYED_ADDRESS;
const skip = ADDRESS ? false : 'KEYED_ADDRESS is not set (tests/client/test_node_client.py sets it)';
const SEATS = ['PLAYER_TYPE_HUMAN', ...Array(3).fill('PLAYER_TYPE_BOT_RANDOM')];

// A client with `serviceKey` whose every sent request is recorded in sent[method].
function counted(serviceKey, options = {}) {
  const sent = {};
  const interceptor = (callOptions, nextCall) => new grpc.InterceptingCall(nextCall(callOptions), {
    sendMessage(message, next) {
      const method = callOptions.method_definition.path.split('/').pop();
      (sent[method] ||= []).push(message);
      next(message);
    },
  });
  return { sent, client: createClient(ADDRESS, { serviceKey, interceptors: [interceptor], ...options }) };
}

async function refusal(promise) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('the call was accepted');
}

test('RATE_LIMITED is thrown as RateLimited with retryDelay and quotaViolations; a read waits it out',
  { skip }, async () => {
    const eager = counted(process.env.QUICK_KEY_A, { rateLimitWaits: 0 });
    const patient = counted(process.env.QUICK_KEY_A);
    try {
      await eager.client.listGameTypes();
      const error = await refusal(eager.client.listGameTypes());
      assert.ok(error instanceof RateLimited && error instanceof QuotaExceeded);
      assert.equal(error.code, status.RESOURCE_EXHAUSTED);
      assert.equal(error.reason, 'RATE_LIMITED');
      assert.ok(error.retryDelay > 0 && error.retryDelay <= 1, String(error.retryDelay));
      assert.match(error.quotaViolations[0].subject, /^service_key:/);
      assert.equal(errorDetails(error).reason, 'RATE_LIMITED');
      assert.equal(errorDetails(error).retryDelay, error.retryDelay);
      assert.equal(eager.sent.ListGameTypes.length, 2);
      await patient.client.listGameTypes(); // the bucket is still empty: refused, waited, sent again
      assert.equal(patient.sent.ListGameTypes.length, 2);
    } finally {
      eager.client.close();
      patient.client.close();
    }
  });

test('CreateGame is sent again with its request_id after RATE_LIMITED, a table change is not',
  { skip }, async () => {
    const { client, sent } = counted(process.env.QUICK_KEY_B);
    try {
      const game = await client.createGame('hearts', SEATS, 5);
      const again = await client.createGame('hearts', SEATS, 6); // refused once, then made
      assert.notEqual(again.game_id, game.game_id);
      const [first, refused, retried] = sent.CreateGame;
      assert.equal(refused.request_id, retried.request_id);
      assert.notEqual(first.request_id, refused.request_id);
      const error = await refusal(client.endGame(game.game_id, game.admin_token, 'closing'));
      assert.ok(error instanceof RateLimited, String(error));
      assert.equal(sent.EndGame.length, 1);
    } finally {
      client.close();
    }
  });

test('a retryDelay over the cap is thrown at once; GameQuotaExceeded is never retried', { skip }, async () => {
  const slow = counted(process.env.SLOW_KEY, { maxRateLimitWaitMs: 5000 });
  const games = counted(process.env.GAMES_KEY);
  try {
    await slow.client.listGameTypes();
    const limited = await refusal(slow.client.listGameTypes());
    assert.ok(limited instanceof RateLimited && limited.retryDelay > 5, String(limited.retryDelay));
    assert.equal(slow.sent.ListGameTypes.length, 2);
    await games.client.createGame('hearts', SEATS, 7);
    const error = await refusal(games.client.createGame('hearts', SEATS, 8));
    assert.ok(error instanceof GameQuotaExceeded && !(error instanceof RateLimited), String(error));
    assert.equal(error.reason, 'GAME_QUOTA_EXCEEDED');
    assert.equal(errorDetails(error).metadata.limit, '1');
    assert.ok(error.retryDelay > 0);
    assert.equal(games.sent.CreateGame.length, 2);
  } finally {
    slow.client.close();
    games.client.close();
  }
});
