'use strict';
// A Play session: one stream for many moves and many games.
//
// A backend that makes many moves opens one session (client.session(token)) instead of a call
// per move and a watch per game: move() is SubmitAction (same arguments, same reply, the same
// errors, each move answered on its own), join() follows a game as WatchGame does, and
// updates() yields every joined game's messages as they come. Each request carries a ref that
// its answer carries back; this class does the matching.
//
// A session does not reopen itself: when its stream fails, the moves waiting for an answer and
// updates() reject with the stream's error, and the caller opens another session (joining
// again from the last versions received; a move resent with its request id is applied once).

const crypto = require('node:crypto');
const { playError, typedError } = require('./errors');

class PlaySession {
  // client: an EngineClient; token: the seat token of every request that gives none.
  constructor(client, token) {
    this.call = client.stub.Play(client.metadata(token));
    this.nextRef = 1;
    this.waiting = new Map();
    this.queue = [];
    this.wake = null;
    this.failure = null;
    this.ended = false;
    this.closed = new Promise((resolve) => {
      this.call.on('data', (response) => this.take(response));
      this.call.on('error', (error) => { if (error.code !== 1) this.failure = typedError(error); this.finish(); resolve(); });
      this.call.on('end', () => { this.finish(); resolve(); });
    });
  }

  take(response) {
    const ref = Number(response.ref);
    const waiting = this.waiting.get(ref);
    if (waiting) {
      this.waiting.delete(ref);
      if (response.response === 'error') waiting.reject(typedError(playError(response.error)));
      else waiting.resolve(response);
      return;
    }
    if (response.response === 'error') this.push({ error: typedError(playError(response.error)) });
    else if (response.response === 'watch') this.push({ gameId: response.game_id, message: response.watch });
  }

  push(item) {
    this.queue.push(item);
    if (this.wake) { this.wake(); this.wake = null; }
  }

  finish() {
    this.ended = true;
    for (const waiting of this.waiting.values()) {
      waiting.reject(this.failure ?? new Error('the Play session ended before this request was answered'));
    }
    this.waiting.clear();
    if (this.wake) { this.wake(); this.wake = null; }
  }

  send(request, answered) {
    if (this.failure) return Promise.reject(this.failure);
    const ref = this.nextRef++;
    const promise = answered ? new Promise((resolve, reject) => this.waiting.set(ref, { resolve, reject })) : null;
    this.call.write({ ...request, ref: String(ref) });
    return promise;
  }

  // One action chosen from the view of version expectedVersion; resolves to the seat's view.
  async move(gameId, seat, token, action, expectedVersion, requestId = crypto.randomUUID()) {
    return (await this.submitMove(gameId, seat, token, action, expectedVersion, requestId, false)).view;
  }

  // As move(), but resolves to the version the move reached (a decimal string, as uint64s
  // load), without the view: for a seat that joined the game on this session, whose view of
  // that version comes as the update, so the server builds and sends it once, not twice.
  async moveBrief(gameId, seat, token, action, expectedVersion, requestId = crypto.randomUUID()) {
    return (await this.submitMove(gameId, seat, token, action, expectedVersion, requestId, true)).version;
  }

  async submitMove(gameId, seat, token, action, expectedVersion, requestId, brief) {
    const move = { game_id: gameId, seat, expected_version: expectedVersion, request_id: requestId, action };
    const answer = await this.send({ token: token ?? '', move, brief }, true);
    return answer.moved;
  }

  // Follow a game: its WatchGame messages come from updates(). Joining again follows it anew.
  join(gameId, { seat, token, fromVersion = 0, eventsOnly = false } = {}) {
    const join = { game_id: gameId, from_version: String(fromVersion), events_only: eventsOnly };
    if (seat !== undefined && seat !== null) join.seat = seat;
    this.send({ token: token ?? '', join }, false);
  }

  // Stop following a game; no update of it comes after the promise resolves.
  async leave(gameId) {
    await this.send({ leave: { game_id: gameId } }, true);
  }

  // { gameId, message } of every joined game as they come, until the session ends. A join's
  // error (NOT_FOUND, a bad token, VERSION_EXPIRED) is thrown and ends this iteration only:
  // call updates() again to go on; the stream's error ends the session.
  async *updates() {
    for (;;) {
      if (this.queue.length > 0) {
        const item = this.queue.shift();
        if (item.error) throw item.error;
        yield item;
        continue;
      }
      if (this.ended) {
        if (this.failure) throw this.failure;
        return;
      }
      await new Promise((resolve) => { this.wake = resolve; });
    }
  }

  // No more requests: the answers in flight come, then the session ends.
  async close() {
    this.call.end();
    await this.closed;
  }
}

module.exports = { PlaySession };
