'use strict';
// A small promise-based client of cardengine.v1.EngineService.
//
// The messages are loaded at run time with @grpc/proto-loader from the repository's protos/
// directory, or from the copy an installed package carries (lib/protos.js), so no generated
// code is needed: the .proto files are the contract. Seat tokens travel as the "x-seat-token"
// metadata entry, as in the Python client; the `language` option as "accept-language".
// Failed calls keep their gRPC error; errorDetails() (lib/errors.js) decodes its google.rpc
// details. Reads, and CreateGame and SubmitAction with their same request_id, are retried after
// UNAVAILABLE, and sent again after a RATE_LIMITED refusal once its retryDelay has passed (at
// most rateLimitWaits times, never waiting more than maxRateLimitWaitMs); a service key's quota
// refusals are thrown as RateLimited and GameQuotaExceeded (lib/errors.js).
// A backend manages its tables with listGames, getGame, updateSeat, endGame and rematchGame:
// the game's admin token (from createGame) travels as "x-admin-token", the `serviceKey` option
// as "x-service-key" with every call. Those table changes, like leaveGame, carry no request id
// and are sent once.
//
// watch() follows a game through the WatchGame stream as an async iterator that resumes by
// itself: after a dropped connection, UNAVAILABLE or WATCHER_TOO_SLOW it watches again from the
// last version received, so the caller sees every version once, in order.

const crypto = require('node:crypto');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const {
  GameQuotaExceeded, QuotaExceeded, RateLimited, errorDetails, errorInfo, typedError,
} = require('./errors');
const fs = require('node:fs');
const { eventText, pickLanguage } = require('./events');
const { PlaySession } = require('./session');
const { SERVICE_PROTO, cardengineProtosDir, catalogueFile } = require('./protos');

const SEAT_TOKEN_KEY = 'x-seat-token';
const ADMIN_TOKEN_KEY = 'x-admin-token';
const SERVICE_KEY_KEY = 'x-service-key';
const LANGUAGE_KEY = 'accept-language';

// Short names of what a clock does when a seat's time runs out, as createGame takes them.
const EXPIRY_ACTIONS = {
  random: 'EXPIRY_ACTION_BOT_RANDOM',
  heuristic: 'EXPIRY_ACTION_BOT_HEURISTIC',
  forfeit: 'EXPIRY_ACTION_FORFEIT',
};

// Short names of listGames' state filter.
const GAME_STATES = {
  waiting: 'GAME_STATE_WAITING_FOR_HUMAN',
  running: 'GAME_STATE_RUNNING',
  over: 'GAME_STATE_OVER',
};

// A value given by short name or by its enum name (passed through when it is neither).
const named = (names, value) => names[value] ?? value;

// A google.protobuf.Duration of (fractional) seconds.
function duration(seconds) {
  const nanos = Math.round(seconds * 1e9);
  return { seconds: String(Math.floor(nanos / 1e9)), nanos: nanos % 1e9 };
}

// The ClockPolicy of a clock given as { perDecision, bank, onExpiry } in seconds (onExpiry
// 'random', 'heuristic' (the default), 'forfeit' or an ExpiryAction name), as seconds per
// decision alone, or as a ClockPolicy message ({ per_decision, ... }) passed through.
function clockPolicy(clock) {
  if (typeof clock === 'number') return clockPolicy({ perDecision: clock });
  if (clock.per_decision !== undefined) return clock;
  const { perDecision, bank = 0, onExpiry = 'heuristic' } = clock;
  return { per_decision: duration(perDecision), bank: duration(bank), on_expiry: named(EXPIRY_ACTIONS, onExpiry) };
}

// Field names as in the .proto files, enums as their names, 64-bit integers as strings
// (versions and seeds can exceed 2^53), and the name of the set field of every oneof.
const LOADER_OPTIONS = { keepCase: true, enums: String, longs: String, defaults: true, oneofs: true };

function loadDefinition(protosDir = cardengineProtosDir()) {
  return protoLoader.loadSync(SERVICE_PROTO, {
    ...LOADER_OPTIONS,
    includeDirs: [protosDir],
  });
}

// The numbers of an enum's value names, e.g. enumNumbers('cardengine.v1.Rank').RANK_ACE === 14.
function enumNumbers(fullName, protosDir) {
  const values = loadDefinition(protosDir)[fullName].type.value;
  return Object.fromEntries(values.map((value) => [value.name, value.number]));
}

// Whether watching again from the last version can get past a WatchGame failure: UNAVAILABLE
// (a dropped connection, a server shutting down) and WATCHER_TOO_SLOW (the service shed a
// reader that fell behind). Nothing else is retried: watching changes nothing, but other
// errors (NOT_FOUND, a bad token) would only fail again.
function resumable(error) {
  if (error.code === grpc.status.UNAVAILABLE) return true;
  return error.code === grpc.status.RESOURCE_EXHAUSTED && errorInfo(error).reason === 'WATCHER_TOO_SLOW';
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// @opentelemetry/api when the application has it (an optional peer dependency), else null.
const otel = (() => {
  try {
    return require('@opentelemetry/api');
  } catch {
    return null;
  }
})();

// The caller's active trace context as headers (traceparent, tracestate), through the
// propagator the application registered, so the service's spans join its trace; {} without
// OpenTelemetry, a registered propagator or an active span.
function traceContext() {
  const carrier = {};
  if (otel) otel.propagation.inject(otel.context.active(), carrier);
  return carrier;
}

// The wait before retry number `attempt` (from 0): backoffMs doubled per attempt, of which a
// random half or more, so that callers turned away together (a burst the service shed) do not
// all come back at once.
function backoffWait(backoffMs, attempt) {
  return backoffMs * 2 ** attempt * (0.5 + Math.random() / 2);
}

// How long a watch waits for the first message of a stream it opened before opening it again.
// The service sends one at once (the view, the next version or a heartbeat), so only a stream
// that never started is silent this long.
const FIRST_MESSAGE_MS = 10000;

// The action of a CardChoice (e.g. "any 3 of these cards" during a Hearts pass) with `cards`
// filled into its card list. The choice names no field: its action holds one list, at the end
// of its chain of set oneof fields (hearts.pass_cards.cards), so any game's choices work.
// Whether the cards fit the choice is left to the service, whose refusal names the rule.
function chooseCards(choice, cards) {
  const action = structuredClone(choice.action);
  const holder = (function find(message) {
    for (const [key, value] of Object.entries(message)) {
      if (Array.isArray(value)) return [message, key];
      if (value !== null && typeof value === 'object') {
        const found = find(value);
        if (found) return found;
      }
    }
    return null;
  })(action);
  if (!holder) {
    throw new Error("the choice's action has no list of cards to fill");
  }
  holder[0][holder[1]] = [...cards];
  return action;
}

// A resuming WatchGame stream: `for await (const item of watch)` gives { message: 'update',
// update } for every version in order (a watcher far behind gets the versions it missed merged
// into one update, first_version to version) and, once the game is over, { message: 'ended',
// ended }. Heartbeats are consumed. `version` is the last version received (a string, as all 64-bit
// integers here), the one to watch again from elsewhere if this watch fails for good.
class GameWatch {
  constructor(client, gameId, { seat, token, fromVersion = 0, eventsOnly = false, reloadOnExpiry = false,
    retries = 3, backoffMs = 50, firstMessageMs = FIRST_MESSAGE_MS } = {}) {
    this.client = client;
    this.gameId = gameId;
    this.seat = seat;
    this.token = token;
    this.eventsOnly = eventsOnly;
    this.reloadOnExpiry = reloadOnExpiry;
    this.retries = retries;
    this.backoffMs = backoffMs;
    this.firstMessageMs = firstMessageMs;
    this.last = BigInt(fromVersion);
    this.anyFirst = this.last === 0n; // from version 0 the first update carries the current one
    this.call = null;
    this.closed = false;
    this.ended = false;
    this.reopened = 0;
  }

  get version() {
    return String(this.last);
  }

  // Stop watching; a pending iteration ends. Safe at any time.
  close() {
    this.closed = true;
    this.stopCall();
  }

  stopCall() {
    const call = this.call;
    this.call = null;
    if (call) {
      call.on('error', () => {}); // the CANCELLED status of our own cancel is expected
      call.cancel();
    }
  }

  // The update to yield, or null for a version already yielded (a repeat after resuming).
  accept(update) {
    const version = BigInt(update.version);
    if (!this.anyFirst && version <= this.last) return null;
    // A watcher far behind gets the versions it missed merged into one update.
    const begins = BigInt(update.first_version || 0) || version;
    if (!this.anyFirst && begins !== this.last + 1n) {
      throw new Error(`WatchGame jumped from version ${this.last} to ${begins}`);
    }
    this.anyFirst = false;
    this.last = version;
    return update;
  }

  async *[Symbol.asyncIterator]() {
    let failures = 0;
    let opened = 0;
    try {
      while (!this.closed && !this.ended) {
        const request = { game_id: this.gameId, from_version: String(this.last), events_only: this.eventsOnly };
        if (this.seat !== undefined) request.seat = this.seat;
        this.reopened = Math.max(0, opened++);
        const call = this.client.stub.WatchGame(request, this.client.metadata(this.token));
        this.call = call;
        let heard = false;
        let silent = false;
        const firstMessageTimer = setTimeout(() => {
          silent = true;
          call.cancel();
        }, this.firstMessageMs);
        let failure;
        try {
          for await (const response of call) {
            if (!heard) clearTimeout(firstMessageTimer);
            heard = true;
            failures = 0; // the stream is alive
            if (response.message === 'update') {
              const update = this.accept(response.update);
              if (update) yield { message: 'update', update };
            } else if (response.message === 'ended') {
              this.ended = true;
              if (BigInt(response.ended.version) > this.last) this.last = BigInt(response.ended.version);
              yield { message: 'ended', ended: response.ended };
              break;
            }
          }
          // The service ends a stream only after GameEnded; an earlier end is a cut.
          failure = this.ended ? null : Object.assign(new Error('the stream ended before the game'), {
            code: grpc.status.UNAVAILABLE,
          });
        } catch (error) {
          if (error.code === undefined) throw error; // not a gRPC status (e.g. a gap): a bug
          failure = silent ? Object.assign(new Error(`WatchGame sent nothing within ${this.firstMessageMs} ms of opening`), {
            code: grpc.status.UNAVAILABLE,
          }) : error;
        } finally {
          clearTimeout(firstMessageTimer);
          if (this.call === call) this.stopCall(); // a no-op when the call is over
        }
        if (this.closed || !failure) return;
        if (failure.code === grpc.status.OUT_OF_RANGE && this.reloadOnExpiry
            && errorInfo(failure).reason === 'VERSION_EXPIRED') {
          const view = await this.client.view(this.gameId, this.seat, this.token);
          this.last = BigInt(view.version);
          this.anyFirst = false;
          yield { message: 'update', update: { version: view.version, events: [], view, seat: null, applied_at: null } };
          continue;
        }
        // A CANCELLED before the first message is a call the service shed before it started
        // (gRPC does so under a burst of new calls): watching again helps.
        const shed = failure.code === grpc.status.CANCELLED && !heard;
        if (!(resumable(failure) || shed) || failures >= this.retries) throw failure;
        await sleep(backoffWait(this.backoffMs, failures));
        failures += 1;
      }
    } finally {
      this.stopCall();
    }
  }
}

// Whether a call that failed with `error` may be sent again as it was: UNAVAILABLE means the
// service did not take it (a refused or dropped connection, storage unreachable: nothing
// changed), or took it and the reply was lost, which a read, or a CreateGame or SubmitAction
// with the same request_id (the service replays its first reply), makes harmless.
function retryable(error) {
  return error.code === grpc.status.UNAVAILABLE;
}

// Milliseconds to wait before sending a call that is safe to repeat again after `error`, or
// null to throw it. `tries` counts the retries so far ({ unavailable, rateLimited }) and is
// moved on. UNAVAILABLE: `retries` times, doubling from backoffMs. RateLimited (refused at the
// door, nothing done; a repeat is a call and takes a token, but a CreateGame repeated with its
// request_id never counts a second game): after its retryDelay (backoff without one),
// rateLimitWaits times, and never when the delay is longer than maxRateLimitWaitMs.
function retryWait(error, tries, { retries, backoffMs, rateLimitWaits, maxRateLimitWaitMs }) {
  if (retryable(error) && tries.unavailable < retries) {
    tries.unavailable += 1;
    return backoffWait(backoffMs, tries.unavailable - 1);
  }
  if (error instanceof RateLimited && tries.rateLimited < rateLimitWaits) {
    const wait = error.retryDelay === null ? backoffWait(backoffMs, tries.rateLimited) : error.retryDelay * 1000;
    if (wait > maxRateLimitWaitMs) return null;
    tries.rateLimited += 1;
    return wait;
  }
  return null;
}

// The channel's credentials: plaintext without tls, else TLS with the given roots and, when
// both are given, the client's certificate.
function channelCredentials(tls) {
  if (!tls) return grpc.credentials.createInsecure();
  const pem = (value) => (value === undefined || value === null ? null : Buffer.from(value));
  const { rootCerts, privateKey, certChain } = tls;
  if ((privateKey == null) !== (certChain == null)) {
    throw new TypeError('a client certificate needs both tls.privateKey and tls.certChain');
  }
  return grpc.credentials.createSsl(pem(rootCerts), pem(privateKey), pem(certChain));
}

class EngineClient {
  // address: "host:port" of the service. options: timeoutMs, the deadline of each call;
  // language, sent as accept-language so the service explains errors in it (the
  // LocalizedMessage of errorDetails(); e.g. 'fr' or 'de-CH, de;q=0.8'); retries and backoffMs,
  // how often and how soon (doubling) a read, CreateGame or SubmitAction is sent again after
  // UNAVAILABLE; rateLimitWaits (default 3) and maxRateLimitWaitMs (default 5000), how often and
  // how long at most such a call waits out a RATE_LIMITED refusal's retryDelay and is sent again;
  // protosDir, where cardengine/v1/*.proto are (default: see lib/protos.js); interceptors,
  // @grpc/grpc-js client interceptors of every call; tls, to speak TLS to a service started with
  // --tls-cert: { rootCerts } (PEM; omitted: the system's roots) and, for mutual TLS,
  // { privateKey, certChain } (PEM), as Buffers or strings; omitted: plaintext.
  constructor(address, { timeoutMs = 30000, protosDir, language, retries = 3, backoffMs = 50, interceptors,
    serviceKey, tls, rateLimitWaits = 3, maxRateLimitWaitMs = 5000 } = {}) {
    const Service = grpc.loadPackageDefinition(loadDefinition(protosDir)).cardengine.v1.EngineService;
    this.stub = new Service(address, channelCredentials(tls), interceptors ? { interceptors } : {});
    this.timeoutMs = timeoutMs;
    this.language = language;
    this.retries = retries;
    this.backoffMs = backoffMs;
    this.rateLimitWaits = rateLimitWaits;
    this.maxRateLimitWaitMs = maxRateLimitWaitMs;
    this.serviceKey = serviceKey;
  }

  close() {
    this.stub.close();
  }

  // The metadata of a call: the seat token, the admin token, the service key and the
  // language, when given.
  metadata(token, adminToken) {
    const metadata = new grpc.Metadata();
    if (token !== undefined) metadata.set(SEAT_TOKEN_KEY, token);
    if (adminToken !== undefined && adminToken !== null) metadata.set(ADMIN_TOKEN_KEY, adminToken);
    if (this.serviceKey) metadata.set(SERVICE_KEY_KEY, this.serviceKey);
    if (this.language) metadata.set(LANGUAGE_KEY, this.language);
    for (const [key, value] of Object.entries(traceContext())) metadata.set(key, value);
    return metadata;
  }

  once(method, request, token, adminToken) {
    const deadline = new Date(Date.now() + this.timeoutMs);
    return new Promise((resolve, reject) => {
      this.stub[method](request, this.metadata(token, adminToken), { deadline }, (error, reply) =>
        error ? reject(error) : resolve(reply),
      );
    });
  }

  // One call; with retry, sent again (the same request) after UNAVAILABLE or RATE_LIMITED, as
  // far as retryWait allows. A quota refusal is thrown typed (typedError).
  async call(method, request, token, { retry = false, adminToken } = {}) {
    const tries = { unavailable: 0, rateLimited: 0 };
    for (;;) {
      let wait;
      try {
        return await this.once(method, request, token, adminToken);
      } catch (caught) {
        const error = typedError(caught);
        wait = retry ? retryWait(error, tries, this) : null;
        if (wait === null) throw error;
      }
      await sleep(wait);
    }
  }

  listGameTypes() {
    return this.call('ListGameTypes', {}, undefined, { retry: true });
  }

  // seats: PlayerType names, e.g. ["PLAYER_TYPE_HUMAN", "PLAYER_TYPE_BOT_HEURISTIC", ...].
  // options: { clock (see clockPolicy), labels ({ key: value }, for listGames filters),
  // requestId }. A fresh request_id (UUID4) by default; after UNAVAILABLE the same request (the
  // same request_id) is sent again, and the service creates at most one game for it (a repeat
  // gets the first reply: the same game and tokens). Pass requestId (unguessable) yourself to
  // retry across calls; the same id with other arguments fails with INVALID_ARGUMENT
  // (REQUEST_ID_REUSED). The reply's admin_token is the backend's, for getGame, updateSeat,
  // endGame, rematchGame.
  createGame(gameType, seats, seed, { clock, labels, requestId = crypto.randomUUID() } = {}) {
    const request = { game_type: gameType, seats, request_id: requestId };
    if (seed !== undefined && seed !== null) {
      request.seed = String(seed);
    }
    if (clock !== undefined) request.clock = clockPolicy(clock);
    if (labels !== undefined) request.labels = labels;
    return this.call('CreateGame', request, undefined, { retry: true });
  }

  // One page of games, newest first. filters: { gameType, state ('waiting', 'running', 'over'
  // or a GameState name), labels, pageSize, pageToken }. A read: retried after UNAVAILABLE.
  listGames({ gameType = '', state, labels = {}, pageSize = 0, pageToken = '' } = {}) {
    const request = { game_type: gameType, labels, page_size: pageSize, page_token: pageToken };
    if (state !== undefined) request.state = named(GAME_STATES, state);
    return this.call('ListGames', request, undefined, { retry: true });
  }

  // Every game listGames finds, page after page; a page token handed back twice throws.
  async *listAllGames(filters = {}) {
    const seen = new Set();
    let pageToken = '';
    do {
      const page = await this.listGames({ ...filters, pageToken });
      yield* page.games;
      pageToken = page.next_page_token;
      if (seen.has(pageToken)) throw new Error('ListGames repeated a page token');
      seen.add(pageToken);
    } while (pageToken);
  }

  // A game's metadata (GameInfo) for its admin; adminToken may be omitted with a serviceKey.
  async getGame(gameId, adminToken) {
    const reply = await this.call('GetGame', { game_id: gameId }, undefined, { retry: true, adminToken });
    return reply.game;
  }

  // The seat's player leaves (a bot plays on) or resigns; the seat's view after. Sent once.
  async leaveGame(gameId, seat, token, { resign = false } = {}) {
    const reply = await this.call('LeaveGame', { game_id: gameId, seat, resign }, token);
    return reply.view;
  }

  // Hand a seat to playerType (a PlayerType name) and/or issue it a new token (the reply's
  // token). Sent once.
  updateSeat(gameId, seat, adminToken, { playerType, reissueToken = false } = {}) {
    const request = { game_id: gameId, seat, reissue_token: reissueToken };
    if (playerType !== undefined) request.player_type = playerType;
    return this.call('UpdateSeat', request, undefined, { adminToken });
  }

  // End the game now, with no winner and `reason`; the spectator's view. Sent once.
  async endGame(gameId, adminToken, reason) {
    const reply = await this.call('EndGame', { game_id: gameId, reason }, undefined, { adminToken });
    return reply.view;
  }

  // A new game from a finished one (a CreateGameResponse); a second call fails with
  // ALREADY_EXISTS (reason ALREADY_REMATCHED, metadata rematchId). Sent once.
  async rematchGame(gameId, adminToken) {
    const reply = await this.call('RematchGame', { game_id: gameId }, undefined, { adminToken });
    return reply.game;
  }

  async view(gameId, seat, token) {
    const reply = await this.call('GetGameView', { game_id: gameId, seat }, token, { retry: true });
    return reply.view;
  }

  // A Play session (lib/session.js): many moves and games on one stream. token: the seat
  // token of every request that gives none of its own.
  session(token) {
    return new PlaySession(this, token);
  }

  // One action chosen from the view of version `expectedVersion`. A fresh request_id each time
  // by default; after UNAVAILABLE the same request (the same request_id) is sent again, and the
  // service applies it at most once (a repeat gets the reply of the first). Pass requestId
  // yourself to retry across calls, e.g. after a failure this client gave up on.
  async submit(gameId, seat, token, action, expectedVersion, requestId = crypto.randomUUID()) {
    const request = {
      game_id: gameId,
      seat,
      expected_version: expectedVersion,
      request_id: requestId,
      action,
    };
    const reply = await this.call('SubmitAction', request, token, { retry: true });
    return reply.view;
  }

  // What the game's search bot would play for `seat` now (SuggestAction): the reply's action
  // (submit it as is, with the reply's version), and every move the search compared, each with
  // its mean value (unit: the reply's value_kind; higher is better; unset when the move was the
  // only one) and the playouts it rests on. options: { playouts } (the search's budget; default:
  // the game's, more than the reply's max_playouts is lowered to it). Deterministic, changes
  // nothing: a read, retried after UNAVAILABLE.
  suggestAction(gameId, seat, token, { playouts } = {}) {
    const request = { game_id: gameId, seat };
    if (playouts !== undefined && playouts !== null) request.playouts = playouts;
    return this.call('SuggestAction', request, token, { retry: true });
  }

  // One page of the action log; pageSize 0 (or more than 1000) is 1000 entries. Pass the reply's
  // next_page_token as pageToken (with the same other arguments) for the next page.
  actionLog(gameId, seat, token, { pageSize = 0, pageToken = '', fromIndex = 0 } = {}) {
    const request = { game_id: gameId, seat, page_size: pageSize, page_token: pageToken, from_index: String(fromIndex) };
    return this.call('GetActionLog', request, token, { retry: true });
  }

  // Every log entry from fromIndex on, in order, a page at a time.
  async *actionLogEntries(gameId, seat, token, { pageSize = 200, fromIndex = 0 } = {}) {
    const seen = new Set();
    let pageToken = '';
    do {
      const page = await this.actionLog(gameId, seat, token, { pageSize, pageToken, fromIndex });
      yield* page.entries;
      pageToken = page.next_page_token;
      if (seen.has(pageToken)) throw new Error('GetActionLog repeated a page token');
      seen.add(pageToken);
    } while (pageToken);
  }

  // Follow a game live: an async iterator over the WatchGame stream that resumes by itself
  // (see GameWatch). options: { seat, token, fromVersion (0: start with the current view),
  // eventsOnly, reloadOnExpiry (on VERSION_EXPIRED reload the view and go on from it instead of
  // throwing), retries, backoffMs, firstMessageMs (how long to wait for each open's first
  // message, which the service sends at once, before opening again; a stream the service shed
  // with CANCELLED before its first message is opened again too) }. The stream has no
  // deadline; close() it to stop early.
  watch(gameId, options = {}) {
    return new GameWatch(this, gameId, options);
  }
}

let catalogue = null;

// The shared events' catalogue (lib/events.js), read once.
function eventCatalogue() {
  catalogue ??= JSON.parse(fs.readFileSync(catalogueFile(), 'utf8'));
  return catalogue;
}

// A card as its code: 'QS', 'TH', 'RJ'.
const RANK_CODES = {
  RANK_TWO: '2', RANK_THREE: '3', RANK_FOUR: '4', RANK_FIVE: '5', RANK_SIX: '6', RANK_SEVEN: '7', RANK_EIGHT: '8',
  RANK_NINE: '9', RANK_TEN: 'T', RANK_JACK: 'J', RANK_QUEEN: 'Q', RANK_KING: 'K', RANK_ACE: 'A',
  RANK_BLACK_JOKER: 'BJ', RANK_RED_JOKER: 'RJ',
};
const cardCode = (card) => (RANK_CODES[card.rank] ?? '?') + (card.suit && card.suit !== 'SUIT_UNSPECIFIED' ? card.suit[5] : '');

// One event (from a GameUpdate's events) as a sentence in one of the five languages, from the
// catalogue the Python client and the browser table use too; null for an event newer than
// the catalogue. Options: viewer (the seat called "you"), seats (the game's seat count, 4 by
// default), language ('en' by default; 'fr-CH' counts as 'fr'), cardText (card => text; card
// codes such as 'QS' by default).
function describeEvent(event, { viewer, seats = 4, language = 'en', cardText = cardCode } = {}) {
  return eventText(eventCatalogue(), event, { viewer, seats, language, cardText });
}

// new EngineClient(address, options).
function createClient(address, options) {
  return new EngineClient(address, options);
}

module.exports = {
  EngineClient,
  createClient,
  GameWatch,
  PlaySession,
  GameQuotaExceeded,
  QuotaExceeded,
  RateLimited,
  SEAT_TOKEN_KEY,
  ADMIN_TOKEN_KEY,
  SERVICE_KEY_KEY,
  cardCode,
  chooseCards,
  clockPolicy,
  describeEvent,
  pickLanguage: (wanted) => pickLanguage(eventCatalogue(), wanted),
  enumNumbers,
  errorDetails,
  errorInfo,
  LANGUAGE_KEY,
  status: grpc.status,
};

// The directory cardengine/v1/*.proto are loaded from by default (see lib/protos.js).
Object.defineProperty(module.exports, 'PROTOS_DIR', { enumerable: true, get: cardengineProtosDir });
