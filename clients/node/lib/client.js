'use strict';
// A small promise-based client of cardengine.v1.EngineService.
//
// The messages are loaded at run time from the repository's protos/ directory with
// @grpc/proto-loader, so no generated code is needed: the .proto files are the contract.
// Seat tokens travel as the "x-seat-token" metadata entry, as in the Python client.

const crypto = require('node:crypto');
const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const SEAT_TOKEN_KEY = 'x-seat-token';
const PROTOS_DIR = process.env.CARDENGINE_PROTOS || path.resolve(__dirname, '..', '..', '..', 'protos');

// Field names as in the .proto files, enums as their names, 64-bit integers as strings
// (versions and seeds can exceed 2^53), and the name of the set field of every oneof.
const LOADER_OPTIONS = { keepCase: true, enums: String, longs: String, defaults: true, oneofs: true };

function loadDefinition(protosDir = PROTOS_DIR) {
  return protoLoader.loadSync('cardengine/v1/engine_service.proto', {
    ...LOADER_OPTIONS,
    includeDirs: [protosDir],
  });
}

// The numbers of an enum's value names, e.g. enumNumbers('cardengine.v1.Rank').RANK_ACE === 14.
function enumNumbers(fullName, protosDir = PROTOS_DIR) {
  const values = loadDefinition(protosDir)[fullName].type.value;
  return Object.fromEntries(values.map((value) => [value.name, value.number]));
}

function tokenMetadata(token) {
  const metadata = new grpc.Metadata();
  if (token !== undefined) {
    metadata.set(SEAT_TOKEN_KEY, token);
  }
  return metadata;
}

class EngineClient {
  // address: "host:port" of the service; timeoutMs: deadline of each call.
  constructor(address, { timeoutMs = 30000, protosDir } = {}) {
    const Service = grpc.loadPackageDefinition(loadDefinition(protosDir)).cardengine.v1.EngineService;
    this.stub = new Service(address, grpc.credentials.createInsecure());
    this.timeoutMs = timeoutMs;
  }

  close() {
    this.stub.close();
  }

  call(method, request, token) {
    const deadline = new Date(Date.now() + this.timeoutMs);
    return new Promise((resolve, reject) => {
      this.stub[method](request, tokenMetadata(token), { deadline }, (error, reply) =>
        error ? reject(error) : resolve(reply),
      );
    });
  }

  listGameTypes() {
    return this.call('ListGameTypes', {});
  }

  // seats: PlayerType names, e.g. ["PLAYER_TYPE_HUMAN", "PLAYER_TYPE_BOT_HEURISTIC", ...].
  createGame(gameType, seats, seed) {
    const request = { game_type: gameType, seats };
    if (seed !== undefined) {
      request.seed = String(seed);
    }
    return this.call('CreateGame', request);
  }

  async view(gameId, seat, token) {
    const reply = await this.call('GetGameView', { game_id: gameId, seat }, token);
    return reply.view;
  }

  // One action chosen from the view of version `expectedVersion`; a fresh request_id each
  // time (reuse it only to retry the same action after UNAVAILABLE).
  async submit(gameId, seat, token, action, expectedVersion, requestId = crypto.randomUUID()) {
    const request = {
      game_id: gameId,
      seat,
      expected_version: expectedVersion,
      request_id: requestId,
      action,
    };
    const reply = await this.call('SubmitAction', request, token);
    return reply.view;
  }

  actionLog(gameId, seat, token) {
    return this.call('GetActionLog', { game_id: gameId, seat }, token);
  }
}

module.exports = { EngineClient, SEAT_TOKEN_KEY, PROTOS_DIR, enumNumbers, status: grpc.status };
