// Case 14 (run it by name: `npm run bench -- --only instructions`): machine instructions per call
// of the case-1 and case-2 variants, counted by valgrind (callgrind), not timed.
//
// The time cases move by a tenth from one fresh process to the next on this machine (the same
// bare `for await` runs at about 190 or about 340 ns per item); a count of instructions moves by a
// few percent. It tells a change of a few instructions from noise, and shows how far recourse is
// from the "floor" variants (the least any wrapper can do) on each runtime. Counts are not time (a
// promise hook or an allocation costs more than its count says): the goals stay in ns.
//
// Each variant runs in a fresh process under `valgrind --tool=callgrind`, with V8 on one thread
// (`--single-threaded`: no background compiler or GC thread whose share would vary), twice: with
// `small` and with `large` calls after the same warm-up. Instructions per call = the difference of
// the two totals / (large − small), so start-up, loading and warm-up cancel out.
import { execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { fmt, ratio, withSpread } from '../lib/format.js';
import { summarize } from '../lib/stats.js';
import { byName } from './overhead-variants.js';
import { WATCH_VARIANTS } from './watch-variants.js';

export const id = 'instructions';
export const title = '14. Instructions per call, counted by valgrind (cases 1 and 2)';
export const perRuntime = true;
/** Not part of a plain `npm run bench`: it needs valgrind and about 9 minutes per runtime. */
export const optional = true;

const CASES = fileURLToPath(new URL('./', import.meta.url));
const OVERHEAD = [
  'bare',
  'floor-then',
  'floor-race',
  'als-run',
  'floor-pipeline3',
  'recourse-pipeline2',
  'recourse-pipeline3',
];
const WATCH = ['bare', 'floor', 'watch', 'refresh', 'naive-rearm'];

function hasValgrind() {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Total instructions of one run of `worker args` under callgrind. */
function count(node, worker, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'valgrind',
      [
        '--tool=callgrind',
        '--callgrind-out-file=/dev/null',
        node,
        '--single-threaded',
        CASES + worker,
        ...args.map(String),
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const m = /Collected : (\d+)/.exec(stderr);
      if (code !== 0 || m === null)
        reject(
          new Error(
            `valgrind ${worker} ${args.join(' ')} exited with ${code}\n${stderr.slice(-1500)}`,
          ),
        );
      else resolve(Number(m[1]));
    });
  });
}

/** Instructions per call of one variant: the median of `p.rounds` counts, each from a pair of runs. */
async function perCall(node, kind, variant, p) {
  const run = (n) =>
    kind === 'watch'
      ? count(node, 'watch.worker.js', [variant, n, p.warmup])
      : // A budget and warm-up time so large that the counts of calls are exactly the ones given.
        count(node, 'overhead.worker.js', [variant, n, p.warmup, 1e9, 1e9, 0]);
  const samples = [];
  for (let i = 0; i < p.rounds; i++) {
    const [small, large] = await Promise.all([run(p.small), run(p.large)]);
    samples.push((large - small) / (p.large - p.small));
  }
  return { ...summarize(samples), samples };
}

export async function run(ctx) {
  if (!hasValgrind())
    throw new Error('valgrind is not installed (Debian: apt-get install -y valgrind)');
  const p = ctx.quick
    ? { rounds: ctx.rounds ?? 1, small: 20_000, large: 60_000, warmup: 10_000 }
    : { rounds: ctx.rounds ?? 3, small: 100_000, large: 300_000, warmup: 20_000 };
  const data = {};
  for (const rt of ctx.runtimes) {
    const d = { overhead: {}, watch: {} };
    for (const [kind, list] of [
      ['overhead', OVERHEAD],
      ['watch', WATCH],
    ]) {
      for (const v of list) {
        d[kind][v] = await perCall(rt.path, kind, v, p);
        ctx.log(
          `${rt.version} ${kind} ${v}: ${fmt(d[kind][v].median)} instructions per call (${d[kind][v].samples.map((x) => fmt(x)).join(', ')})`,
        );
      }
    }
    data[rt.version] = d;
  }
  const columns = [{ key: 'label', label: 'variant', align: 'left' }];
  for (const rt of ctx.runtimes) {
    const n = rt.version.split('.')[0];
    columns.push(
      { key: `i${n}`, label: `${n} instructions` },
      { key: `o${n}`, label: `${n} +bare` },
      { key: `x${n}`, label: `${n} ×bare` },
    );
  }
  const rows = (kind, list, label) =>
    list.map((v) => {
      const row = { label: label(v) };
      for (const rt of ctx.runtimes) {
        const n = rt.version.split('.')[0];
        const d = data[rt.version][kind];
        row[`i${n}`] = p.rounds > 1 ? withSpread(d[v]) : fmt(d[v].median);
        row[`o${n}`] = v === 'bare' ? '' : `+${fmt(d[v].median - d.bare.median)}`;
        row[`x${n}`] = ratio(d[v].median / d.bare.median);
      }
      return row;
    });
  const watchLabel = (v) => WATCH_VARIANTS.find((x) => x.name === v).label;
  const notes = [
    `${p.rounds} ${p.rounds === 1 ? 'round' : 'rounds'} × 2 fresh processes per variant and runtime under valgrind --tool=callgrind, node --single-threaded; instructions per call = (total after ${fmt(p.large)} calls − total after ${fmt(p.small)}) / ${fmt(p.large - p.small)}, both after ${fmt(p.warmup)} warm-up calls; median (and min–max) of the rounds. Counts repeat within a few percent (V8 does not always optimise at the same call), not to the instruction.`,
  ];
  const reArm = (rt) => {
    const w = Object.fromEntries(
      Object.entries(data[rt.version].watch).map(([k, x]) => [k, x.median]),
    );
    return `${rt.version}: re-arming costs ${ratio((w['naive-rearm'] - w.bare) / (w.watch - w.bare))} watch's instructions over bare, ${ratio((w['naive-rearm'] - w.bare) / (w.floor - w.bare))} the floor's`;
  };
  return {
    params: p,
    data,
    tables: [
      { title, columns, rows: rows('overhead', OVERHEAD, (v) => byName.get(v).label), notes },
      {
        title: 'Per item of case 2 (for await over an async generator)',
        columns,
        rows: rows('watch', WATCH, watchLabel),
        notes: ctx.runtimes.map(reArm),
      },
    ],
  };
}
