'use strict';
// A scripted EngineService on a free loopback port for tests that need a server to behave in
// a set way (send nothing, record what it was sent): handlers by method name, as grpc-js
// takes them. Resolves to { address, server }; stop it with server.forceShutdown().
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const { SERVICE_PROTO, cardengineProtosDir } = require('../lib/protos');

async function scriptedServer(handlers) {
  const definition = protoLoader.loadSync(SERVICE_PROTO, {
    keepCase: true, longs: String, enums: String, defaults: true, oneofs: true, includeDirs: [cardengineProtosDir()],
  });
  const { service } = grpc.loadPackageDefinition(definition).cardengine.v1.EngineService;
  const server = new grpc.Server();
  server.addService(service, handlers);
  const port = await new Promise((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound)));
  });
  return { address: `127.0.0.1:${port}`, server };
}

module.exports = { scriptedServer };
