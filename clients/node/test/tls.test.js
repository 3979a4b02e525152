'use strict';
// TLS to a real service (ENGINE_TLS_ADDRESS, ENGINE_MTLS_ADDRESS and the PEM files, set by
// tests/service/test_tls.py; skipped without them): a client trusting the CA calls the TLS
// server; the mutual-TLS server refuses a client without a certificate and takes one with it.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const { test } = require('node:test');
const { EngineClient, status } = require('../lib/client');

const env = process.env;
const skip = !env.ENGINE_TLS_ADDRESS && 'ENGINE_TLS_ADDRESS is not set (tests/service/test_tls.py sets it)';

async function gameTypes(address, tls) {
  const client = new EngineClient(address, { tls, retries: 0, timeoutMs: 10000 });
  try {
    return (await client.listGameTypes()).game_types.map((type) => type.name);
  } finally {
    client.close();
  }
}

test('a client trusting the CA calls over TLS', { skip }, async () => {
  const rootCerts = fs.readFileSync(env.ENGINE_TLS_CA);
  assert.ok((await gameTypes(env.ENGINE_TLS_ADDRESS, { rootCerts })).includes('hearts'));
});

test('mutual TLS refuses a client without a certificate', { skip }, async () => {
  const rootCerts = fs.readFileSync(env.ENGINE_TLS_CA);
  await assert.rejects(gameTypes(env.ENGINE_MTLS_ADDRESS, { rootCerts }), (error) => error.code === status.UNAVAILABLE);
});

test('mutual TLS takes a client with a certificate of its CA', { skip }, async () => {
  const tls = {
    rootCerts: fs.readFileSync(env.ENGINE_TLS_CA),
    privateKey: fs.readFileSync(env.ENGINE_TLS_CLIENT_KEY),
    certChain: fs.readFileSync(env.ENGINE_TLS_CLIENT_CERT),
  };
  assert.ok((await gameTypes(env.ENGINE_MTLS_ADDRESS, tls)).includes('hearts'));
});
