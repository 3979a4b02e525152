'use strict';
// Error details decoded from grpc-status-details-bin, the language option, and SubmitAction's
// retry after UNAVAILABLE with the same request_id, against a real service (ENGINE_ADDRESS;
// run by tests/client/test_node_client.py):  node --test test/
const assert = require('node:assert/strict');
const { test } = require('node:test');
const grpc = require('@grpc/grpc-js');
const { createClient, chooseCards, errorDetails, errorInfo, status } = require('../lib/client');

const SEATS = ['PLAYER_TYPE_HUMAN', ...Array(3).fill('PLAYER_TYPE_BOT_HEURISTIC')];

async function passWith(client, seed, count, requestId) {
  const created = await client.createGame('hearts', SEATS, seed);
  const [gameId, token] = [created.game_id, created.seat_tokens[0].token];
  const view = await client.view(gameId, 0, token);
  const [choice] = view.legal_choices;
  const action = chooseCards(choice, choice.cards.slice(0, count));
  return { gameId, token, view, reply: client.submit(gameId, 0, token, action, view.version, requestId) };
}

async function refusal(promise) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('the call was accepted');
}

test('a rule break: ErrorInfo, ruleId, PreconditionFailure and an English LocalizedMessage', async () => {
  const client = createClient(process.env.ENGINE_ADDRESS);
  try {
    const error = await refusal((await passWith(client, 11, 1)).reply);
    const details = errorDetails(error);
    assert.equal(details.code, status.FAILED_PRECONDITION);
    assert.equal(details.reason, 'WRONG_PASS_SIZE');
    assert.equal(details.domain, 'cardengine');
    assert.equal(details.ruleId, 'H-R2');
    assert.deepEqual(details.metadata, { ruleId: 'H-R2' });
    assert.equal(details.violations.length, 1);
    assert.equal(details.violations[0].type, 'RULE');
    assert.equal(details.violations[0].subject, 'H-R2');
    assert.ok(details.violations[0].description);
    assert.deepEqual(details.fieldViolations, []);
    assert.equal(details.localizedMessage.locale, 'en');
    assert.match(details.localizedMessage.message, /H-R2/);
    assert.deepEqual(details.details.map((detail) => detail.type),
      ['google.rpc.ErrorInfo', 'google.rpc.PreconditionFailure', 'google.rpc.LocalizedMessage']);
    assert.deepEqual(errorInfo(error), { reason: 'WRONG_PASS_SIZE', domain: 'cardengine', metadata: { ruleId: 'H-R2' } });
  } finally {
    client.close();
  }
});

test('the language option: the LocalizedMessage comes in French, the reason stays the same', async () => {
  const english = createClient(process.env.ENGINE_ADDRESS);
  const french = createClient(process.env.ENGINE_ADDRESS, { language: 'fr-CA, en;q=0.5' });
  try {
    const inEnglish = errorDetails(await refusal((await passWith(english, 12, 2)).reply));
    const inFrench = errorDetails(await refusal((await passWith(french, 12, 2)).reply));
    assert.equal(inFrench.localizedMessage.locale, 'fr');
    assert.notEqual(inFrench.localizedMessage.message, inEnglish.localizedMessage.message);
    assert.equal(inFrench.reason, inEnglish.reason);
    assert.equal(inFrench.ruleId, 'H-R2');
  } finally {
    english.close();
    french.close();
  }
});

test('a malformed request: BadRequest names the field', async () => {
  const client = createClient(process.env.ENGINE_ADDRESS, { language: 'de' });
  try {
    const error = await refusal((await passWith(client, 13, 3, 'not\u0001printable')).reply);
    const details = errorDetails(error);
    assert.equal(details.code, status.INVALID_ARGUMENT);
    assert.equal(details.reason, 'INVALID_FIELD');
    assert.equal(details.fieldViolations.length, 1);
    assert.equal(details.fieldViolations[0].field, 'request_id');
    assert.ok(details.fieldViolations[0].description);
    assert.deepEqual(details.violations, []);
    assert.equal(details.localizedMessage.locale, 'de');
  } finally {
    client.close();
  }
});

test('no trailer, or a malformed one, decodes as empty details', () => {
  const metadata = new grpc.Metadata();
  metadata.set('grpc-status-details-bin', Buffer.from([0x1a, 0x7f, 0x00]));
  for (const error of [new Error('plain'), { code: status.UNAVAILABLE, details: 'down', metadata }]) {
    const details = errorDetails(error);
    assert.equal(details.reason, '');
    assert.equal(details.ruleId, '');
    assert.deepEqual(details.details, []);
    assert.equal(details.localizedMessage, null);
  }
});

// An interceptor that loses the first reply of `method` on the way back: the service acted, the
// caller sees UNAVAILABLE. It records the request_id of every request of `method` in `sent`.
function losingFirstReply(method, sent) {
  let dropped = 0;
  return (options, nextCall) => {
    const mine = options.method_definition.path.endsWith(`/${method}`);
    return new grpc.InterceptingCall(nextCall(options), {
      sendMessage(message, next) {
        if (mine) sent.push(message.request_id);
        next(message);
      },
      start(metadata, listener, next) {
        const lose = mine && dropped === 0;
        if (lose) dropped += 1;
        next(metadata, {
          // The reply message must pass (grpc-js holds the status back until it has), the
          // status decides: a unary call fails on a status that is not OK.
          onReceiveStatus: (received, forward) => forward(lose
            ? { code: status.UNAVAILABLE, details: 'reply lost (test)', metadata: new grpc.Metadata() }
            : received),
        });
      },
    });
  };
}

test('SubmitAction is sent again after UNAVAILABLE with the same request_id, and applied once', async () => {
  // The first SubmitAction's reply is lost on the way back: the service applied it, the caller
  // sees UNAVAILABLE. The retry carries the same request_id and gets the first reply again.
  const sent = [];
  const loseFirstReply = losingFirstReply('SubmitAction', sent);
  const client = createClient(process.env.ENGINE_ADDRESS, { interceptors: [loseFirstReply], backoffMs: 10 });
  try {
    const { gameId, token, view, reply } = await passWith(client, 14, 3);
    const after = await reply;
    assert.equal(sent.length, 2);
    assert.equal(sent[0], sent[1]);
    assert.ok(sent[0]);
    assert.ok(BigInt(after.version) > BigInt(view.version));
    const log = (await client.actionLog(gameId, 0, token)).entries;
    assert.equal(log.filter((entry) => entry.seat === 0).length, 1); // one pass, applied once
  } finally {
    client.close();
  }
});

test('CreateGame is sent again after UNAVAILABLE with the same request_id; table changes are not', async () => {
  // The first CreateGame's reply is lost: the service created the game. The retry carries the
  // same request_id and gets that game (the same id and tokens) back, not a second one.
  const sent = [];
  const client = createClient(process.env.ENGINE_ADDRESS, {
    interceptors: [losingFirstReply('CreateGame', sent)], backoffMs: 10,
  });
  const unreachable = createClient('127.0.0.1:1', { backoffMs: 1 });
  let calls = 0;
  const original = unreachable.once.bind(unreachable);
  unreachable.once = (...args) => {
    calls += 1;
    return original(...args);
  };
  try {
    const created = await client.createGame('hearts', SEATS, 21);
    assert.equal(sent.length, 2);
    assert.equal(sent[0], sent[1]);
    assert.match(sent[0], /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-/);
    const again = await client.createGame('hearts', SEATS, 21, { requestId: sent[0] });
    assert.equal(again.game_id, created.game_id);
    assert.deepEqual(again.seat_tokens, created.seat_tokens);
    assert.equal(again.admin_token, created.admin_token);
    const reused = await refusal(client.createGame('hearts', SEATS, 22, { requestId: sent[0] }));
    assert.equal(errorDetails(reused).reason, 'REQUEST_ID_REUSED');
    await assert.rejects(unreachable.endGame('0'.repeat(32), 'admin', 'closing'),
      (error) => error.code === status.UNAVAILABLE);
    await assert.rejects(unreachable.leaveGame('0'.repeat(32), 0, 'token'),
      (error) => error.code === status.UNAVAILABLE);
    assert.equal(calls, 2); // table changes are sent once
    await assert.rejects(unreachable.createGame('hearts', SEATS), (error) => error.code === status.UNAVAILABLE);
    assert.equal(calls, 2 + 1 + unreachable.retries);
  } finally {
    client.close();
    unreachable.close();
  }
});
