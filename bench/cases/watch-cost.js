// Case 2: stall-watch cost per item of a `for await` over 1,000,000 items.
import { fmt, ratio, signed, withSpread } from '../lib/format.js';
import { runInterleaved } from '../lib/percall.js';
import { WATCH_VARIANTS } from './watch-variants.js';

export const id = 'watch';
export const title = '2. Stall-watch cost per item (for await over 1,000,000 items)';
export const perRuntime = true;

export async function run(ctx) {
  const p = ctx.quick
    ? { rounds: ctx.rounds ?? 3, items: 100_000, warmup: 30_000 }
    : { rounds: ctx.rounds ?? 7, items: 1_000_000, warmup: 200_000 };
  const variants = WATCH_VARIANTS.filter((v) => !(ctx.quick && v.extra)).map((v) => v.name);
  const timing = await runInterleaved({
    runtimes: ctx.runtimes,
    variants,
    rounds: p.rounds,
    command: (_rt, v) => ({ worker: 'watch.worker.js', args: [v, p.items, p.warmup] }),
    value: (r) => r.nsPerItem,
    log: ctx.log,
    seed: 22,
  });
  const data = {};
  for (const rt of ctx.runtimes) {
    const t = timing.get(rt.version);
    const bare = t.get('bare').summary.median;
    const watch = t.get('watch').summary.median;
    data[rt.version] = Object.fromEntries(
      variants.map((v) => {
        const s = t.get(v).summary;
        return [
          v,
          {
            label: WATCH_VARIANTS.find((x) => x.name === v).label,
            nsPerItem: s,
            samples: t.get(v).samples,
            overBare: s.median - bare,
            timesBare: s.median / bare,
            timesWatchOverhead: (s.median - bare) / (watch - bare),
          },
        ];
      }),
    );
  }
  const columns = [{ key: 'label', label: 'variant', align: 'left' }];
  for (const rt of ctx.runtimes) {
    const n = rt.version.split('.')[0];
    columns.push(
      { key: `ns${n}`, label: `${n} ns/item (min–max)` },
      { key: `xb${n}`, label: `${n} ×bare` },
      { key: `ov${n}`, label: `${n} +bare` },
      { key: `xw${n}`, label: `${n} overhead ×watch's` },
    );
  }
  const rows = variants.map((v) => {
    const row = { label: WATCH_VARIANTS.find((x) => x.name === v).label };
    for (const rt of ctx.runtimes) {
      const n = rt.version.split('.')[0];
      const d = data[rt.version][v];
      row[`ns${n}`] = withSpread(d.nsPerItem);
      row[`xb${n}`] = ratio(d.timesBare);
      row[`ov${n}`] = v === 'bare' ? '' : signed(d.overBare);
      row[`xw${n}`] = v === 'bare' || v === 'watch' ? '' : ratio(d.timesWatchOverhead, 1);
    }
    return row;
  });
  const notes = [
    `${p.rounds} rounds × 1 fresh process per variant and runtime; ${fmt(p.items)} items per process after ${fmt(p.warmup)} warm-up items; the source is an async generator of numbers; idleMs 10 s.`,
    "overhead ×watch's = (variant − bare) / (watch − bare): how many times more per-item overhead than watch.",
  ];
  return { params: p, data, tables: [{ title, columns, rows, notes }] };
}
