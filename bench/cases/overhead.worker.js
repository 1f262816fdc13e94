// One process, one variant of case 1:
//   overhead.worker.js <variant> <iterations> <warmup> <budgetMs> <warmupMs> <allocIterations>
// 1. warm-up: `warmup` calls, or `warmupMs` for the slow variants, whichever comes first;
// 2. time: ns per call over `iterations` sequential awaits (fewer if they would take longer
//    than `budgetMs`);
// 3. bytes (when run with --expose-gc): heap growth over `allocIterations` calls, starting from an
//    empty young generation (gc()): the growth of the young generation plus any growth of the
//    other spaces (a shrinking old space is the sweeper finishing, not a negative allocation);
//    a loop during which any GC ran would under-count, so it is discarded and retried with half
//    the calls. Median of 3 loops.
import { PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';
import { report } from '../lib/spawn.js';
import { byName } from './overhead-variants.js';

const [name, iterationsArg, warmupArg, budgetArg, warmupMsArg, allocArg] = process.argv.slice(2);
const variant = byName.get(name);
if (variant === undefined) throw new Error(`unknown variant ${name}`);
const call = await variant.setup();

async function loop(n) {
  for (let i = 0; i < n; i++) await call();
}

const warmup = Number(warmupArg);
const warmupNs = Number(warmupMsArg) * 1e6;
const warmStart = process.hrtime.bigint();
let warmed = 0;
let lastBatchNs = 0;
while (warmed < warmup) {
  const b0 = process.hrtime.bigint();
  await loop(1000);
  lastBatchNs = Number(process.hrtime.bigint() - b0);
  warmed += 1000;
  if (Number(process.hrtime.bigint() - warmStart) > warmupNs) break;
}
// The speed of the last warm-up batch (the first ones run in the interpreter).
const warmNsPerCall = lastBatchNs / 1000;

const budgetNs = Number(budgetArg) * 1e6;
const iterations = Math.max(
  5_000,
  Math.min(Number(iterationsArg), Math.floor(budgetNs / warmNsPerCall)),
);
const t0 = process.hrtime.bigint();
await loop(iterations);
const nsPerCall = Number(process.hrtime.bigint() - t0) / iterations;

let bytesPerCall = null;
let allocIterations = Number(allocArg ?? 0);
if (typeof globalThis.gc === 'function' && allocIterations > 0) {
  let gcs = 0;
  const observer = new PerformanceObserver((list) => {
    gcs += list.getEntries().length;
  });
  observer.observe({ entryTypes: ['gc'] });
  const settle = () => new Promise((resolve) => setTimeout(resolve, 5));
  const spaces = () => {
    let young = 0;
    let other = 0;
    for (const s of v8.getHeapSpaceStatistics()) {
      if (s.space_name === 'new_space' || s.space_name === 'new_large_object_space')
        young += s.space_used_size;
      else other += s.space_used_size;
    }
    return { young, other };
  };
  const samples = [];
  for (let attempt = 0; attempt < 10 && samples.length < 3; attempt++) {
    globalThis.gc();
    await settle();
    gcs = 0;
    const before = spaces();
    await loop(allocIterations);
    const after = spaces();
    await settle();
    if (gcs > 0) {
      allocIterations = Math.max(200, Math.floor(allocIterations / 2));
      continue;
    }
    samples.push(
      (after.young - before.young + Math.max(0, after.other - before.other)) / allocIterations,
    );
  }
  observer.disconnect();
  if (samples.length > 0)
    bytesPerCall = samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)];
}
report({
  variant: name,
  node: process.version,
  iterations,
  nsPerCall,
  allocIterations,
  bytesPerCall,
});
process.exit(0);
