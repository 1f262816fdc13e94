#!/usr/bin/env node
// Profiles one case-1 variant (`node bench/profile.js recourse-pipeline3 [--node PATH] [--iterations N]`)
// or case-2 variant (`node bench/profile.js watch:watch`).
// Runs the variant's worker under --cpu-prof and prints the functions with the most self time
// (and their callers' share), so a number in the table can be traced to the code that costs it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const variant = args[0];
if (!variant) {
  console.error(
    'usage: node bench/profile.js <case-1 variant | watch:<case-2 variant>> [--node PATH] [--iterations N] [--top N]\n(RECOURSE_DIST=path/to/index.js profiles a patched copy of dist)',
  );
  process.exit(2);
}
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i === -1 ? fallback : args[i + 1];
};
const node = opt('--node', process.execPath);
const iterations = opt('--iterations', '1000000');
const top = Number(opt('--top', '25'));
const dir = mkdtempSync(join(tmpdir(), 'recourse-prof-'));
// A case-1 variant, or `watch:<variant>` for a case-2 one.
const isWatch = variant.startsWith('watch:');
const worker = fileURLToPath(
  new URL(isWatch ? './cases/watch.worker.js' : './cases/overhead.worker.js', import.meta.url),
);
const workerArgs = isWatch
  ? [variant.slice(6), iterations, '100000']
  : [variant, iterations, '100000', '100000', '2000', '0'];
const r = spawnSync(
  node,
  ['--cpu-prof', '--cpu-prof-interval', '100', '--cpu-prof-dir', dir, worker, ...workerArgs],
  {
    encoding: 'utf8',
    env: process.env,
  },
);
if (r.status !== 0) {
  console.error(r.stderr);
  process.exit(1);
}
console.log(r.stdout.trim());
const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
const profile = JSON.parse(readFileSync(join(dir, file), 'utf8'));

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const selfSamples = new Map();
for (const s of profile.samples) selfSamples.set(s, (selfSamples.get(s) ?? 0) + 1);
const total = profile.samples.length;
const label = (n) => {
  const f = n.callFrame;
  const where = f.url
    ? `${f.url.replace(/^.*\/(dist|node_modules)\//, '$1/')}:${f.lineNumber + 1}`
    : '';
  return `${f.functionName || '(anonymous)'} ${where}`.trim();
};
const self = new Map();
const callers = new Map();
for (const [id, count] of selfSamples) {
  const n = byId.get(id);
  const key = label(n);
  self.set(key, (self.get(key) ?? 0) + count);
  const p = parent.get(id);
  if (p !== undefined) {
    const m = callers.get(key) ?? new Map();
    const pk = label(byId.get(p));
    m.set(pk, (m.get(pk) ?? 0) + count);
    callers.set(key, m);
  }
}
const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, top);
console.log(`\n${file} in ${dir}: ${total} samples (100 µs); self time by function:`);
for (const [key, count] of rows) {
  const via = [...(callers.get(key) ?? [])]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 2)
    .map(([k, c]) => `${k} ${((100 * c) / count).toFixed(0)}%`);
  console.log(
    `${((100 * count) / total).toFixed(1).padStart(5)}%  ${key}${via.length ? `   ← ${via.join(', ')}` : ''}`,
  );
}
