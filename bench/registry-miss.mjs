// The cost of BreakerRegistry.get() for a name it has not seen when it is full (each such get
// forgets one idle breaker), against a name it holds, at maxBreakers 10,000 and 100,000. A name
// per request (a tool-call id, a URL) takes the miss path on every call.
//
//   npm run build && node bench/registry-miss.mjs            # ~10 s; one JSON line per limit
//
// Each limit runs in a fresh registry filled to its limit, then churned through 2 × limit new
// names before timing (so the eviction order has wrapped), then timed over MISSES new names; the
// known-name row times get() of names it holds. Median of ROUNDS rounds, µs per get.
import { performance } from 'node:perf_hooks';
// RECOURSE_DIST names another build to measure (an earlier commit's dist/index.js).
const { BreakerRegistry } = await import(process.env.RECOURSE_DIST ?? '../dist/index.js');

const ROUNDS = 5;
const MISSES = 20_000;

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

for (const limit of [10_000, 100_000]) {
  const miss = [];
  const hit = [];
  for (let round = 0; round < ROUNDS; round++) {
    const registry = new BreakerRegistry({ maxBreakers: limit });
    let n = 0;
    for (let i = 0; i < 3 * limit; i++) registry.get(`warm-${round}-${n++}`);
    let t = performance.now();
    for (let i = 0; i < MISSES; i++) registry.get(`miss-${round}-${n++}`);
    miss.push(((performance.now() - t) * 1000) / MISSES);
    const held = [...registry.entries()].slice(0, 1000).map(([name]) => name);
    t = performance.now();
    for (let i = 0; i < MISSES; i++) registry.get(held[i % held.length]);
    hit.push(((performance.now() - t) * 1000) / MISSES);
    if (registry.size > limit) throw new Error(`registry over its limit: ${registry.size}`);
  }
  console.log(
    JSON.stringify({
      name: 'registry-miss',
      maxBreakers: limit,
      missUsPerGet: Number(median(miss).toFixed(3)),
      knownUsPerGet: Number(median(hit).toFixed(3)),
      rounds: ROUNDS,
    }),
  );
}
