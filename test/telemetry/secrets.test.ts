import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { Registry } from 'prom-client';
import { afterAll, describe, expect, it } from 'vitest';
import { healthMonitor } from '../../src/guardrails/health-monitor.js';
import {
  circuitBreaker,
  constant,
  fallback,
  pipeline,
  retry,
  subscribe,
  validate,
} from '../../src/index.js';
import { stopSpanEvents, traced } from '../../src/otel/index.js';
import { prometheusMetrics } from '../../src/prometheus/index.js';
import { explain, explainJSON } from '../../src/telemetry/explain.js';
import { instrument } from '../../src/telemetry/instrument.js';
import { jsonLogger } from '../../src/telemetry/json-logger.js';
import { VirtualClock } from '../../src/testing/index.js';
import { lines } from './helpers.js';

// Not recognisable by shape: only never writing headers keeps these out.
const HEADER_KEY = 'hunter2-plain-header-key-7f3a';
const AUTH_TOKEN = 'opaque-session-token-99c1';
// Recognisable by shape, and also written into the message.
const SDK_KEY = 'sk-ant-api03-Q2VjcmV0S2V5SW5NZXNzYWdl';

function leakyError(): Error {
  return Object.assign(
    new Error(`401 invalid x-api-key ${SDK_KEY} (Authorization: Bearer ${AUTH_TOKEN})`),
    {
      status: 401,
      headers: {
        'x-api-key': HEADER_KEY,
        authorization: `Bearer ${AUTH_TOKEN}`,
        'request-id': 'req_123',
      },
      request: {
        headers: new Headers({ 'X-Api-Key': HEADER_KEY }),
        url: `https://api.example.com/v1?key=${HEADER_KEY}`,
      },
      error: { type: 'authentication_error', message: `invalid key ${SDK_KEY}` },
    },
  );
}

afterAll(() => stopSpanEvents());

describe('secrets never leave the process', () => {
  it('a key in an error’s headers or message appears in no sink’s output', async () => {
    const clock = new VirtualClock();
    const exporter = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    }).getTracer('t');
    const registry = new Registry();
    const metrics = prometheusMetrics({ registry });
    const log = lines();
    const stopLog = subscribe(jsonLogger(log));
    const monitor = healthMonitor({ clock });
    const detach = monitor.attach();

    const primary = pipeline(
      traced({ tracer, name: 'llm' }),
      instrument({ name: 'llm', clock }),
      circuitBreaker({ name: 'llm', failureThreshold: 1, clock }),
      retry({ name: 'llm', maxAttempts: 2, clock, backoff: constant(10), retryOn: () => true }),
      traced({ tracer, name: 'llm', per: 'attempt' }),
      instrument({ name: 'llm', per: 'attempt', clock }),
      validate(
        (v: { apiKey: string }) => v.apiKey === '' || `bad value with x-api-key=${HEADER_KEY}`,
      ),
    );
    const ladder = fallback([
      { name: 'llm', run: () => Promise.reject(leakyError()), policy: primary },
      { name: 'validated', run: () => ({ apiKey: HEADER_KEY }), policy: primary },
    ]);
    const p = traced({ tracer, name: 'agent' })
      .execute(() => ladder.execute())
      .catch((e: unknown) => e);
    await clock.advance(1_000);
    const error = await p;
    stopLog();
    detach();
    metrics.stop();

    const outputs = {
      jsonLogger: log.lines.join(''),
      otel: JSON.stringify(
        exporter.getFinishedSpans().map((s) => ({
          name: s.name,
          attributes: s.attributes,
          events: s.events,
          status: s.status,
        })),
      ),
      prometheus: await registry.metrics(),
      healthSnapshot: JSON.stringify(monitor.snapshot()),
      explain: explain(error),
      explainJSON: JSON.stringify(explainJSON(error)),
    };
    // the scenario really produced output, and really carried the secrets
    expect(log.lines.length).toBeGreaterThan(5);
    expect(outputs.otel).toContain('recourse.retry');
    expect(outputs.explain).toContain('AllPathsFailedError');
    expect(outputs.jsonLogger).toContain('[REDACTED]');
    expect(JSON.stringify(leakyError().message)).toContain(SDK_KEY);
    for (const [sink, text] of Object.entries(outputs)) {
      for (const secret of [HEADER_KEY, AUTH_TOKEN, SDK_KEY, 'Q2VjcmV0S2V5'])
        expect(text, `${sink} leaks ${secret}`).not.toContain(secret);
    }
  });
});
