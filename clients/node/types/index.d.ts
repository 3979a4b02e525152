// Types of the Node.js client's own API (lib/client.js, lib/errors.js), written by hand over
// the message types generated from the protos (types/generated, by `npm run gen-types`, which
// prepack runs: proto-loader-gen-types with the options lib/client.js loads the protos with).
// Replies are the generated `__Output` types: proto field names, enums as their names, 64-bit
// integers as strings, and each oneof's set field named by a property (`action.hearts.action`).
// Requests take the permissive input types. Types only: the enum objects the generated files
// declare (e.g. `PlayerType`) do not exist at run time; use the string names.

import type { Interceptor, Metadata, ServiceError, status as grpcStatus } from '@grpc/grpc-js';
import type { Action } from './generated/cardengine/v1/Action';
import type { Action__Output } from './generated/cardengine/v1/Action';
import type { Card, Card__Output } from './generated/cardengine/v1/Card';
import type { CardChoice__Output } from './generated/cardengine/v1/CardChoice';
import type { ClockPolicy } from './generated/cardengine/v1/ClockPolicy';
import type { CreateGameResponse__Output } from './generated/cardengine/v1/CreateGameResponse';
import type { EngineServiceClient } from './generated/cardengine/v1/EngineService';
import type { ExpiryAction } from './generated/cardengine/v1/ExpiryAction';
import type { GameEnded__Output } from './generated/cardengine/v1/GameEnded';
import type { GameEvent__Output } from './generated/cardengine/v1/GameEvent';
import type { GameInfo__Output } from './generated/cardengine/v1/GameInfo';
import type { GameState } from './generated/cardengine/v1/GameState';
import type { GameUpdate__Output } from './generated/cardengine/v1/GameUpdate';
import type { GameView__Output } from './generated/cardengine/v1/GameView';
import type { GetActionLogResponse__Output } from './generated/cardengine/v1/GetActionLogResponse';
import type { ListGamesResponse__Output } from './generated/cardengine/v1/ListGamesResponse';
import type { ListGameTypesResponse__Output } from './generated/cardengine/v1/ListGameTypesResponse';
import type { LogEntry__Output } from './generated/cardengine/v1/LogEntry';
import type { PlayerType } from './generated/cardengine/v1/PlayerType';
import type { SuggestActionResponse__Output } from './generated/cardengine/v1/SuggestActionResponse';
import type { SuggestionCandidate__Output } from './generated/cardengine/v1/SuggestionCandidate';
import type { SuggestionValueKind } from './generated/cardengine/v1/SuggestionValueKind';
import type { UpdateSeatResponse__Output } from './generated/cardengine/v1/UpdateSeatResponse';
import type { WatchGameResponse__Output } from './generated/cardengine/v1/WatchGameResponse';
import type { _google_rpc_BadRequest_FieldViolation__Output } from './generated/google/rpc/BadRequest';
import type { _google_rpc_PreconditionFailure_Violation__Output } from './generated/google/rpc/PreconditionFailure';
import type { _google_rpc_QuotaFailure_Violation__Output } from './generated/google/rpc/QuotaFailure';

export type * as cardengine from './generated/engine_service';

export type {
  Action, Action__Output, Card, Card__Output, CardChoice__Output, ClockPolicy, CreateGameResponse__Output,
  ExpiryAction, GameEnded__Output, GameEvent__Output, GameInfo__Output, GameState, GameUpdate__Output, GameView__Output,
  GetActionLogResponse__Output, ListGamesResponse__Output, ListGameTypesResponse__Output, LogEntry__Output,
  PlayerType, SuggestActionResponse__Output, SuggestionCandidate__Output, SuggestionValueKind,
  UpdateSeatResponse__Output,
};

/** The metadata entry a seat token travels in. */
export declare const SEAT_TOKEN_KEY: 'x-seat-token';
/** The metadata entry a game's admin token travels in. */
export declare const ADMIN_TOKEN_KEY: 'x-admin-token';
/** The metadata entry the `serviceKey` option travels in. */
export declare const SERVICE_KEY_KEY: 'x-service-key';
/** The metadata entry the `language` option travels in. */
export declare const LANGUAGE_KEY: 'accept-language';
/** The directory cardengine/v1/*.proto are loaded from by default. */
export declare const PROTOS_DIR: string;
/** gRPC status codes (`status.ABORTED`, ...), as in @grpc/grpc-js. */
export declare const status: typeof grpcStatus;

export interface ClientOptions {
  /** The deadline of each unary call, in milliseconds (default 30000). */
  timeoutMs?: number;
  /** Sent as accept-language: the language of the errors' LocalizedMessage ('fr', 'de-CH, de;q=0.8'). */
  language?: string;
  /** How often a read or SubmitAction is sent again after UNAVAILABLE (default 3). */
  retries?: number;
  /** The first wait before such a retry (a random half of it or more), doubling each time (default 50). */
  backoffMs?: number;
  /** Where cardengine/v1/*.proto are (default PROTOS_DIR). */
  protosDir?: string;
  /** @grpc/grpc-js client interceptors of every call. */
  interceptors?: Interceptor[];
  /** A backend's service key, sent as x-service-key with every call (what its scopes allow). */
  serviceKey?: string;
  /** Speak TLS to a service started with --tls-cert (omitted: plaintext). */
  tls?: TlsOptions;
  /**
   * How often a read, CreateGame or SubmitAction refused with RATE_LIMITED waits out the
   * refusal's retryDelay and is sent again (default 3; 0: never). Table changes never are.
   */
  rateLimitWaits?: number;
  /** The longest such wait in milliseconds (default 5000): a longer retryDelay is thrown at once. */
  maxRateLimitWaitMs?: number;
}

/** PEM roots to trust (omitted: the system's) and, for mutual TLS, the client's certificate. */
export interface TlsOptions {
  rootCerts?: Buffer | string;
  privateKey?: Buffer | string;
  certChain?: Buffer | string;
}

/** A turn clock in seconds; onExpiry defaults to 'heuristic' ('forfeit' is refused for Hearts). */
export interface Clock {
  perDecision: number;
  bank?: number;
  onExpiry?: 'random' | 'heuristic' | 'forfeit' | ExpiryAction;
}

export interface CreateGameOptions {
  /** A Clock, seconds per decision alone, or a ClockPolicy message. */
  clock?: Clock | number | ClockPolicy;
  /** The creator's tags, for listGames filters. */
  labels?: Record<string, string>;
  /** Makes retries safe (default: a fresh UUID4, sent again on every retry). */
  requestId?: string;
}

export interface ListGamesOptions {
  gameType?: string;
  state?: 'waiting' | 'running' | 'over' | GameState;
  /** Every label given must match. */
  labels?: Record<string, string>;
  pageSize?: number;
  pageToken?: string;
}

export interface UpdateSeatOptions {
  /** Who plays the seat from now on; omitted keeps who plays it. */
  playerType?: PlayerType;
  /** Issue the seat a new token (the reply's `token`); the old one stops working at once. */
  reissueToken?: boolean;
}

export interface WatchOptions {
  seat?: number;
  token?: string;
  /** 0 (the default) starts with an update carrying the current view. */
  fromVersion?: number | string | bigint;
  eventsOnly?: boolean;
  /** On VERSION_EXPIRED reload the view and go on from it instead of rejecting with OUT_OF_RANGE. */
  reloadOnExpiry?: boolean;
  /** How often the watch resumes after UNAVAILABLE or WATCHER_TOO_SLOW without progress (default 3). */
  retries?: number;
  backoffMs?: number;
  /** How long each open waits for its first message (sent at once) before opening again (default 10000). */
  firstMessageMs?: number;
}

export type WatchItem =
  | { message: 'update'; update: GameUpdate__Output }
  | { message: 'ended'; ended: GameEnded__Output };

/** A resuming WatchGame stream: every version once, in order, then `ended`. */
export declare class GameWatch implements AsyncIterable<WatchItem> {
  /** The last version received. */
  readonly version: string;
  /** How often the stream was opened again. */
  readonly reopened: number;
  readonly gameId: string;
  close(): void;
  [Symbol.asyncIterator](): AsyncGenerator<WatchItem, void, undefined>;
}

export interface ActionLogOptions {
  pageSize?: number;
  pageToken?: string;
  fromIndex?: number | string;
}

export declare class EngineClient {
  constructor(address: string, options?: ClientOptions);
  /** The generated gRPC client underneath. */
  readonly stub: EngineServiceClient;
  readonly language: string | undefined;
  close(): void;
  /** The metadata of a call: the seat token, admin token, service key and language, when given. */
  metadata(token?: string, adminToken?: string | null): Metadata;
  listGameTypes(): Promise<ListGameTypesResponse__Output>;
  /** Retried after UNAVAILABLE with the same request_id: one game at most. admin_token is the backend's. */
  createGame(gameType: string, seats: PlayerType[], seed?: number | string | bigint | null,
    options?: CreateGameOptions): Promise<CreateGameResponse__Output>;
  /** One page of games, newest first; retried after UNAVAILABLE. */
  listGames(options?: ListGamesOptions): Promise<ListGamesResponse__Output>;
  /** Every game listGames finds, page after page. */
  listAllGames(options?: Omit<ListGamesOptions, 'pageToken'>): AsyncGenerator<GameInfo__Output, void, undefined>;
  /** A game's metadata; adminToken may be omitted with a serviceKey. Retried after UNAVAILABLE. */
  getGame(gameId: string, adminToken?: string | null): Promise<GameInfo__Output>;
  /** The seat's player leaves (or resigns); the seat's view after. Sent once. */
  leaveGame(gameId: string, seat: number, token: string, options?: { resign?: boolean }): Promise<GameView__Output>;
  /** Hand a seat over and/or issue it a new token. Sent once. */
  updateSeat(gameId: string, seat: number, adminToken: string | null | undefined,
    options?: UpdateSeatOptions): Promise<UpdateSeatResponse__Output>;
  /** End the game now with `reason`, no winner; the spectator's view. Sent once. */
  endGame(gameId: string, adminToken: string | null | undefined, reason: string): Promise<GameView__Output>;
  /** A new game from a finished one; ALREADY_EXISTS (ALREADY_REMATCHED) the second time. Sent once. */
  rematchGame(gameId: string, adminToken: string | null | undefined): Promise<CreateGameResponse__Output>;
  view(gameId: string, seat?: number, token?: string): Promise<GameView__Output>;
  /** Retried after UNAVAILABLE with the same request_id; the service applies it at most once. */
  submit(gameId: string, seat: number, token: string, action: Action, expectedVersion: number | string,
    requestId?: string): Promise<GameView__Output>;
  /**
   * What the game's search bot would play for `seat` now, with every move it compared (mean value in the
   * unit of value_kind, higher is better; the playouts it rests on). Deterministic, changes nothing;
   * retried after UNAVAILABLE. `playouts`: the budget (default the game's; lowered to max_playouts).
   */
  suggestAction(gameId: string, seat: number, token: string,
    options?: { playouts?: number | null }): Promise<SuggestActionResponse__Output>;
  actionLog(gameId: string, seat?: number, token?: string, options?: ActionLogOptions): Promise<GetActionLogResponse__Output>;
  actionLogEntries(gameId: string, seat?: number, token?: string,
    options?: Omit<ActionLogOptions, 'pageToken'>): AsyncGenerator<LogEntry__Output, void, undefined>;
  watch(gameId: string, options?: WatchOptions): GameWatch;
  /** A Play session: many moves and games on one stream; token stands for requests without one. */
  session(token?: string): PlaySession;
}

/** A Play session (lib/session.js): moves, joins and leaves on one stream, answered by ref. */
export declare class PlaySession {
  /** SubmitAction on the session: the seat's view after the move; rejects with the move's error. */
  move(gameId: string, seat: number, token: string | undefined, action: Action | Action__Output,
    expectedVersion: string | number, requestId?: string): Promise<GameView__Output>;
  /** Follow a game: its WatchGame messages come from updates(). */
  join(gameId: string, options?: { seat?: number; token?: string; fromVersion?: string | number; eventsOnly?: boolean }): void;
  /** Stop following a game. */
  leave(gameId: string): Promise<void>;
  /** Every joined game's messages; a join's error is thrown and ends this iteration only. */
  updates(): AsyncGenerator<{ gameId: string; message: WatchGameResponse__Output }>;
  /** No more requests: the answers in flight come, then the session ends. */
  close(): Promise<void>;
}

/** new EngineClient(address, options). */
export declare function createClient(address: string, options?: ClientOptions): EngineClient;

/** The ClockPolicy request message of a clock as createGame takes it. */
export declare function clockPolicy(clock: Clock | number | ClockPolicy): ClockPolicy;

/** The action of a card choice with `cards` filled in. */
export declare function chooseCards(choice: CardChoice__Output, cards: Array<Card | Card__Output>): Action__Output;

/** A card as its code: 'QS', 'TH', 'RJ'. */
export declare function cardCode(card: Card | Card__Output): string;

export interface DescribeEventOptions {
  /** The seat called "you". */
  viewer?: number;
  /** The game's seat count (4 by default). */
  seats?: number;
  /** One of en, es, fr, de, nl ('en' by default; 'fr-CH' counts as 'fr'). */
  language?: string;
  /** Draws a card; cardCode by default. */
  cardText?: (card: Card__Output) => string;
}

/**
 * One event (from a GameUpdate's events) as a sentence, from the catalogue the Python client
 * and the browser table share; null for an event newer than the catalogue.
 */
export declare function describeEvent(event: GameEvent__Output, options?: DescribeEventOptions): string | null;

/** The events' language for an accept-language style value; English otherwise. */
export declare function pickLanguage(wanted: string | null | undefined): string;

/** The numbers of an enum's value names: enumNumbers('cardengine.v1.Rank').RANK_ACE === 14. */
export declare function enumNumbers(fullName: string, protosDir?: string): Record<string, number>;

export interface ErrorInfo {
  reason: string;
  domain: string;
  metadata: Record<string, string>;
}

export interface DecodedDetail {
  /** The full message name, e.g. 'google.rpc.ErrorInfo'. */
  type: string;
  /** The decoded message (proto field names), or its bytes when the type is not google.rpc's. */
  value: Record<string, unknown> | Buffer;
}

export interface ErrorDetails extends ErrorInfo {
  /** The gRPC status code; undefined for an error that is no gRPC status. */
  code: grpcStatus | undefined;
  /** The status message. */
  message: string;
  /** metadata.ruleId: the rule a FAILED_PRECONDITION broke (e.g. 'H-R2'), else ''. */
  ruleId: string;
  /** The PreconditionFailure's violations: type 'RULE', subject the rule id. */
  violations: _google_rpc_PreconditionFailure_Violation__Output[];
  /** The BadRequest's field violations. */
  fieldViolations: _google_rpc_BadRequest_FieldViolation__Output[];
  /** The RetryInfo's delay in seconds: how long to wait before trying again; null without one. */
  retryDelay: number | null;
  /** The QuotaFailure's violations: subject 'service_key:<name>', description the quota. */
  quotaViolations: _google_rpc_QuotaFailure_Violation__Output[];
  /** The explanation in the negotiated language, if sent. */
  localizedMessage: { locale: string; message: string } | null;
  /** Every detail of the google.rpc.Status, in order. */
  details: DecodedDetail[];
}

/** Decodes the google.rpc.Status in the grpc-status-details-bin trailer of a failed call. */
export declare function errorDetails(error: Partial<ServiceError> | Error | unknown): ErrorDetails;
/** The ErrorInfo alone. */
export declare function errorInfo(error: Partial<ServiceError> | Error | unknown): ErrorInfo;

/**
 * A call refused by a service key's quota (RESOURCE_EXHAUSTED; nothing was done). It keeps the
 * gRPC error's code, details and metadata (errorDetails() reads it alike); `cause` is that error.
 */
export declare class QuotaExceeded extends Error {
  readonly code: grpcStatus;
  readonly details: string;
  readonly metadata: Metadata;
  /** 'RATE_LIMITED' or 'GAME_QUOTA_EXCEEDED'. */
  readonly reason: string;
  /** Seconds until the call would fit (RetryInfo), or null. */
  readonly retryDelay: number | null;
  readonly quotaViolations: _google_rpc_QuotaFailure_Violation__Output[];
}
/** RATE_LIMITED: the key's call bucket is empty (waited out for calls safe to repeat). */
export declare class RateLimited extends QuotaExceeded {}
/** GAME_QUOTA_EXCEEDED: the key made its games for the window; never retried. */
export declare class GameQuotaExceeded extends QuotaExceeded {}
