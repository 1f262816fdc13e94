import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type Context,
  type ContextManager,
  context,
  ROOT_CONTEXT,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { afterAll, describe, expect, it } from 'vitest';
import {
  circuitBreaker,
  constant,
  fallback,
  pipeline,
  retry,
  timeout,
  watch,
} from '../../src/index.js';
import { stopSpanEvents, traced } from '../../src/otel/index.js';
import { VirtualClock } from '../../src/testing/index.js';
import { httpError } from '../helpers/http-error.js';

function setup() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, tracer: provider.getTracer('recourse-test') };
}

const idOf = (s: ReadableSpan): string => s.spanContext().spanId;
const eventNames = (s: ReadableSpan): string[] => s.events.map((e) => e.name);

afterAll(() => stopSpanEvents());

describe('agent-recourse/otel', () => {
  it('validates its options', () => {
    expect(() => traced({ name: '' })).toThrow(/name must be a non-empty string/);
    expect(() => traced({ name: 'x', per: 'span' as never })).toThrow(
      /per must be one of 'call', 'attempt', got "span"/,
    );
    expect(() => traced({ name: 'x', spanName: 3 as never })).toThrow(
      /spanName must be a non-empty string, got 3/,
    );
    expect(() => traced({ name: 'x', tracer: {} as never })).toThrow(
      /tracer must be an OpenTelemetry Tracer/,
    );
  });

  it('parent/child spans for a fallback over a pipeline with two retries, with span events', async () => {
    const { exporter, tracer } = setup();
    const clock = new VirtualClock();
    const deep = pipeline(
      traced({ tracer, name: 'deep-research' }),
      circuitBreaker({ name: 'deep-research', failureThreshold: 1, clock }),
      retry({ name: 'deep-research', maxAttempts: 3, clock, backoff: constant(100) }),
      traced({ tracer, name: 'deep-research', per: 'attempt' }),
    );
    const quick = pipeline(
      traced({ tracer, name: 'quick-search' }),
      traced({ tracer, name: 'quick-search', per: 'attempt' }),
    );
    const ladder = fallback([
      {
        name: 'deep-research',
        run: () => Promise.reject(httpError(529, { message: 'overloaded' })),
        policy: deep,
      },
      { name: 'quick-search', run: () => 'quick answer', policy: quick },
    ]);
    const p = traced({ tracer, name: 'research', attributes: { 'app.task': 't-1' } }).execute(() =>
      ladder.execute(),
    );
    await clock.advance(1_000);
    await expect(p).resolves.toMatchObject({
      value: 'quick answer',
      servedBy: 'quick-search',
      degraded: true,
    });

    const spans = exporter.getFinishedSpans();
    const find = (name: string, dependency: string) =>
      spans.filter((s) => s.name === name && s.attributes['recourse.dependency'] === dependency);
    const [root] = find('recourse.call', 'research');
    const [deepSpan] = find('recourse.call', 'deep-research');
    const deepAttempts = find('recourse.attempt', 'deep-research');
    const [quickSpan] = find('recourse.call', 'quick-search');
    const [quickAttempt] = find('recourse.attempt', 'quick-search');
    expect(spans).toHaveLength(7);
    expect(root!.parentSpanContext).toBeUndefined();
    for (const child of [deepSpan!, quickSpan!]) {
      expect(child.parentSpanContext?.spanId).toBe(idOf(root!));
      expect(child.spanContext().traceId).toBe(root!.spanContext().traceId);
    }
    expect(deepAttempts.map((s) => s.attributes['recourse.attempt'])).toEqual([1, 2, 3]);
    for (const a of deepAttempts) {
      expect(a.parentSpanContext?.spanId).toBe(idOf(deepSpan!));
      expect(a.status).toEqual({ code: SpanStatusCode.ERROR, message: 'Error: overloaded' });
      expect(a.attributes).toMatchObject({ 'recourse.outcome': 'failure', 'error.type': 'Error' });
    }
    expect(quickAttempt!.parentSpanContext?.spanId).toBe(idOf(quickSpan!));

    expect(root!.attributes).toMatchObject({
      'app.task': 't-1',
      'recourse.outcome': 'success',
      'recourse.served_by': 'quick-search',
      'recourse.degraded': true,
      'recourse.fallback.failures': 1,
    });
    expect(eventNames(root!)).toEqual(['recourse.fallback', 'recourse.served']);
    expect(root!.events[0]!.attributes).toMatchObject({
      'recourse.policy': 'fallback',
      'recourse.dependency': 'deep-research',
      'recourse.from': 'deep-research',
      'recourse.to': 'quick-search',
      'exception.type': 'RetriesExhaustedError',
    });
    expect(eventNames(deepSpan!)).toEqual([
      'recourse.retry',
      'recourse.retry',
      'recourse.giveup',
      'recourse.state',
      'exception',
    ]);
    expect(deepSpan!.events[0]!.attributes).toMatchObject({
      'recourse.policy': 'retry',
      'recourse.dependency': 'deep-research',
      'recourse.attempt': 1,
      'recourse.max_attempts': 3,
      'recourse.delay_ms': 100,
      'exception.type': 'Error',
      'exception.message': 'overloaded',
      'recourse.error.kind': 'transient',
      'recourse.error.status': 529,
    });
    expect(deepSpan!.events[3]!.attributes).toMatchObject({
      'recourse.from': 'closed',
      'recourse.to': 'open',
    });
    expect(deepSpan!.status.code).toBe(SpanStatusCode.ERROR);
    expect(quickSpan!.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('a rejection by an open breaker is an event on the span of the call it refused', async () => {
    const { exporter, tracer } = setup();
    const breaker = circuitBreaker({ name: 'tools' });
    breaker.isolate();
    await pipeline(traced({ tracer, name: 'tools' }), breaker)
      .execute(() => 'never')
      .catch(() => {});
    const [span] = exporter.getFinishedSpans();
    expect(eventNames(span!)).toEqual(['recourse.reject', 'exception']);
    expect(span!.attributes['error.type']).toBe('CircuitOpenError');
  });

  it('a stall inside an attempt becomes a span event on that attempt', async () => {
    const { exporter, tracer } = setup();
    async function* silentAfterOne(): AsyncGenerator<string> {
      yield 'first';
      await new Promise(() => {});
    }
    await traced({ tracer, name: 'stream', per: 'attempt' })
      .execute(async () => {
        for await (const _ of watch(silentAfterOne(), { idleMs: 15 })) {
          // consume
        }
      })
      .catch(() => {});
    const [span] = exporter.getFinishedSpans();
    expect(eventNames(span!)).toEqual(['recourse.stall', 'exception']);
    expect(span!.events[0]!.attributes).toMatchObject({
      'recourse.policy': 'watch',
      'recourse.phase': 'idle',
      'recourse.limit_ms': 15,
      'recourse.items': 1,
    });
  });

  it('events outside any recourse span are not attached anywhere, and spans of plain values end at once', async () => {
    const { exporter, tracer } = setup();
    await retry({ name: 'loose', maxAttempts: 2, backoff: constant(0) })
      .execute(() => Promise.reject(httpError(503)))
      .catch(() => {});
    expect(exporter.getFinishedSpans()).toHaveLength(0);
    await expect(traced({ tracer, name: 'sync' }).execute(() => 42)).resolves.toBe(42);
    expect(
      exporter.getFinishedSpans().map((s) => [s.name, s.attributes['recourse.outcome']]),
    ).toEqual([['recourse.call', 'success']]);
    // per takes instrument's vocabulary only: the old name 'execute' is refused.
    expect(() => traced({ tracer, name: 'old', per: 'execute' as never })).toThrow(
      /per must be one of 'call', 'attempt', got "execute"/,
    );
    await traced({ tracer, name: 'new', per: 'call' }).execute(() => 1);
    expect(
      exporter
        .getFinishedSpans()
        .slice(1)
        .map((s) => [s.name, s.attributes['recourse.dependency']]),
    ).toEqual([['recourse.call', 'new']]);
  });

  it("a timeout fired by the shared deadline timer is an event on its own call's span", async () => {
    const { exporter, tracer } = setup();
    const clock = new VirtualClock();
    const hang = () => new Promise<never>(() => {});
    // One timer serves all three deadlines; it was armed by the first call.
    const calls = [
      pipeline({ name: 'a' }, traced({ tracer }), timeout(100, { clock })).execute(hang),
      pipeline({ name: 'b' }, traced({ tracer }), timeout(300, { clock })).execute(hang),
      pipeline({ name: 'c' }, traced({ tracer }), timeout(200, { clock })).execute(hang),
    ].map((p) => p.catch(() => {}));
    await clock.advance(400);
    await Promise.all(calls);
    const byName = Object.fromEntries(
      exporter.getFinishedSpans().map((s) => [String(s.attributes['recourse.dependency']), s]),
    );
    for (const [name, ms] of [
      ['a', 100],
      ['b', 300],
      ['c', 200],
    ] as const) {
      expect(eventNames(byName[name]!)).toEqual(['recourse.timeout', 'exception']);
      expect(byName[name]!.events[0]!.attributes).toMatchObject({
        'recourse.timeout_ms': ms,
        'recourse.dependency': name,
      });
    }
  });

  it("with a context manager registered, the attempt after a timed-out one runs in its own call's context", async () => {
    // A minimal AsyncLocalStorage context manager (what @opentelemetry/context-async-hooks does).
    const store = new AsyncLocalStorage<Context>();
    const manager: ContextManager = {
      active: () => store.getStore() ?? ROOT_CONTEXT,
      with: (ctx, fn, thisArg, ...args) => store.run(ctx, () => fn.apply(thisArg, args)),
      bind: (_ctx, target) => target,
      enable() {
        return this;
      },
      disable() {
        return this;
      },
    };
    context.setGlobalContextManager(manager);
    try {
      const { exporter, tracer } = setup();
      const clock = new VirtualClock();
      // retry right over timeout: an expired attempt is handed to retry without another promise.
      const policy = (name: string) =>
        pipeline(
          { name },
          traced({ tracer }),
          retry({ maxAttempts: 2, clock, backoff: constant(0) }),
          timeout(100, { clock }),
        );
      // `a` arms the shared deadline timer (inside a's span) and finishes; b's first attempt hangs,
      // so its expiry is fired by that timer, and b's retry starts its second attempt from there.
      const a = policy('a').execute(() => clock.sleep(50).then(() => 'a'));
      await clock.advance(10);
      const seen: Array<string | undefined> = [];
      const b = policy('b').execute((ctx) => {
        seen.push(trace.getActiveSpan()?.spanContext().spanId);
        return ctx.attempt === 1 ? new Promise<string>(() => {}) : 'b';
      });
      await clock.advance(200);
      await expect(a).resolves.toBe('a');
      await expect(b).resolves.toBe('b');
      const bSpan = exporter
        .getFinishedSpans()
        .find((s) => s.attributes['recourse.dependency'] === 'b')!;
      expect(seen).toEqual([idOf(bSpan), idOf(bSpan)]);
      expect(eventNames(bSpan)).toEqual(['recourse.timeout', 'recourse.retry']);
    } finally {
      context.disable();
    }
  });
});
