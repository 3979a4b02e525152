'use strict';
// SuggestAction against a real service (ENGINE_ADDRESS, set by tests/client/test_node_client.py):
// the suggested move is one of the seat's legal moves, the same on every ask, and SubmitAction
// takes it as it is; a seat not to act gets the refusal a move would get (K-R5).
const assert = require('node:assert/strict');
const { isDeepStrictEqual } = require('node:util');
const { test } = require('node:test');
const { EngineClient, errorDetails, status } = require('../lib/client');

test('suggestAction: a legal move, the same each time, that the service accepts', async () => {
  const client = new EngineClient(process.env.ENGINE_ADDRESS);
  try {
    const game = await client.createGame('klaberjass', ['PLAYER_TYPE_HUMAN', 'PLAYER_TYPE_HUMAN'], 9);
    const tokens = Object.fromEntries(game.seat_tokens.map((entry) => [entry.seat, entry.token]));
    const [seat] = game.view.to_act;
    const view = await client.view(game.game_id, seat, tokens[seat]);
    const hint = await client.suggestAction(game.game_id, seat, tokens[seat], { playouts: 8 });
    assert.equal(hint.version, view.version);
    assert.equal(hint.value_kind, 'SUGGESTION_VALUE_KIND_DEAL_SCORE_MARGIN');
    assert.equal(hint.playouts, 8);
    assert.ok(hint.max_playouts >= hint.playouts);
    assert.ok(view.legal_actions.some((action) => isDeepStrictEqual(action, hint.action)));
    assert.ok(hint.candidates.length >= 2);
    for (const candidate of hint.candidates) {
      assert.equal(typeof candidate.value, 'number');
      assert.equal(candidate.playouts, Math.max(1, Math.floor(8 / hint.candidates.length)));
    }
    assert.deepEqual(await client.suggestAction(game.game_id, seat, tokens[seat], { playouts: 8 }), hint);

    const waiting = 1 - seat;
    const refused = await client.suggestAction(game.game_id, waiting, tokens[waiting]).then(
      () => assert.fail('a seat not to act got a suggestion'), (error) => error);
    const { code, reason, ruleId } = errorDetails(refused);
    assert.deepEqual([code, reason, ruleId], [status.FAILED_PRECONDITION, 'NOT_YOUR_TURN', 'K-R5']);

    const after = await client.submit(game.game_id, seat, tokens[seat], hint.action, hint.version);
    assert.ok(BigInt(after.version) > BigInt(hint.version));
  } finally {
    client.close();
  }
});
