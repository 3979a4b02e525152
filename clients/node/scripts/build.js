#!/usr/bin/env node
'use strict';
// Package build steps, run by npm (see "scripts" in package.json):
//   node scripts/build.js copy    copy the protos an installed package needs into protos/
//                                 (prepack): cardengine/v1/*.proto from the repository's
//                                 protos/, google/rpc/{status,error_details}.proto from the
//                                 google-proto-files package, and the events' catalogue
//                                 (clients/text/events.json) into text/
//   node scripts/build.js types   generate types/generated/**.d.ts from those protos with
//                                 @grpc/proto-loader's proto-loader-gen-types (then tsc, for
//                                 declarations only); types/index.d.ts imports them
//   node scripts/build.js clean   remove protos/ and text/ again (postpack), so that inside
//                                 the repository the loader reads the repository's files
// Steps run in the order given.

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const {
  PACKAGE_DIR, PACKAGED_PROTOS, REPO_PROTOS, SERVICE_PROTO, RPC_PROTOS, PACKAGED_CATALOGUE, REPO_CATALOGUE,
  cardengineProtosDir, rpcProtosDir,
} = require('../lib/protos');

const GENERATED = path.join(PACKAGE_DIR, 'types', 'generated');
// The same representation lib/client.js loads the messages with.
const LOADER_FLAGS = ['--keepCase', '--longs=String', '--enums=String', '--defaults', '--oneofs'];

function copy() {
  const source = process.env.CARDENGINE_PROTOS ? path.resolve(process.env.CARDENGINE_PROTOS) : REPO_PROTOS;
  if (!fs.existsSync(path.join(source, SERVICE_PROTO))) {
    throw new Error(`no ${SERVICE_PROTO} in ${source}: pack from clients/node in the repository`);
  }
  const rpc = rpcProtosDir();
  if (rpc === PACKAGED_PROTOS) throw new Error('protos/ is already there: run `node scripts/build.js clean` first');
  fs.rmSync(PACKAGED_PROTOS, { recursive: true, force: true });
  fs.cpSync(path.join(source, 'cardengine', 'v1'), path.join(PACKAGED_PROTOS, 'cardengine', 'v1'), {
    recursive: true,
    filter: (file) => fs.statSync(file).isDirectory() || file.endsWith('.proto'),
  });
  for (const file of RPC_PROTOS) {
    fs.mkdirSync(path.dirname(path.join(PACKAGED_PROTOS, file)), { recursive: true });
    fs.copyFileSync(path.join(rpc, file), path.join(PACKAGED_PROTOS, file));
  }
  fs.mkdirSync(path.dirname(PACKAGED_CATALOGUE), { recursive: true });
  fs.copyFileSync(REPO_CATALOGUE, PACKAGED_CATALOGUE);
  console.log(`copied the protos from ${source} and ${rpc} into ${PACKAGED_PROTOS}, the catalogue into ${PACKAGED_CATALOGUE}`);
}

function types() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cardengine-types-'));
  try {
    const generator = require.resolve('@grpc/proto-loader/build/bin/proto-loader-gen-types.js');
    execFileSync(process.execPath, [generator, ...LOADER_FLAGS, '--includeComments', '--grpcLib=@grpc/grpc-js',
      '-I', cardengineProtosDir(), '-I', rpcProtosDir(), '-O', work, SERVICE_PROTO, ...RPC_PROTOS], { stdio: 'inherit' });
    // Declarations only, so the package ships .d.ts (types, no code) beside lib/.
    const sources = fs.readdirSync(work, { recursive: true }).filter((file) => file.endsWith('.ts'));
    const tsconfig = {
      compilerOptions: {
        declaration: true, emitDeclarationOnly: true, outDir: GENERATED, rootDir: work,
        module: 'nodenext', target: 'es2022', strict: true, skipLibCheck: true, types: ['node'],
        typeRoots: [path.join(PACKAGE_DIR, 'node_modules', '@types')],
      },
      files: sources.map((file) => path.join(work, file)),
    };
    fs.writeFileSync(path.join(work, 'tsconfig.json'), JSON.stringify(tsconfig));
    // The generated files import @grpc/grpc-js: resolve it from this package.
    fs.symlinkSync(path.join(PACKAGE_DIR, 'node_modules'), path.join(work, 'node_modules'), 'dir');
    fs.rmSync(GENERATED, { recursive: true, force: true });
    execFileSync(process.execPath, [path.join(path.dirname(require.resolve('typescript/package.json')), 'bin', 'tsc'), '-p', work], { stdio: 'inherit' });
    console.log(`generated ${sources.length} declaration files in ${GENERATED}`);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

function clean() {
  fs.rmSync(PACKAGED_PROTOS, { recursive: true, force: true });
  fs.rmSync(path.dirname(PACKAGED_CATALOGUE), { recursive: true, force: true });
}

const STEPS = { copy, types, clean };
const steps = process.argv.slice(2);
if (steps.length === 0 || steps.some((step) => !(step in STEPS))) {
  console.error(`usage: node scripts/build.js ${Object.keys(STEPS).join('|')} ...`);
  process.exit(2);
}
for (const step of steps) STEPS[step]();
