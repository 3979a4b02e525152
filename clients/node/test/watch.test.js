'use strict';
// The client's watch, log paging and error decoding against a real service. Run by
// tests/client/test_node_client.py with ENGINE_ADDRESS (a normal service),
// SHORT_MEMORY_ADDRESS (one keeping the events of only a few versions per game), MERGING_ADDRESS
// (two versions buffered per watcher) and SHEDDING_ADDRESS (20 new calls may wait to be taken):
//   node --test test/
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { EngineClient, chooseCards, errorInfo, status } = require('../lib/client');
const { chooseAction } = require('../play-hearts');
const { scriptedServer } = require('../test-support/scripted-server');

const SEATS = ['PLAYER_TYPE_HUMAN', ...Array(3).fill('PLAYER_TYPE_BOT_HEURISTIC')];
const MAX_ITEMS = 20000;

// Seat 0 moves from its own watch until the game ends or it has made `moves` moves.
async function drive(client, gameId, token, moves = Infinity) {
  const items = [];
  let caughtUp = 0n;
  let made = 0;
  for await (const item of client.watch(gameId, { seat: 0, token })) {
    items.push(item);
    assert.ok(items.length < MAX_ITEMS, 'the game did not end');
    if (item.message !== 'update') continue;
    const { view } = item.update;
    if (view.status === 'GAME_STATUS_FINISHED' || !view.to_act.includes(0)) continue;
    if (BigInt(view.version) < caughtUp) continue;
    if (made >= moves) break;
    caughtUp = BigInt((await client.submit(gameId, 0, token, chooseAction(view), view.version)).version);
    made += 1;
  }
  return items;
}

async function newGame(client, seed) {
  const created = await client.createGame('hearts', SEATS, seed);
  return [created.game_id, created.seat_tokens[0].token];
}

test('a game watched to its end: consecutive versions, then ended', async () => {
  const client = new EngineClient(process.env.ENGINE_ADDRESS);
  try {
    const [gameId, token] = await newGame(client, 5);
    const items = await drive(client, gameId, token);
    const ended = items.pop();
    assert.equal(ended.message, 'ended');
    const versions = items.map((item) => Number(item.update.version));
    assert.deepEqual(versions, versions.map((_, k) => versions[0] + k));
    assert.equal(Number(ended.ended.version), versions.at(-1));
    const final = await client.view(gameId, 0, token);
    assert.deepEqual(ended.ended.outcome.scores, final.outcome.scores);
  } finally {
    client.close();
  }
});

test('a watcher far behind gets merged updates, still without a gap', async () => {
  // This server buffers two versions per watcher: bots answering a move at once put it behind.
  const client = new EngineClient(process.env.MERGING_ADDRESS);
  try {
    const [gameId, token] = await newGame(client, 7);
    const items = await drive(client, gameId, token, 10);
    const updates = items.filter((item) => item.message === 'update').map((item) => item.update);
    assert.ok(updates.some((update) => BigInt(update.first_version) > 0n), 'nothing was merged');
    for (let k = 1; k < updates.length; k += 1) {
      const begins = BigInt(updates[k].first_version) || BigInt(updates[k].version);
      assert.equal(begins, BigInt(updates[k - 1].version) + 1n);
    }
  } finally {
    client.close();
  }
});

test('log pages give every entry once, in order', async () => {
  const client = new EngineClient(process.env.ENGINE_ADDRESS);
  try {
    const [gameId, token] = await newGame(client, 6);
    await drive(client, gameId, token, 20);
    const whole = (await client.actionLog(gameId, 0, token)).entries;
    const paged = [];
    for await (const entry of client.actionLogEntries(gameId, 0, token, { pageSize: 7 })) paged.push(entry);
    assert.ok(whole.length > 20);
    assert.deepEqual(paged, whole);
    assert.deepEqual(paged.map((entry) => Number(entry.index)), whole.map((_, k) => k));
  } finally {
    client.close();
  }
});

test('VERSION_EXPIRED rejects with its reason, or reloads the view', async () => {
  const client = new EngineClient(process.env.SHORT_MEMORY_ADDRESS);
  try {
    const [gameId, token] = await newGame(client, 7);
    await drive(client, gameId, token, 100); // past the ~100 entries Redis trims at once
    const current = await client.view(gameId, 0, token);
    await assert.rejects(
      async () => {
        for await (const item of client.watch(gameId, { seat: 0, token, fromVersion: 2 })) void item;
      },
      (error) => error.code === status.OUT_OF_RANGE && errorInfo(error).reason === 'VERSION_EXPIRED',
    );
    const watch = client.watch(gameId, { seat: 0, token, fromVersion: 2, reloadOnExpiry: true });
    for await (const item of watch) {
      assert.equal(item.update.version, current.version);
      assert.deepEqual(item.update.events, []);
      assert.deepEqual(item.update.view.hearts.hand, current.hearts.hand);
      break;
    }
  } finally {
    client.close();
  }
});

test('a refusal carries its reason and rule id', async () => {
  const client = new EngineClient(process.env.ENGINE_ADDRESS);
  try {
    const [gameId, token] = await newGame(client, 8);
    const view = await client.view(gameId, 0, token);
    const [choice] = view.legal_choices;
    const onlyOne = chooseCards(choice, choice.cards.slice(0, 1));
    await assert.rejects(client.submit(gameId, 0, token, onlyOne, view.version), (error) => {
      const info = errorInfo(error);
      return error.code === status.FAILED_PRECONDITION && info.reason === 'WRONG_PASS_SIZE'
        && info.metadata.ruleId === 'H-R2' && info.domain === 'cardengine';
    });
  } finally {
    client.close();
  }
});

test('a burst of watches all start even when the server sheds some', async () => {
  // This server lets only 20 new calls wait to be taken: gRPC ends others with CANCELLED
  // before they start, and each such watch opens its stream again.
  const client = new EngineClient(process.env.SHEDDING_ADDRESS);
  try {
    const [gameId, token] = await newGame(client, 7);
    const view = await client.view(gameId, 0, token);
    const watches = Array.from({ length: 300 }, () => client.watch(gameId, { fromVersion: view.version, retries: 8 }));
    const iterators = watches.map((watch) => watch[Symbol.asyncIterator]());
    const heard = iterators.map((iterator) => iterator.next());
    await new Promise((resolve) => setTimeout(resolve, 500)); // the burst has reached the server
    await client.submit(gameId, 0, token, chooseAction(view), view.version);
    const firsts = await Promise.all(heard);
    for (const iterator of iterators) await iterator.return();
    const next = String(BigInt(view.version) + 1n);
    assert.deepEqual(firsts.map((first) => first.value.update.version), Array(300).fill(next));
    assert.ok(watches.some((watch) => watch.reopened > 0), 'the server shed no stream: the burst proves nothing');
  } finally {
    client.close();
  }
});

test('a stream silent after opening is opened again from the same version', async () => {
  // A scripted server: the first WatchGame call sends nothing, the second the next version.
  const requests = [];
  const { address, server } = await scriptedServer({
    WatchGame(call) {
      requests.push(call.request.from_version);
      if (requests.length === 1) return; // silent until the client gives up on it
      call.write({ update: { version: '4' } });
      call.write({ ended: { version: '4' } });
      call.end();
    },
  });
  const client = new EngineClient(address);
  try {
    const items = [];
    for await (const item of client.watch('g1', { fromVersion: 3, firstMessageMs: 200 })) items.push(item);
    assert.deepEqual(items.map((item) => [item.message, item[item.message].version]), [['update', '4'], ['ended', '4']]);
    assert.deepEqual(requests, ['3', '3']);
  } finally {
    client.close();
    server.forceShutdown();
  }
});
