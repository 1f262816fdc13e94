// Case 4 worker: retained heap bytes per breaker, `count` breakers keyed by name.
// heapUsed after gc() with all breakers alive, minus heapUsed after gc() before creating them
// (the names are created before the baseline: they are the caller's strings).
import { loadRecourse } from '../lib/recourse.js';
import { report } from '../lib/spawn.js';

const [variant, countArg] = process.argv.slice(2);
const count = Number(countArg);
if (typeof globalThis.gc !== 'function') throw new Error('needs --expose-gc');

const work = async () => 1;
const names = Array.from({ length: count }, (_, i) => `dependency-${i}`);

const builders = {
  // BreakerRegistry: one breaker per name, created on first get() (room for all of them).
  async 'recourse-registry'() {
    const { BreakerRegistry } = await loadRecourse();
    return async () => {
      const registry = new BreakerRegistry({
        failureThreshold: 5,
        cooldownMs: 30_000,
        maxBreakers: count,
      });
      for (const name of names) registry.get(name);
      return registry;
    };
  },
  // The same, after one successful call through every breaker (the composed chain now exists).
  async 'recourse-registry-used'() {
    const { BreakerRegistry } = await loadRecourse();
    return async () => {
      const registry = new BreakerRegistry({
        failureThreshold: 5,
        cooldownMs: 30_000,
        maxBreakers: count,
      });
      for (const name of names) await registry.get(name).execute(work);
      return registry;
    };
  },
  // A name per request (a tool-call id) through a registry with its default maxBreakers: what is
  // retained per name used, once the registry forgets idle breakers.
  async 'recourse-registry-per-request'() {
    const { BreakerRegistry } = await loadRecourse();
    return async () => {
      const registry = new BreakerRegistry({ failureThreshold: 5, cooldownMs: 30_000 });
      for (const name of names) await registry.get(name).execute(work);
      return registry;
    };
  },
  async 'recourse-standalone'() {
    const { circuitBreaker } = await loadRecourse();
    return async () => {
      const map = new Map();
      for (const name of names)
        map.set(name, circuitBreaker({ name, failureThreshold: 5, cooldownMs: 30_000 }));
      return map;
    };
  },
  async cockatiel() {
    const c = await import('cockatiel');
    return async () => {
      const map = new Map();
      for (const name of names)
        map.set(
          name,
          c.circuitBreaker(c.handleAll, {
            halfOpenAfter: 30_000,
            breaker: new c.ConsecutiveBreaker(5),
          }),
        );
      return map;
    };
  },
  async opossum() {
    const { default: CircuitBreaker } = await import('opossum');
    return async () => {
      const map = new Map();
      for (const name of names)
        map.set(name, new CircuitBreaker(work, { name, resetTimeout: 30_000 }));
      return map;
    };
  },
};

const build = await builders[variant]();
async function warm() {
  // Warm the code paths on a throw-away set, so compiled code does not count as breaker memory.
  const throwAway = await build();
  return throwAway.size ?? 0;
}
async function measure() {
  globalThis.gc();
  globalThis.gc();
  const before = process.memoryUsage().heapUsed;
  globalThis.kept = await build();
  globalThis.gc();
  globalThis.gc();
  const after = process.memoryUsage().heapUsed;
  return (after - before) / count;
}
await warm();
await new Promise((resolve) => setTimeout(resolve, 10));
const bytesPerBreaker = await measure();
report({ variant, node: process.version, count, bytesPerBreaker });
process.exit(0);
