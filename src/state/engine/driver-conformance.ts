import type { Collection, StateDriver } from './driver.js';
import { applyTransition } from './apply-transition.js';

/** A named check of the {@link StateDriver} contract; `run` rejects when the driver breaks it. */
export interface DriverCase {
  name: string;
  run(driver: StateDriver, prefix: string): Promise<void>;
}

interface Counter {
  n: number;
}

const counters: Collection<Counter> = {
  name: 'conformance_counters',
  parse: (stored) => stored as Counter,
};

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`driver conformance: ${what}`);
}

/**
 * The cases every {@link StateDriver} must pass, run by a test per backend with a fresh driver and
 * a unique key prefix (so a shared server needs no flush). Capability conformance (breaker,
 * ledger, …) sits in each capability's folder; these hold only the driver's five operations.
 *
 * @example
 * for (const c of driverCases) it(c.name, () => c.run(memoryDriver(), `t${Date.now()}:`))
 */
export const driverCases: readonly DriverCase[] = [
  {
    name: 'insert writes version 0 once; read returns a copy',
    async run(driver, p) {
      check(await driver.insert(counters, `${p}a`, { n: 1 }), 'first insert wins');
      check(!(await driver.insert(counters, `${p}a`, { n: 2 })), 'second insert loses');
      const read = await driver.read(counters, `${p}a`);
      check(read?.version === 0 && read.value.n === 1, 'read the inserted record at version 0');
      check((await driver.read(counters, `${p}missing`)) === undefined, 'absent reads undefined');
    },
  },
  {
    name: 'compareAndSwap lands only on the expected version and increments it',
    async run(driver, p) {
      await driver.insert(counters, `${p}b`, { n: 1 });
      check(await driver.compareAndSwap(counters, `${p}b`, 0, { n: 2 }), 'swap at version 0');
      check(!(await driver.compareAndSwap(counters, `${p}b`, 0, { n: 3 })), 'stale swap loses');
      check(!(await driver.compareAndSwap(counters, `${p}none`, 0, { n: 1 })), 'swap of absent');
      const read = await driver.read(counters, `${p}b`);
      check(read?.version === 1 && read.value.n === 2, 'swap wrote version 1');
    },
  },
  {
    name: 'remove lands only on the expected version',
    async run(driver, p) {
      await driver.insert(counters, `${p}c`, { n: 1 });
      check(!(await driver.remove(counters, `${p}c`, 5)), 'stale remove loses');
      check(await driver.remove(counters, `${p}c`, 0), 'remove at version 0');
      check((await driver.read(counters, `${p}c`)) === undefined, 'removed reads undefined');
      check(await driver.insert(counters, `${p}c`, { n: 9 }), 'insert after remove');
    },
  },
  {
    name: 'scan lists the records under a prefix',
    async run(driver, p) {
      await driver.insert(counters, `${p}s:1`, { n: 1 });
      await driver.insert(counters, `${p}s:2`, { n: 2 });
      await driver.insert(counters, `${p}t:1`, { n: 3 });
      const found = await driver.scan(counters, { prefix: `${p}s:` });
      const keys = found.map((f) => f.key).sort();
      check(keys.join() === `${p}s:1,${p}s:2`, `scan under the prefix (got ${keys.join()})`);
    },
  },
  {
    name: 'scan lists the records of the keys asked for, and no other',
    async run(driver, p) {
      await driver.insert(counters, `${p}k:1`, { n: 1 });
      await driver.insert(counters, `${p}k:2`, { n: 2 });
      await driver.insert(counters, `${p}k:3`, { n: 3 });
      const found = await driver.scan(counters, { keys: [`${p}k:3`, `${p}k:1`, `${p}k:9`] });
      const keys = found.map((f) => `${f.key}=${f.record.value.n}`).sort();
      check(keys.join() === `${p}k:1=1,${p}k:3=3`, `scan of known keys (got ${keys.join()})`);
    },
  },
  {
    name: 'an expired record reads as absent and an insert replaces it',
    async run(driver, p) {
      await driver.insert(counters, `${p}e`, { n: 1 }, { expiresAt: Date.now() - 1 });
      check((await driver.read(counters, `${p}e`)) === undefined, 'expired reads undefined');
      check(await driver.insert(counters, `${p}e`, { n: 2 }), 'insert over an expired record');
    },
  },
  {
    name: 'applyTransition: of concurrent increments none is lost',
    async run(driver, p) {
      const key = `${p}race`;
      const increment = () =>
        applyTransition(driver, counters, key, (current) => ({
          result: undefined,
          write: { n: (current?.n ?? 0) + 1 },
        }));
      await Promise.all(Array.from({ length: 20 }, increment));
      const read = await driver.read(counters, key);
      check(read?.value.n === 20, `20 increments (got ${read?.value.n})`);
    },
  },
];
