// Case 6: reproducing Brooker's "Exponential Backoff and Jitter" (AWS Architecture Blog, 2015).
import { fmt, ratio } from '../lib/format.js';
import { runWorker } from '../lib/spawn.js';
import { relDiff } from '../lib/stats.js';

export const id = 'jitter';
export const title = "6. Jitter: Brooker's OCC contention simulation (100 clients, virtual time)";

const LABELS = {
  none: 'exponential, no jitter',
  full: 'full jitter',
  equal: 'equal jitter',
  decorrelated: 'decorrelated jitter',
  'no-backoff': '(no backoff at all)',
};

export async function run(ctx) {
  const p = {
    clients: 100,
    sims: ctx.quick ? 30 : 100,
    seed: 1,
    rerunSeed: 2,
    baseMs: 5,
    capMs: 2000,
    network: '|N(10 ms, 2 ms)| per message',
  };
  const main = await runWorker({
    node: ctx.main.path,
    worker: 'jitter.worker.js',
    args: [p.seed, p.sims, p.clients, 'recourse'],
  });
  const rerun = await runWorker({
    node: ctx.main.path,
    worker: 'jitter.worker.js',
    args: [p.rerunSeed, p.sims, p.clients, 'recourse'],
  });
  const brooker = await runWorker({
    node: ctx.main.path,
    worker: 'jitter.worker.js',
    args: [p.rerunSeed, p.sims, p.clients, 'brooker'],
  });
  const algorithms = Object.keys(main.results);
  const data = {
    main: main.results,
    rerun: rerun.results,
    brooker: brooker.results,
    diffRerun: {},
    diffBrooker: {},
  };
  for (const a of algorithms) {
    data.diffRerun[a] = {
      calls: relDiff(main.results[a].calls, rerun.results[a].calls),
      time: relDiff(main.results[a].timeMs, rerun.results[a].timeMs),
    };
    data.diffBrooker[a] = {
      calls: relDiff(main.results[a].calls, brooker.results[a].calls),
      time: relDiff(main.results[a].timeMs, brooker.results[a].timeMs),
    };
  }
  const none = main.results.none.calls;
  data.fullOverNone = main.results.full.calls / none;
  data.maxDiffRerun = Math.max(
    ...algorithms.flatMap((a) => [data.diffRerun[a].calls, data.diffRerun[a].time]),
  );
  data.maxDiffBrooker = Math.max(
    ...algorithms.flatMap((a) => [data.diffBrooker[a].calls, data.diffBrooker[a].time]),
  );
  const pct = (x) => `${fmt(x * 100, 1)}%`;
  const columns = [
    { key: 'label', label: 'backoff (recourse exponential())', align: 'left' },
    { key: 'calls', label: 'calls' },
    { key: 'xnone', label: '×no jitter' },
    { key: 'time', label: 'completion ms' },
    { key: 'rcalls', label: 're-run calls' },
    { key: 'rtime', label: 're-run ms' },
    { key: 'dr', label: 'Δ re-run' },
    { key: 'bcalls', label: 'Brooker formulas calls' },
    { key: 'btime', label: 'Brooker formulas ms' },
    { key: 'db', label: 'Δ Brooker' },
  ];
  const rows = algorithms.map((a) => ({
    label: LABELS[a],
    calls: fmt(main.results[a].calls),
    xnone: ratio(main.results[a].calls / none),
    time: fmt(main.results[a].timeMs),
    rcalls: fmt(rerun.results[a].calls),
    rtime: fmt(rerun.results[a].timeMs),
    dr: pct(Math.max(data.diffRerun[a].calls, data.diffRerun[a].time)),
    bcalls: fmt(brooker.results[a].calls),
    btime: fmt(brooker.results[a].timeMs),
    db: pct(Math.max(data.diffBrooker[a].calls, data.diffBrooker[a].time)),
  }));
  const notes = [
    `${p.clients} clients race to update one row with optimistic concurrency (read, then conditional write; a failed write backs off and starts over); every message takes ${p.network}; base ${p.baseMs} ms, cap ${fmt(p.capMs)} ms; calls = writes sent, completion = when the last client succeeded; mean of ${p.sims} simulations per row (seed ${p.seed}).`,
    `re-run: the same simulation with seed ${p.rerunSeed}. Brooker formulas: seed ${p.rerunSeed}, with the backoffs of the post's simulator written out independently (its first sleep is 2·base = 10 ms, recourse's is base = 5 ms). Δ = the larger relative difference of calls and time.`,
    `Full jitter needs ${ratio(data.fullOverNone)} the calls of un-jittered exponential backoff (the post: less than half).`,
  ];
  return { params: p, data, tables: [{ title, columns, rows, notes }] };
}
