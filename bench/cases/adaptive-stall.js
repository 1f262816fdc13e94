// Case 10: adaptive vs fixed stall limits on a workload with long thinking gaps (virtual time).
import { fmt } from '../lib/format.js';
import { runWorker } from '../lib/spawn.js';
import { mean, quantile } from '../lib/stats.js';

export const id = 'adaptive-stall';
export const title = '12. Adaptive vs fixed stall limits (thinking and fast models, virtual time)';

export async function run(ctx) {
  const p = ctx.quick ? { streams: 1000, seed: 5 } : { streams: 4000, seed: 5 };
  const r = await runWorker({
    node: ctx.main.path,
    worker: 'adaptive-stall.worker.js',
    args: [p.streams, p.seed],
    timeoutMs: 600_000,
  });
  const summarize = (a) => ({
    falseStalls: a.falseStalls,
    missed: a.missed,
    stalls: a.detections.length,
    median: quantile(a.detections, 0.5),
    mean: mean(a.detections),
    byKind: Object.fromEntries(
      Object.entries(a.detectionsByKind).map(([k, v]) => [
        k,
        { n: v.length, median: v.length ? quantile(v, 0.5) : null },
      ]),
    ),
  });
  const fixed = summarize(r.fixed);
  const adaptive = summarize(r.adaptive);
  const data = {
    fixedMs: r.fixedMs,
    longestGapMs: r.longest,
    fixed,
    adaptive,
    fasterMedian: fixed.median / adaptive.median,
    fasterMean: fixed.mean / adaptive.mean,
    learned: r.learned,
  };
  const columns = [
    { key: 'arm', label: 'arm', align: 'left' },
    { key: 'falseStalls', label: 'false stalls' },
    { key: 'median', label: 'detection median s' },
    { key: 'mean', label: 'detection mean s' },
    { key: 'kinds', label: 'median by model and phase (s)', align: 'left' },
  ];
  const kinds = (d) =>
    Object.entries(d.byKind)
      .map(([k, v]) => `${k} ${v.median === null ? '—' : fmt(v.median / 1000, 1)} (${v.n})`)
      .join(', ');
  const row = (name, d) => ({
    arm: name,
    falseStalls: String(d.falseStalls),
    median: fmt(d.median / 1000, 1),
    mean: fmt(d.mean / 1000, 1),
    kinds: kinds(d),
  });
  const rows = [
    row(`fixed: watch({ idleMs: ${r.fixedMs} }) (just above the longest healthy gap)`, fixed),
    row(
      "adaptive: watch({ idleMs: 'adaptive', adaptive: { floorMs: 2000, capMs: 180000, model } })",
      adaptive,
    ),
  ];
  const notes = [
    `${p.streams} streams (seed ${p.seed}), half from a thinking model (first event after 5–90 s; text every 10–50 ms, 3 % of gaps a 2–8 s thinking pause), half from a fast one (first event after 0.2–1 s; text every 5–35 ms, 2 % of gaps 0.2–1 s); 5 % of streams go silent for good at a random point. Both arms replay the same streams on virtual time.`,
    `Detection: how long the consumer had waited when the stall was reported. Adaptive: ${fmt(data.fasterMedian, 1)}× faster at the median, ${fmt(data.fasterMean, 1)}× on the mean; until 100 gaps of a model and phase were seen its limit is capMs (counted here).`,
  ];
  return { params: p, data, tables: [{ title, columns, rows, notes }] };
}
