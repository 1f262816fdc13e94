import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { healthMonitor, type HealthMonitor } from '../../src/guardrails/health-monitor.js';
import { LatencyHistogram } from '../../src/guardrails/latency-histogram.js';
import {
  circuitBreaker,
  constant,
  fallback,
  pipeline,
  retry,
  timeout,
  watch,
} from '../../src/index.js';
import { instrument } from '../../src/telemetry/instrument.js';
import { VirtualClock } from '../../src/testing/index.js';
import { httpError } from '../helpers/http-error.js';

async function attached<T>(monitor: HealthMonitor, body: () => Promise<T>): Promise<T> {
  const detach = monitor.attach();
  try {
    return await body();
  } finally {
    detach();
  }
}

describe('healthMonitor', () => {
  it('validates its options, naming the option', () => {
    expect(() => healthMonitor({ windowMs: 0 })).toThrow(/windowMs must be a number >= 1, got 0/);
    expect(() => healthMonitor({ buckets: 1.5 })).toThrow(
      /buckets must be an integer >= 1, got 1.5/,
    );
    const m = healthMonitor();
    expect(() => m.record('', { outcome: 'success' })).toThrow(
      /dependency must be a non-empty string/,
    );
    expect(() => m.record('x', { outcome: 'maybe' as never })).toThrow(
      /sample.outcome must be one of/,
    );
  });

  it('builds a per-dependency picture from policy events: calls, failures by kind, retries, rejections, breaker, fallbacks, latency', async () => {
    const clock = new VirtualClock();
    const monitor = healthMonitor({ clock });
    const breaker = circuitBreaker({
      name: 'search',
      failureThreshold: 2,
      cooldownMs: 10_000,
      clock,
    });
    const search = pipeline(
      instrument({ name: 'search', clock }),
      breaker,
      retry({ name: 'search', maxAttempts: 2, clock, backoff: constant(100) }),
    );
    const llm = pipeline(instrument({ name: 'llm', clock }), retry({ name: 'llm', clock }));
    const slowly = (ms: number, outcome: () => string) => async () => {
      await clock.sleep(ms);
      return outcome();
    };
    await attached(monitor, async () => {
      const run = async (p: Promise<unknown>): Promise<unknown> => {
        const settled = p.catch((e: unknown) => e);
        await clock.advance(1_000);
        return settled;
      };
      await run(search.execute(slowly(200, () => 'ok')));
      for (let i = 0; i < 2; i++) {
        await run(
          search.execute(
            slowly(100, () => {
              throw httpError(503, { message: 'service unavailable' });
            }),
          ),
        );
      }
      await run(search.execute(() => 'not run: the circuit is open'));
      await run(
        llm.execute(() =>
          Promise.reject(
            httpError(400, { message: 'prompt is too long: 250000 tokens > 200000 maximum' }),
          ),
        ),
      );
      const ladder = fallback([
        { name: 'search', run: () => 'primary', policy: search },
        { name: 'backup', run: () => 'backup' },
      ]);
      await expect(ladder.execute()).resolves.toMatchObject({ servedBy: 'backup', degraded: true });
    });

    const snap = monitor.snapshot();
    const s = snap.dependencies.search!;
    expect(s).toMatchObject({
      calls: 5,
      successes: 1,
      failures: 4,
      countedFailures: 4,
      errorRate: 0.8,
      retries: 2,
      giveups: 2,
      giveupsByReason: { attempts: 2 },
      rejections: 2,
      fallbacks: 1,
      breakerTransitions: 1,
      breaker: 'open',
    });
    expect(s.failuresByKind).toEqual({
      transient: 4,
      persistent: 0,
      logical: 0,
      fatal: 0,
      cancelled: 0,
    });
    expect(s.failuresByReason).toEqual({ overloaded: 2, circuit_open: 2 });
    // durations on virtual time: 200 (ok), 300 and 300 (two attempts of 100 + 100 backoff), 0 and 0 (rejected)
    expect(s.latencyMs?.count).toBe(5);
    expect(s.latencyMs?.max).toBe(300);
    expect(s.latencyMs?.p50).toBeCloseTo(200, -1);
    expect(s.latencyMs?.p99).toBe(300);
    const l = snap.dependencies.llm!;
    // the caller's own 400 is a failure of the call, not of the dependency (docs/classify.md)
    expect(l).toMatchObject({
      calls: 1,
      failures: 1,
      countedFailures: 0,
      retries: 0,
      errorRate: 0,
    });
    expect(l.failuresByReason).toEqual({ context_overflow: 1 });
    expect(l.failuresByKind.logical).toBe(1);
    expect(snap.fallback).toEqual({ served: 1, degraded: 1, rate: 1, byPath: { backup: 1 } });
    expect(snap.totals).toEqual({ calls: 6, failures: 5, errorRate: 0.8 });
    expect(monitor.errorRate(['search'])).toEqual({ calls: 5, failures: 4, rate: 0.8 });
    expect(monitor.errorRate()).toEqual({ calls: 5, failures: 4, rate: 0.8 });
  });

  it('forgets what is older than the window, one bucket at a time', async () => {
    const clock = new VirtualClock();
    const monitor = healthMonitor({ clock, windowMs: 10_000, buckets: 10 });
    monitor.record('db', { outcome: 'failure', error: httpError(500), durationMs: 5 });
    await clock.advance(5_000);
    monitor.record('db', { outcome: 'success', durationMs: 7 });
    expect(monitor.errorRate()).toEqual({ calls: 2, failures: 1, rate: 0.5 });
    await clock.advance(5_000);
    expect(monitor.errorRate()).toEqual({ calls: 1, failures: 0, rate: 0 });
    expect(monitor.snapshot().dependencies.db?.latencyMs).toEqual({
      count: 1,
      p50: 7,
      p90: 7,
      p99: 7,
      max: 7,
    });
    await clock.advance(5_000);
    const db = monitor.snapshot().dependencies.db!;
    expect(db.calls).toBe(0);
    expect(db.latencyMs).toBeUndefined();
  });

  it('counts caller cancellations apart: they are not failures of the dependency', async () => {
    const monitor = healthMonitor({ clock: new VirtualClock() });
    await attached(monitor, async () => {
      const controller = new AbortController();
      const p = instrument({ name: 'tool' }).execute(
        (ctx) =>
          new Promise((_, reject) =>
            ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)),
          ),
        { signal: controller.signal },
      );
      controller.abort();
      await expect(p).rejects.toMatchObject({ name: 'AbortError' });
      await new Promise((r) => setImmediate(r));
    });
    const tool = monitor.snapshot().dependencies.tool!;
    expect(tool).toMatchObject({ calls: 1, cancelled: 1, failures: 0, errorRate: 0 });
  });

  it('attributes events of unnamed policies (a watch stall, a timeout) to the instrumented call they ran in', async () => {
    const monitor = healthMonitor();
    await attached(monitor, async () => {
      const stream = pipeline(instrument({ name: 'stream' }), timeout(5_000));
      async function* silentAfterOne(): AsyncGenerator<string> {
        yield 'first';
        await new Promise(() => {});
      }
      const error = await stream
        .execute(async () => {
          for await (const _ of watch(silentAfterOne(), { idleMs: 15 })) {
            // consume
          }
        })
        .catch((e: unknown) => e);
      expect((error as Error).name).toBe('StallError');
    });
    const s = monitor.snapshot().dependencies.stream!;
    expect(s.stalls).toBe(1);
    expect(s.failuresByReason).toEqual({ stall: 1 });
    expect(monitor.snapshot().dependencies.unnamed).toBeUndefined();
  });

  it('onSample sees every recorded call with its classification; a throwing listener does not break recording', async () => {
    const monitor = healthMonitor({ clock: new VirtualClock() });
    const seen: string[] = [];
    const off = monitor.onSample((s) =>
      seen.push(`${s.dependency}:${s.outcome}:${s.classification?.reason ?? '-'}`),
    );
    const offBroken = monitor.onSample(() => {
      throw new Error('listener bug');
    });
    const warnings: string[] = [];
    const onWarning = (w: Error): void => {
      warnings.push(w.message);
    };
    process.on('warning', onWarning);
    monitor.record('a', { outcome: 'success' });
    monitor.record('a', { outcome: 'failure', error: httpError(429) });
    off();
    offBroken();
    monitor.record('a', { outcome: 'success' });
    await new Promise((r) => setImmediate(r));
    process.off('warning', onWarning);
    expect(seen).toEqual(['a:success:-', 'a:failure:rate_limited']);
    expect(warnings.some((w) => w.includes('listener bug'))).toBe(true);
    expect(monitor.snapshot().dependencies.a?.calls).toBe(3);
  });
});

describe('healthMonitor: per-name state is bounded (issue 9.15)', () => {
  function watchWarnings(): { warnings: string[]; stop(): void } {
    const warnings: string[] = [];
    const on = (w: Error): void => {
      if (w.name === 'RecourseCardinalityWarning') warnings.push(w.message);
    };
    process.on('warning', on);
    return { warnings, stop: () => process.off('warning', on) };
  }

  it('past maxDependencies, new names are counted as `other`, with one warning; idle names make room again', async () => {
    const clock = new VirtualClock();
    const monitor = healthMonitor({ clock, windowMs: 10_000, buckets: 10, maxDependencies: 3 });
    const seen = watchWarnings();
    try {
      for (const name of ['a', 'b', 'c', 'd', 'e'])
        monitor.record(name, { outcome: 'failure', error: httpError(503) });
      await new Promise((r) => setImmediate(r));
      expect(Object.keys(monitor.snapshot().dependencies).sort()).toEqual(['a', 'b', 'c', 'other']);
      expect(monitor.snapshot().dependencies.other).toMatchObject({ calls: 2, failures: 2 });
      expect(monitor.errorRate()).toEqual({ calls: 5, failures: 5, rate: 1 });
      expect(seen.warnings).toEqual([
        expect.stringMatching(
          /^recourse healthMonitor: 3 dependencies are active in one window; further names are counted as "other"/,
        ),
      ]);
      // a and b stay busy; c falls out of the window and makes room for f
      await clock.advance(6_000);
      monitor.record('a', { outcome: 'success' });
      monitor.record('b', { outcome: 'success' });
      await clock.advance(5_500);
      monitor.record('f', { outcome: 'success' });
      expect(Object.keys(monitor.snapshot().dependencies).sort()).toEqual(['a', 'b', 'f', 'other']);
      expect(seen.warnings).toHaveLength(1);
    } finally {
      seen.stop();
    }
  });

  it('never forgets a dependency whose breaker is open, however idle', async () => {
    const clock = new VirtualClock();
    const monitor = healthMonitor({ clock, windowMs: 1_000, buckets: 2, maxDependencies: 2 });
    const seen = watchWarnings();
    try {
      monitor.observe({
        type: 'state',
        policy: 'circuit-breaker',
        name: 'llm',
        from: 'closed',
        to: 'open',
        at: 0,
      });
      monitor.record('tool', { outcome: 'success' });
      await clock.advance(60_000);
      monitor.record('next', { outcome: 'success' });
      const deps = monitor.snapshot().dependencies;
      expect(Object.keys(deps).sort()).toEqual(['llm', 'next']);
      expect(deps.llm?.breaker).toBe('open');
    } finally {
      seen.stop();
    }
  });

  it('100,000 names, one per request: the monitor keeps at most maxDependencies + 1 of them', async () => {
    const clock = new VirtualClock();
    const monitor = healthMonitor({ clock, maxDependencies: 100 });
    const seen = watchWarnings();
    try {
      for (let i = 0; i < 100_000; i++) {
        monitor.record(`call-${i}`, { outcome: 'success', durationMs: 5 });
        if (i % 1000 === 0) await clock.advance(1_000);
      }
    } finally {
      seen.stop();
    }
    const deps = monitor.snapshot().dependencies;
    expect(Object.keys(deps).length).toBeLessThanOrEqual(101);
    expect(deps.other?.calls).toBeGreaterThan(0);
    expect(() => healthMonitor({ maxDependencies: 0 })).toThrow(
      /^maxDependencies must be an integer >= 1, got 0$/,
    );
  });
});

describe('LatencyHistogram', () => {
  it('property: every percentile is within 2 % of the exact nearest-rank percentile', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0.01, max: 600_000, noNaN: true }), {
          minLength: 1,
          maxLength: 500,
        }),
        (samples) => {
          const h = new LatencyHistogram();
          for (const s of samples) h.record(s);
          const stats = LatencyHistogram.stats([h])!;
          const sorted = [...samples].sort((a, b) => a - b);
          const exact = (q: number): number =>
            sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!;
          for (const [q, got] of [
            [0.5, stats.p50],
            [0.9, stats.p90],
            [0.99, stats.p99],
          ] as const) {
            expect(Math.abs(got - exact(q)) / exact(q)).toBeLessThanOrEqual(0.02);
          }
          expect(stats.max).toBe(sorted[sorted.length - 1]);
          expect(stats.count).toBe(samples.length);
        },
      ),
      { numRuns: 200 },
    );
  });
});
