#!/usr/bin/env node
// Where the bytes of one case-1 call (or case-2 item) are allocated:
//   node [--max-inlined-bytecode-size=0] bench/alloc-sites.js <variant | watch:<variant>> [N]
// Uses V8's sampling heap profiler with collected objects included (64-byte sampling interval),
// so short-lived garbage is counted. Disabling inlining attributes bytes to the function that
// allocates them instead of the optimized caller it was inlined into (timing changes, bytes do
// not). RECOURSE_DIST=path/to/index.js measures a patched copy of dist.
import { Session } from 'node:inspector/promises';
import { byName } from './cases/overhead-variants.js';
import { WATCH_VARIANTS } from './cases/watch-variants.js';

const [spec, nArg] = process.argv.slice(2);
if (!spec) {
  console.error('usage: node bench/alloc-sites.js <case-1 variant | watch:<case-2 variant>> [N]');
  process.exit(2);
}
const N = Number(nArg ?? 200_000);
let run;
if (spec.startsWith('watch:')) {
  const consume = await WATCH_VARIANTS.find((v) => v.name === spec.slice(6)).setup();
  run = (n) => consume(n);
} else {
  const call = await byName.get(spec).setup();
  run = async (n) => {
    for (let i = 0; i < n; i++) await call();
  };
}
await run(100_000);
const session = new Session();
session.connect();
await session.post('HeapProfiler.enable');
await session.post('HeapProfiler.startSampling', {
  samplingInterval: 64,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
await run(N);
const { profile } = await session.post('HeapProfiler.stopSampling');
session.disconnect();
const sites = new Map();
const walk = (node) => {
  const f = node.callFrame;
  const where = f.url
    ? ` ${f.url.replace(/^.*\/(dist[^/]*|node_modules|bench)\//, '$1/').replace('node:internal/', '')}:${f.lineNumber + 1}`
    : '';
  const key = `${f.functionName || '(anonymous)'}${where}`;
  if (node.selfSize) sites.set(key, (sites.get(key) ?? 0) + node.selfSize);
  for (const c of node.children) walk(c);
};
walk(profile.head);
const total = [...sites.values()].reduce((a, b) => a + b, 0);
console.log(
  `${spec} on ${process.version}: ≈ ${(total / N).toFixed(0)} bytes per ${spec.startsWith('watch:') ? 'item' : 'call'} (sampled)`,
);
for (const [k, v] of [...sites].sort((a, b) => b[1] - a[1]).filter(([, v]) => v / N >= 4))
  console.log(`${(v / N).toFixed(0).padStart(6)} B  ${k}`);
process.exit(0);
