// Case 4: breaker memory: retained bytes per idle breaker, 100,000 named breakers.
import { fmt, ratio, withSpread } from '../lib/format.js';
import { runInterleaved } from '../lib/percall.js';

export const id = 'memory';
export const title = '4. Breaker memory (bytes per idle breaker, 100,000 named breakers)';
export const perRuntime = true;

const VARIANTS = [
  { name: 'recourse-registry', label: 'recourse BreakerRegistry.get(name)', count: 100_000 },
  {
    name: 'recourse-registry-used',
    label: 'recourse BreakerRegistry, after one call each',
    count: 100_000,
  },
  {
    name: 'recourse-registry-per-request',
    label:
      'recourse BreakerRegistry (default maxBreakers), 300,000 per-request names: bytes per name',
    count: 300_000,
  },
  {
    name: 'recourse-standalone',
    label: 'recourse circuitBreaker({ name }) in a Map',
    count: 100_000,
  },
  { name: 'cockatiel', label: 'cockatiel circuitBreaker in a Map', count: 100_000 },
  // opossum keeps a rolling-statistics timer per breaker: 10,000 keep the run short.
  { name: 'opossum', label: 'opossum CircuitBreaker in a Map', count: 10_000 },
];

export async function run(ctx) {
  // --quick: a fifth of the breakers (the bytes per breaker do not depend on the count).
  const scale = ctx.quick ? 5 : 1;
  const p = { rounds: ctx.quick ? 1 : 3, scale };
  const counts = Object.fromEntries(VARIANTS.map((v) => [v.name, v.count / scale]));
  const m = await runInterleaved({
    runtimes: ctx.runtimes,
    variants: VARIANTS.map((v) => v.name),
    rounds: p.rounds,
    command: (_rt, v) => ({
      worker: 'memory.worker.js',
      flags: ['--expose-gc'],
      args: [v, counts[v]],
    }),
    value: (r) => r.bytesPerBreaker,
    log: ctx.log,
    seed: 44,
  });
  const data = {};
  for (const rt of ctx.runtimes) {
    const t = m.get(rt.version);
    const ck = t.get('cockatiel').summary.median;
    data[rt.version] = Object.fromEntries(
      VARIANTS.map((v) => [
        v.name,
        {
          label: v.label,
          count: v.count,
          bytesPerBreaker: t.get(v.name).summary,
          samples: t.get(v.name).samples,
          timesCockatiel: t.get(v.name).summary.median / ck,
        },
      ]),
    );
  }
  const columns = [{ key: 'label', label: 'breakers', align: 'left' }];
  for (const rt of ctx.runtimes) {
    const n = rt.version.split('.')[0];
    columns.push(
      { key: `b${n}`, label: `${n} bytes/breaker${p.rounds > 1 ? ' (min–max)' : ''}` },
      { key: `x${n}`, label: `${n} ×cockatiel` },
    );
  }
  const rows = VARIANTS.map((v) => {
    const row = { label: v.label };
    for (const rt of ctx.runtimes) {
      const n = rt.version.split('.')[0];
      const d = data[rt.version][v.name];
      row[`b${n}`] = withSpread(d.bytesPerBreaker);
      row[`x${n}`] = v.name === 'cockatiel' ? '' : ratio(d.timesCockatiel);
    }
    return row;
  });
  const notes = [
    `${p.rounds} fresh process(es) per variant (--expose-gc): heapUsed after gc() with the breakers alive minus before creating them; names are created before the baseline; the Map/registry entry is included. Node's C++ timer handles (opossum) are not on the JS heap and not counted.`,
    `${fmt(100_000 / scale)} breakers each, except opossum (${fmt(10_000 / scale)}) and the per-request row (${fmt(300_000 / scale)} names, one call each; the registry keeps at most its default 10,000 idle breakers, so its bytes per name fall as names grow: multiply by the names for the total).`,
  ];
  return { params: p, data, tables: [{ title, columns, rows, notes }] };
}
