'use strict';
// Decoding the google.rpc.Status a failed call carries in its grpc-status-details-bin trailer.
//
// The service sends, in this order, an ErrorInfo (domain "cardengine", a stable reason, and
// metadata such as ruleId), a PreconditionFailure naming the rule for a rule break, a
// BadRequest naming the field for a malformed request, a RetryInfo and a QuotaFailure for a
// service key over its quota (RESOURCE_EXHAUSTED, thrown by the client as RateLimited or
// GameQuotaExceeded, below), and a LocalizedMessage explaining the
// error in the caller's language (the client's `language` option, sent as accept-language).
// The messages are decoded with protobufjs from google/rpc/status.proto and error_details.proto
// (from the maintained google-proto-files package, copied into an installed package at pack
// time); google/protobuf/any.proto and duration.proto are protobufjs's bundled definitions.

const path = require('node:path');
const protobuf = require('protobufjs');
const { RPC_PROTOS, rpcProtosDir } = require('./protos');

const DETAILS_KEY = 'grpc-status-details-bin';
const CONVERSION = { longs: String, enums: String, bytes: Buffer, defaults: true, arrays: true, objects: true };

let rpcRoot = null;
function root() {
  if (!rpcRoot) {
    const dir = rpcProtosDir();
    rpcRoot = new protobuf.Root().loadSync(RPC_PROTOS.map((file) => path.join(dir, file)), { keepCase: true });
  }
  return rpcRoot;
}

// A google.protobuf.Any as { type, value }: the decoded message (proto field names) when its type
// is one of google/rpc's, else value is the undecoded bytes.
function unpack(any) {
  const type = String(any.type_url || '').split('/').pop();
  const messageType = type.startsWith('google.rpc.') ? root().lookup(type) : null;
  if (!(messageType instanceof protobuf.Type)) return { type, value: Buffer.from(any.value || []) };
  return { type, value: messageType.toObject(messageType.decode(any.value), CONVERSION) };
}

// Everything a failed call says about itself:
//   { code, message, reason, domain, metadata, ruleId, violations, fieldViolations,
//     retryDelay, quotaViolations, localizedMessage, details }
// code and message come from the error itself (message is the status message, error.details);
// the rest from the trailer: reason/domain/metadata of the ErrorInfo, ruleId its metadata's
// "ruleId" (rule breaks), violations the PreconditionFailure's ({ type, subject, description },
// subject being the rule id), fieldViolations the BadRequest's ({ field, description, ... }),
// retryDelay the RetryInfo's delay in seconds (null without one), quotaViolations the
// QuotaFailure's ({ subject: 'service_key:<name>', description }),
// localizedMessage the LocalizedMessage ({ locale, message }) or null, and details every
// detail unpacked, in order. Without a trailer (a transport failure, a malformed trailer) the
// fields are empty: the status code is what to act on then.
function errorDetails(error) {
  const decoded = {
    code: error && typeof error.code === 'number' ? error.code : undefined,
    message: (error && (error.details ?? error.message)) || '',
    reason: '',
    domain: '',
    metadata: {},
    ruleId: '',
    violations: [],
    fieldViolations: [],
    retryDelay: null,
    quotaViolations: [],
    localizedMessage: null,
    details: [],
  };
  const trailer = error && error.metadata && typeof error.metadata.get === 'function'
    ? error.metadata.get(DETAILS_KEY) : [];
  if (!trailer || trailer.length === 0) return decoded;
  const Status = root().lookupType('google.rpc.Status'); // throws if the protos are missing
  let status;
  try {
    status = Status.toObject(Status.decode(Buffer.from(trailer[0])), CONVERSION);
    decoded.details = status.details.map(unpack);
  } catch {
    decoded.details = [];
    return decoded; // a malformed trailer is treated as none
  }
  if (status.message) decoded.message = status.message;
  for (const { type, value } of decoded.details) {
    if (type === 'google.rpc.ErrorInfo' && !decoded.reason) {
      decoded.reason = value.reason;
      decoded.domain = value.domain;
      decoded.metadata = { ...value.metadata };
      decoded.ruleId = value.metadata.ruleId || '';
    } else if (type === 'google.rpc.PreconditionFailure') {
      decoded.violations.push(...value.violations);
    } else if (type === 'google.rpc.BadRequest') {
      decoded.fieldViolations.push(...value.field_violations);
    } else if (type === 'google.rpc.RetryInfo' && decoded.retryDelay === null) {
      const delay = value.retry_delay || {};
      decoded.retryDelay = Number(delay.seconds || 0) + Number(delay.nanos || 0) / 1e9;
    } else if (type === 'google.rpc.QuotaFailure') {
      decoded.quotaViolations.push(...value.violations);
    } else if (type === 'google.rpc.LocalizedMessage' && !decoded.localizedMessage) {
      decoded.localizedMessage = { locale: value.locale, message: value.message };
    }
  }
  return decoded;
}

// The google.rpc.ErrorInfo of a failed call: { reason, domain, metadata } (e.g.
// metadata.ruleId), empty strings and {} when there is none.
function errorInfo(error) {
  const { reason, domain, metadata } = errorDetails(error);
  return { reason, domain, metadata };
}

// A call refused by a service key's quota (RESOURCE_EXHAUSTED): nothing was done. It keeps the
// gRPC error's code, details (the status message) and metadata, so errorDetails() reads it as
// it read the original (its `cause`), and adds reason, retryDelay (seconds, or null) and
// quotaViolations.
class QuotaExceeded extends Error {
  constructor(error, details = errorDetails(error)) {
    super(error.message, { cause: error });
    this.name = new.target.name;
    this.code = error.code;
    this.details = error.details;
    this.metadata = error.metadata;
    this.reason = details.reason;
    this.retryDelay = details.retryDelay;
    this.quotaViolations = details.quotaViolations;
  }
}

// RATE_LIMITED: the key's call bucket is empty; a token is back within retryDelay seconds.
class RateLimited extends QuotaExceeded {}

// GAME_QUOTA_EXCEEDED: the key made its games for the window (metadata.limit); the oldest
// leaves it within retryDelay seconds. A budget to plan around: never retried by the client.
class GameQuotaExceeded extends QuotaExceeded {}

const QUOTA_CLASSES = { RATE_LIMITED: RateLimited, GAME_QUOTA_EXCEEDED: GameQuotaExceeded };
const RESOURCE_EXHAUSTED = 8;

// A Play session's PlayError (field for field a google.rpc.Status) as the error a unary call
// would have thrown: its code, its message as details, and the status in the trailer, so that
// errorDetails() and typedError() read it alike.
function playError(error) {
  const Status = root().lookupType('google.rpc.Status');
  const status = { code: error.code, message: error.message, details: error.details };
  const metadata = new Map([[DETAILS_KEY, [Buffer.from(Status.encode(Status.fromObject(status)).finish())]]]);
  const failure = new Error(`${error.code} ${error.message}`);
  return Object.assign(failure, { code: error.code, details: error.message, metadata: { get: (key) => metadata.get(key) ?? [] } });
}

// The error a call throws for `error`: a QuotaExceeded subclass for a key's quota refusals,
// else `error` itself (the gRPC error, as before).
function typedError(error) {
  if (!error || error.code !== RESOURCE_EXHAUSTED) return error;
  const details = errorDetails(error);
  const Class = details.domain === 'cardengine' ? QUOTA_CLASSES[details.reason] : undefined;
  return Class ? new Class(error, details) : error;
}

module.exports = {
  DETAILS_KEY,
  GameQuotaExceeded,
  QuotaExceeded,
  RateLimited,
  errorDetails,
  errorInfo,
  playError,
  typedError,
};
