// Case 1: success-path overhead, ns and bytes per call, over 1,000,000 sequential awaits.
import { fmt, ratio, signed, withSpread } from '../lib/format.js';
import { runInterleaved } from '../lib/percall.js';
import { median } from '../lib/stats.js';
import { VARIANTS } from './overhead-variants.js';

export const id = 'overhead';
export const title = '1. Success-path overhead (ns per call, sequential awaits)';
export const perRuntime = true;

export async function run(ctx) {
  const p = ctx.quick
    ? {
        rounds: ctx.rounds ?? 3,
        iterations: 100_000,
        warmup: 20_000,
        warmupMs: 150,
        budgetMs: 200,
        allocIterations: 2_000,
      }
    : {
        rounds: ctx.rounds ?? 7,
        iterations: 1_000_000,
        warmup: 100_000,
        warmupMs: 500,
        budgetMs: 2_000,
        allocIterations: 5_000,
      };
  const variants = VARIANTS.filter((v) => !(ctx.quick && v.extra)).map((v) => v.name);
  const timing = await runInterleaved({
    runtimes: ctx.runtimes,
    variants,
    rounds: p.rounds,
    command: (_rt, v) => ({
      worker: 'overhead.worker.js',
      flags: ['--expose-gc'],
      args: [v, p.iterations, p.warmup, p.budgetMs, p.warmupMs, p.allocIterations],
    }),
    value: (r) => r.nsPerCall,
    log: ctx.log,
    seed: 11,
  });
  // Bytes per call: the median over the rounds.
  const bytes = new Map();
  for (const rt of ctx.runtimes) {
    const m = new Map();
    for (const v of variants) {
      const b = timing
        .get(rt.version)
        .get(v)
        .results.map((r) => r.bytesPerCall)
        .filter((x) => x !== null);
      m.set(v, b.length > 0 ? median(b) : Number.NaN);
    }
    bytes.set(rt.version, m);
  }

  const data = {};
  for (const rt of ctx.runtimes) {
    const t = timing.get(rt.version);
    const bare = t.get('bare').summary.median;
    const bareBytes = bytes.get(rt.version).get('bare');
    const rows = {};
    for (const v of variants) {
      const meta = VARIANTS.find((x) => x.name === v);
      const s = t.get(v).summary;
      const equiv = meta.equiv ?? (meta.lib === 'cockatiel' ? v : undefined);
      const e = equiv && t.has(equiv) ? t.get(equiv).summary.median : undefined;
      rows[v] = {
        label: meta.label,
        lib: meta.lib,
        nsPerCall: s,
        samples: t.get(v).samples,
        iterations: t.get(v).results.map((r) => r.iterations),
        overheadNs: s.median - bare,
        equiv,
        ratioTotal: e === undefined ? undefined : s.median / e,
        ratioOverhead: e === undefined ? undefined : (s.median - bare) / (e - bare),
        bytesPerCall: bytes.get(rt.version).get(v),
        bytesOverBare: bytes.get(rt.version).get(v) - bareBytes,
      };
    }
    data[rt.version] = rows;
  }

  const columns = [{ key: 'label', label: 'variant', align: 'left' }];
  for (const rt of ctx.runtimes) {
    const n = rt.version.split('.')[0];
    columns.push(
      { key: `ns${n}`, label: `${n} ns/call (min–max)` },
      { key: `over${n}`, label: `${n} +bare` },
      { key: `rt${n}`, label: `${n} ×ck` },
      { key: `ro${n}`, label: `${n} ×ck (+bare)` },
      { key: `b${n}`, label: `${n} B/call` },
    );
  }
  const rows = variants.map((v) => {
    const row = { label: VARIANTS.find((x) => x.name === v).label };
    for (const rt of ctx.runtimes) {
      const n = rt.version.split('.')[0];
      const d = data[rt.version][v];
      row[`ns${n}`] = withSpread(d.nsPerCall);
      row[`over${n}`] = v === 'bare' ? '' : signed(d.overheadNs);
      row[`rt${n}`] = d.equiv && d.equiv !== v ? ratio(d.ratioTotal) : '';
      row[`ro${n}`] = d.equiv && d.equiv !== v ? ratio(d.ratioOverhead) : '';
      row[`b${n}`] = fmt(d.bytesPerCall);
    }
    return row;
  });
  const notes = [
    `${p.rounds} rounds × 1 fresh process per variant and runtime, order shuffled each round; ${fmt(p.iterations)} sequential awaits per process after ${fmt(p.warmup)} warm-up calls (fewer for variants so slow that the loop would take over ${p.budgetMs / 1000} s; the count per process is in results.json).`,
    "+bare = median − median of bare `await fn()`; ×ck = median / median of cockatiel's equivalent; ×ck (+bare) = the same ratio on the overhead above bare.",
    `B/call: in the same processes after the timed loop: heap growth over up to ${fmt(p.allocIterations)} calls after gc() (young generation, plus the other spaces when they grow), discarding any loop during which a GC ran, so every allocation is still on the heap; median of 3 loops, then of the rounds. Bare await allocates too (its promise and the await's reaction).`,
  ];
  for (const rt of ctx.runtimes) {
    const d = data[rt.version];
    if (d['als-run'] && d['recourse-pipeline3']) {
      notes.push(
        `AsyncLocalStorage on ${rt.version}: one als.run per call: ${signed(d['als-run'].overheadNs)} ns over bare; having entered it once anywhere in the process: ${signed(d['bare-als-active'].overheadNs)} ns on every bare await; the timeout layer (which enters ALS to propagate its deadline) adds ${fmt(d['recourse-pipeline3'].nsPerCall.median - d['recourse-pipeline2'].nsPerCall.median)} ns to pipeline(breaker, retry).`,
      );
    }
  }
  return { params: p, data, tables: [{ title, columns, rows, notes }] };
}
