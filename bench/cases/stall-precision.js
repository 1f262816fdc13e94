// Case 3: stall-detection precision: how late after idleMs does watch() report a stall?
// The figure's only home: the tests check that a stall comes at its limit and phase, not before
// idleMs, and far sooner than the defaults (test/anthropic/stream-message.test.ts, test/ai-sdk,
// test/openai: once "within idleMs + 50 ms" there); how soon after idleMs is measured here.
import { fmt } from '../lib/format.js';
import { runWorker } from '../lib/spawn.js';
import { quantile } from '../lib/stats.js';

export const id = 'stall';
export const title = '3. Stall-detection precision (watch idleMs 100, detection − 100 ms)';

export async function run(ctx) {
  const p = ctx.quick
    ? { count: 60, concurrency: 8, idleMs: 100 }
    : { count: 200, concurrency: 4, idleMs: 100 };
  const r = await runWorker({
    node: ctx.main.path,
    worker: 'stall.worker.js',
    args: [p.count, p.concurrency, p.idleMs],
  });
  const l = r.lateness;
  const data = {
    stalls: l.length,
    p50: quantile(l, 0.5),
    p90: quantile(l, 0.9),
    p99: quantile(l, 0.99),
    min: Math.min(...l),
    max: Math.max(...l),
    early: l.filter((x) => x < 0).length,
    lateness: l.map((x) => Math.round(x * 1000) / 1000),
  };
  const columns = [
    { key: 'node', label: 'node', align: 'left' },
    { key: 'stalls', label: 'stalls' },
    { key: 'p50', label: 'p50 ms' },
    { key: 'p90', label: 'p90 ms' },
    { key: 'p99', label: 'p99 ms' },
    { key: 'range', label: 'min–max ms' },
    { key: 'early', label: 'early' },
  ];
  const rows = [
    {
      node: ctx.main.version,
      stalls: l.length,
      p50: fmt(data.p50, 2),
      p90: fmt(data.p90, 2),
      p99: fmt(data.p99, 2),
      range: `${fmt(data.min, 2)}–${fmt(data.max, 2)}`,
      early: data.early,
    },
  ];
  const notes = [
    `${p.count} stalls, ${p.concurrency} at a time with random starts; each source yields 2 items and then never answers; lateness is measured from the consumer's third next() to the StallError (early = detected before idleMs).`,
  ];
  return { params: p, data, tables: [{ title, columns, rows, notes }] };
}
