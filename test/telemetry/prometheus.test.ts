import { readFileSync } from 'node:fs';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { degradation } from '../../src/guardrails/degradation.js';
import {
  BreakerRegistry,
  constant,
  fallback,
  pipeline,
  retry,
  timeout,
  validate,
  watch,
} from '../../src/index.js';
import { METRICS, type MetricSpec, prometheusMetrics } from '../../src/prometheus/index.js';
import { instrument } from '../../src/telemetry/instrument.js';
import { VirtualClock } from '../../src/testing/index.js';
import { httpError } from '../helpers/http-error.js';

type Labels = Record<string, string | number>;

async function metricValue(
  registry: Registry,
  name: string,
  labels: Labels,
): Promise<number | undefined> {
  const metrics = await registry.getMetricsAsJSON();
  for (const m of metrics) {
    for (const v of m.values as Array<{ labels: Labels; value: number; metricName?: string }>) {
      const metricName = v.metricName ?? m.name;
      if (metricName !== name) continue;
      const keys = Object.keys(labels);
      if (
        keys.length === Object.keys(v.labels).length &&
        keys.every((k) => String(v.labels[k]) === String(labels[k]))
      )
        return v.value;
    }
  }
  return undefined;
}

/** The metric table of docs/observability.md: name → { type, labels }. */
function documentedMetrics(): Map<string, { type: string; labels: string[] }> {
  const doc = readFileSync(new URL('../../docs/observability.md', import.meta.url), 'utf8');
  const rows = new Map<string, { type: string; labels: string[] }>();
  for (const m of doc.matchAll(
    /^\| `(recourse_[a-z_]+)` \| (counter|gauge|histogram) \| ([^|]*) \|/gm,
  )) {
    rows.set(m[1]!, { type: m[2]!, labels: [...m[3]!.matchAll(/`([a-z_]+)`/g)].map((l) => l[1]!) });
  }
  return rows;
}

describe('agent-recourse/prometheus', () => {
  it('docs/observability.md documents exactly the metrics registered, with their types and labels', async () => {
    const registry = new Registry();
    const metrics = prometheusMetrics({ registry });
    metrics.stop();
    const registered = new Map((await registry.getMetricsAsJSON()).map((m) => [m.name, m.type]));
    const documented = documentedMetrics();
    expect([...documented.keys()].sort()).toEqual([...registered.keys()].sort());
    for (const [name, row] of documented) {
      expect(registered.get(name), name).toBe(row.type);
      expect(
        (METRICS as Record<string, MetricSpec>)[name.replace(/^recourse_/, '')]?.labels,
        name,
      ).toEqual(row.labels);
    }
  });

  it('counts a scenario with the right names, labels and values', async () => {
    const clock = new VirtualClock();
    const registry = new Registry();
    const breakers = new BreakerRegistry({ failureThreshold: 1, cooldownMs: 60_000, clock });
    breakers.get('idle-dependency');
    const metrics = prometheusMetrics({ registry, breakers });
    const search = pipeline(
      instrument({ name: 'search', clock }),
      breakers.get('search'),
      retry({ name: 'search', maxAttempts: 3, clock, backoff: constant(100) }),
      instrument({ name: 'search', per: 'attempt', clock }),
      timeout(1_000, { name: 'search', clock }),
    );
    const run = async (p: Promise<unknown>): Promise<unknown> => {
      const settled = p.catch((e: unknown) => e);
      await clock.advance(5_000);
      return settled;
    };
    // A: 503 after 50 ms, then success after 150 ms → 300 ms, one retry
    let a = 0;
    await run(
      search.execute(async () => {
        await clock.sleep(a++ === 0 ? 50 : 150);
        if (a === 1) throw httpError(503);
        return 'ok';
      }),
    );
    // B: a hung attempt (timeout at 1 s), then two 503s after 50 ms → 1.3 s, gives up, opens the breaker
    let b = 0;
    await run(
      search.execute(async () => {
        if (b++ === 0) await new Promise(() => {});
        await clock.sleep(50);
        throw httpError(503);
      }),
    );
    // C: refused by the open breaker
    await run(search.execute(() => 'never'));
    // a ladder whose first path is refused too
    const ladder = fallback([
      { name: 'search', run: () => 'never', policy: search },
      { name: 'backup', run: () => 'from backup' },
    ]);
    await expect(ladder.execute()).resolves.toMatchObject({ servedBy: 'backup' });
    // an invalid result, attributed to the instrumented call it happened in
    await pipeline(
      instrument({ name: 'writer', clock }),
      validate(() => 'empty'),
    )
      .execute(() => '')
      .catch(() => {});
    // a degradation controller escalating
    const mode = degradation({
      name: 'agent',
      clock,
      errorRate: () => 0.9,
      levels: [
        { name: 'normal', flags: {} },
        { name: 'degraded', enterAt: 0.2 },
        { name: 'hard', enterAt: 0.5 },
      ],
    });
    expect(mode.level).toBe('hard');
    // a stall (real timers: attributed through the instrumented call's async context)
    async function* silent(): AsyncGenerator<number> {
      yield 1;
      await new Promise(() => {});
    }
    await instrument({ name: 'stream' })
      .execute(async () => {
        for await (const _ of watch(silent(), { idleMs: 10 })) {
          // consume
        }
      })
      .catch(() => {});
    metrics.stop();

    const expectations: Array<[string, Labels, number]> = [
      ['recourse_calls_total', { dependency: 'search', outcome: 'success' }, 1],
      ['recourse_calls_total', { dependency: 'search', outcome: 'failure' }, 3],
      ['recourse_calls_total', { dependency: 'writer', outcome: 'failure' }, 1],
      ['recourse_calls_total', { dependency: 'stream', outcome: 'failure' }, 1],
      ['recourse_call_duration_seconds_count', { dependency: 'search', outcome: 'success' }, 1],
      ['recourse_call_duration_seconds_sum', { dependency: 'search', outcome: 'success' }, 0.3],
      ['recourse_call_duration_seconds_count', { dependency: 'search', outcome: 'failure' }, 3],
      ['recourse_call_duration_seconds_sum', { dependency: 'search', outcome: 'failure' }, 1.3],
      [
        'recourse_call_duration_seconds_bucket',
        { dependency: 'search', outcome: 'failure', le: 0.05 },
        2,
      ],
      [
        'recourse_call_duration_seconds_bucket',
        { dependency: 'search', outcome: 'failure', le: 2.5 },
        3,
      ],
      ['recourse_attempts_total', { dependency: 'search', outcome: 'success' }, 1],
      ['recourse_attempts_total', { dependency: 'search', outcome: 'failure' }, 4],
      ['recourse_attempt_duration_seconds_sum', { dependency: 'search', outcome: 'success' }, 0.15],
      ['recourse_attempt_duration_seconds_sum', { dependency: 'search', outcome: 'failure' }, 1.15],
      ['recourse_retries_total', { dependency: 'search' }, 3],
      ['recourse_giveups_total', { dependency: 'search', reason: 'attempts' }, 1],
      ['recourse_timeouts_total', { dependency: 'search' }, 1],
      ['recourse_rejections_total', { dependency: 'search' }, 2],
      ['recourse_invalid_results_total', { dependency: 'writer' }, 1],
      ['recourse_stalls_total', { dependency: 'stream', phase: 'idle' }, 1],
      ['recourse_fallbacks_total', { from: 'search', to: 'backup' }, 1],
      ['recourse_served_total', { path: 'backup', degraded: 'true' }, 1],
      ['recourse_breaker_state', { dependency: 'search' }, 2],
      ['recourse_breaker_state', { dependency: 'idle-dependency' }, 0],
      ['recourse_breaker_transitions_total', { dependency: 'search', to: 'open' }, 1],
      ['recourse_degradation_level', { controller: 'agent' }, 2],
      [
        'recourse_degradation_changes_total',
        { controller: 'agent', to: 'hard', direction: 'escalate' },
        1,
      ],
    ];
    for (const [name, labels, expected] of expectations) {
      const value = await metricValue(registry, name, labels);
      expect(value, `${name}${JSON.stringify(labels)}`).toBeCloseTo(expected, 9);
    }
    const text = await registry.metrics();
    expect(text).toContain('recourse_retries_total{dependency="search"} 3');
    expect(text).toContain('# TYPE recourse_breaker_state gauge');
  });

  it('built twice on one registry, it shares metrics and subscription; the last stop() stops counting', async () => {
    const registry = new Registry();
    const first = prometheusMetrics({ registry, prefix: 'agent_' });
    const second = prometheusMetrics({ registry, prefix: 'agent_' });
    const fail = () =>
      retry({ name: 'x', maxAttempts: 2, backoff: constant(0) })
        .execute(() => Promise.reject(httpError(500)))
        .catch(() => {});
    await fail();
    expect(await metricValue(registry, 'agent_retries_total', { dependency: 'x' })).toBe(1);
    first.stop();
    first.stop();
    await fail();
    expect(await metricValue(registry, 'agent_retries_total', { dependency: 'x' })).toBe(2);
    second.stop();
    await fail();
    expect(await metricValue(registry, 'agent_retries_total', { dependency: 'x' })).toBe(2);
    expect(() => prometheusMetrics({ registry, prefix: 'bad prefix' })).toThrow(
      /prefix must be a valid metric name prefix/,
    );
    expect(() => prometheusMetrics({ registry, buckets: [] })).toThrow(
      /buckets must be a non-empty array/,
    );
  });

  it('caps the distinct values of each label: later names are counted as `other`, with one warning (issue 9.15)', async () => {
    const registry = new Registry();
    const metrics = prometheusMetrics({ registry, maxLabelValues: 3 });
    const warnings: string[] = [];
    const onWarning = (w: Error): void => {
      if (w.name === 'RecourseCardinalityWarning') warnings.push(w.message);
    };
    process.on('warning', onWarning);
    try {
      // a careless caller names the dependency after each request
      for (let i = 0; i < 10; i++) await instrument({ name: `tool-call-${i}` }).execute(() => 'ok');
      for (let i = 0; i < 3; i++)
        await instrument({ name: `tool-call-${i}` }).execute(() => 'again');
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', onWarning);
      metrics.stop();
    }
    const series = (await registry.getMetricsAsJSON()).find(
      (m) => m.name === 'recourse_calls_total',
    )!.values;
    expect(series.map((v) => [v.labels.dependency, v.value]).sort()).toEqual([
      ['other', 7],
      ['tool-call-0', 2],
      ['tool-call-1', 2],
      ['tool-call-2', 2],
    ]);
    expect(warnings).toEqual([
      expect.stringMatching(
        /^agent-recourse\/prometheus: label "dependency" reached 3 distinct values; further values are counted as "other"/,
      ),
    ]);
    expect(() => prometheusMetrics({ registry: new Registry(), maxLabelValues: 0 })).toThrow(
      /^maxLabelValues must be an integer >= 1, got 0$/,
    );
  });

  it('a breaker that left the list it reads (evicted when idle) leaves the state gauge at the next scrape', async () => {
    const registry = new Registry();
    const breakers = new BreakerRegistry();
    const kept = breakers.get('kept');
    const gone = breakers.get('gone');
    const list = [kept, gone];
    const metrics = prometheusMetrics({ registry, breakers: list });
    metrics.stop();
    expect(await metricValue(registry, 'recourse_breaker_state', { dependency: 'gone' })).toBe(0);
    list.pop();
    expect(
      await metricValue(registry, 'recourse_breaker_state', { dependency: 'gone' }),
    ).toBeUndefined();
    expect(await metricValue(registry, 'recourse_breaker_state', { dependency: 'kept' })).toBe(0);
    expect(() => prometheusMetrics({ registry: new Registry(), breakers: 5 as never })).toThrow(
      /^breakers must be a BreakerRegistry or a list of circuit breakers, got 5$/,
    );
  });
});
