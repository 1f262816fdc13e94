// Case 15: what retry, circuitBreaker, timeout and pipeline add to a user's bundle, against
// cockatiel's retry, circuitBreaker, timeout and wrap. esbuild bundles and minifies each import
// (ESM, tree-shaken), gzip at level 9. For a browser or a worker, every Node built-in must resolve:
// recourse leaves one import, node:async_hooks (AsyncLocalStorage, which Node, Bun, Deno and
// workerd all have); cockatiel's browser build needs none. On platform node esbuild takes
// cockatiel's CommonJS `main`, which does not tree-shake: that row shows what a Node bundle gets.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleSize } from '../lib/bundle-size.js';
import { fmt } from '../lib/format.js';

export const id = 'bundle-size';
export const title = '15. Bundle size: retry, circuit breaker, timeout and their composition';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const KB = (n) => `${fmt(n / 1000, 1)} kB`;

export async function run() {
  // The bench measures the build it was started on (bench/run.js snapshots dist/).
  const dist = process.env.RECOURSE_DIST ?? join(ROOT, 'dist/index.js');
  const recourse = (names) => `export { ${names} } from ${JSON.stringify(dist)};`;
  const COCKATIEL =
    "export { retry, circuitBreaker, timeout, wrap, handleAll, ExponentialBackoff, ConsecutiveBreaker, TimeoutStrategy } from 'cockatiel';";
  const variants = [
    {
      name: 'recourse-four',
      label: 'recourse: retry, circuitBreaker, timeout, pipeline',
      code: recourse('retry, circuitBreaker, timeout, pipeline'),
      platform: 'browser',
      external: ['node:async_hooks'],
    },
    {
      name: 'recourse-root',
      label: 'recourse: the whole root entry',
      code: `export * from ${JSON.stringify(dist)};`,
      platform: 'browser',
      external: ['node:async_hooks'],
    },
    {
      name: 'cockatiel-four',
      label:
        'cockatiel 3.2.1: retry, circuitBreaker, timeout, wrap (+ handleAll, backoff, breaker)',
      code: COCKATIEL,
      platform: 'browser',
      external: [],
    },
    {
      name: 'cockatiel-four-node',
      label: 'cockatiel 3.2.1, the same on platform node (its CommonJS build)',
      code: COCKATIEL,
      platform: 'node',
      external: [],
    },
  ];
  const data = {};
  for (const v of variants) {
    const r = await bundleSize(v.code, {
      resolveDir: dirname(dist),
      platform: v.platform,
      external: v.external,
    });
    data[v.name] = {
      label: v.label,
      platform: v.platform,
      minified: r.minified,
      gzip: r.gzip,
      imports: [...new Set(r.imports)],
      heaviest: r.heaviest.slice(0, 8),
    };
  }
  const columns = [
    { key: 'label', label: 'import', align: 'left' },
    { key: 'platform', label: 'platform', align: 'left' },
    { key: 'min', label: 'minified' },
    { key: 'gzip', label: 'gzip' },
    { key: 'imports', label: 'left as imports', align: 'left' },
  ];
  const rows = Object.values(data).map((d) => ({
    label: d.label,
    platform: d.platform,
    min: KB(d.minified),
    gzip: KB(d.gzip),
    imports: d.imports.length === 0 ? 'none' : d.imports.join(', '),
  }));
  const four = data['recourse-four'];
  const heaviest = four.heaviest
    .slice(0, 6)
    .map((h) => `${h.path.replace(/^.*dist\//, '')} ${KB(h.bytes)}`)
    .join(', ');
  const notes = [
    `esbuild ${(await import('esbuild')).version}, --bundle --minify --format=esm; gzip level 9. The heaviest modules of the four-policy bundle (minified, before gzip): ${heaviest}.`,
  ];
  return { data, tables: [{ title, columns, rows, notes }] };
}
