'use strict';
// Where the .proto files are, in this repository and in an installed package.
//
// An installed package (from `npm pack`) carries its own copy in protos/: the prepack script
// copies the service's protos from the repository's protos/ and google/rpc/status.proto and
// error_details.proto from the google-proto-files package, and postpack removes the copy
// again, so inside the repository the loader reads the repository's protos/ and
// node_modules/google-proto-files (a devDependency), never a stale copy.
// CARDENGINE_PROTOS=/path/to/protos overrides where the cardengine protos are read from.
// The events' wording (the catalogue clients/text/events.json, lib/events.js) is found the same
// way: the packaged copy in text/, else the repository's.

const fs = require('node:fs');
const path = require('node:path');

const PACKAGE_DIR = path.resolve(__dirname, '..');
const PACKAGED_PROTOS = path.join(PACKAGE_DIR, 'protos');
const REPO_PROTOS = path.resolve(PACKAGE_DIR, '..', '..', 'protos');
const SERVICE_PROTO = 'cardengine/v1/engine_service.proto';
const RPC_PROTOS = ['google/rpc/status.proto', 'google/rpc/error_details.proto'];

const PACKAGED_CATALOGUE = path.join(PACKAGE_DIR, 'text', 'events.json');
const REPO_CATALOGUE = path.resolve(PACKAGE_DIR, '..', 'text', 'events.json');

const has = (dir, file) => fs.existsSync(path.join(dir, file));

// The include directory of cardengine/v1/*.proto.
function cardengineProtosDir() {
  if (process.env.CARDENGINE_PROTOS) return path.resolve(process.env.CARDENGINE_PROTOS);
  for (const dir of [PACKAGED_PROTOS, REPO_PROTOS]) {
    if (has(dir, SERVICE_PROTO)) return dir;
  }
  throw new Error(`cannot find ${SERVICE_PROTO} in ${PACKAGED_PROTOS} or ${REPO_PROTOS}; set CARDENGINE_PROTOS`);
}

// The include directory of google/rpc/status.proto and error_details.proto.
function rpcProtosDir() {
  if (RPC_PROTOS.every((file) => has(PACKAGED_PROTOS, file))) return PACKAGED_PROTOS;
  let dir;
  try {
    dir = path.dirname(require.resolve('google-proto-files/package.json'));
  } catch {
    throw new Error(`cannot find ${RPC_PROTOS.join(', ')}: not packaged in ${PACKAGED_PROTOS}, `
      + 'and google-proto-files is not installed (npm ci in clients/node)');
  }
  return dir;
}

// The events' catalogue file.
function catalogueFile() {
  const found = [PACKAGED_CATALOGUE, REPO_CATALOGUE].find((file) => fs.existsSync(file));
  if (found === undefined) throw new Error(`cannot find the events' catalogue at ${PACKAGED_CATALOGUE} or ${REPO_CATALOGUE}`);
  return found;
}

module.exports = {
  PACKAGE_DIR, PACKAGED_PROTOS, REPO_PROTOS, SERVICE_PROTO, RPC_PROTOS, PACKAGED_CATALOGUE, REPO_CATALOGUE,
  cardengineProtosDir, rpcProtosDir, catalogueFile,
};
