'use strict';
// The caller's OpenTelemetry trace context travels with every call (W3C traceparent), so the
// service's spans join the caller's trace. A scripted server records the metadata it gets.
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { context, propagation } = require('@opentelemetry/api');
const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks');
const { W3CTraceContextPropagator } = require('@opentelemetry/core');
const { BasicTracerProvider } = require('@opentelemetry/sdk-trace-base');
const { EngineClient } = require('../lib/client');
const { scriptedServer } = require('../test-support/scripted-server');

test('a call made inside an active span carries its traceparent', async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const tracer = new BasicTracerProvider().getTracer('caller');
  const seen = [];
  const { address, server } = await scriptedServer({
    GetGameView(call, callback) {
      seen.push(call.metadata.get('traceparent')[0]);
      callback(null, { view: { game_id: 'g1', version: '1' } });
    },
  });
  const client = new EngineClient(address);
  try {
    await client.view('g1');
    const traceId = await tracer.startActiveSpan('caller', async (span) => {
      await client.view('g1');
      span.end();
      return span.spanContext().traceId;
    });
    assert.equal(seen[0], undefined); // no active span: nothing sent
    assert.equal(seen[1].split('-')[1], traceId);
  } finally {
    client.close();
    server.forceShutdown();
  }
});
