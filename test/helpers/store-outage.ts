import { expect } from 'vitest';
import {
  bulkhead,
  Checkpointer,
  type CircuitBreaker,
  circuitBreaker,
  IdempotencyLedger,
  isCircuitOpenError,
  isStoreError,
} from '../../src/index.js';
import type { BulkheadStore } from '../../src/store/bulkhead-store.js';
import type { Store } from '../../src/store/store.js';

/**
 * A store's own server for an outage test (a private redis-server, a private PostgreSQL cluster on a
 * free port): never the machine's shared one.
 */
export interface OutageFixture {
  /** Stops the server at once, like a crash, and resolves once it is down. */
  kill(): Promise<void>;
  /** Starts the server again and resolves once it answers. */
  start(): Promise<void>;
  /** A store on a connection (client, pool) of its own to the server; the fixture closes it. */
  open(): Promise<Store>;
  /** The ledger's lease; default the ledger's own. */
  leaseMs?: number;
}

/** What {@link storeOutage} shows, as a test title. */
export const STORE_OUTAGE =
  'breakers go on locally without waiting for the server, the ledger runs nothing, and after the restart everything re-syncs with nothing lost';

const wait = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, ms = 20_000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await wait(10)) if (check()) return;
  throw new Error('condition not met in time');
}

/**
 * Runs `work` until it stops failing with a StoreError: the first call after a restart may find its
 * connection still coming back (a client's reconnect backoff, a loaded machine).
 */
async function whenBack<T>(work: () => Promise<T>, ms = 20_000): Promise<T> {
  for (const end = Date.now() + ms; ; await wait(50)) {
    try {
      return await work();
    } catch (error) {
      if (!isStoreError(error) || Date.now() > end) throw error;
    }
  }
}

async function untilAsync(check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await wait(50)) if (await check()) return;
  throw new Error('condition not met in time');
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

const boom = (): Promise<never> =>
  Promise.reject(Object.assign(new Error('upstream 503'), { status: 503 }));

/**
 * Two stores on one server through a crash of the server and its restart: breakers answer from
 * their local copy without waiting for the server (one trips on its own), the ledger fails closed (a
 * StoreError, the effect not run); after the restart the breakers re-sync, nothing recorded is
 * lost, the ledger runs the refused effect once, and change notifications flow again.
 */
export async function storeOutage(server: OutageFixture): Promise<void> {
  const storeA = await server.open();
  const storeB = await server.open();
  const options = { name: 'model', failureThreshold: 3, cooldownMs: 60_000 };
  const a: CircuitBreaker = circuitBreaker({ ...options, store: storeA });
  const b: CircuitBreaker = circuitBreaker({ ...options, store: storeB });
  const events: string[] = [];
  for (const [label, br] of [
    ['a', a],
    ['b', b],
  ] as const) {
    br.on('store_unavailable', () => events.push(`${label}:unavailable`));
    br.on('store_recovered', () => events.push(`${label}:recovered`));
  }
  // Recorded before the outage: a ledger result, a checkpoint, an isolated breaker.
  const ledger = new IdempotencyLedger(
    storeA,
    server.leaseMs === undefined ? {} : { leaseMs: server.leaseMs },
  );
  expect(await ledger.run('charge-1', async () => 'receipt-1')).toBe('receipt-1');
  await new Checkpointer(storeA).save('task-1', 2, { step: 2 });
  await storeB.breakerForce('isolated-dep', 'isolated');
  expect(await a.execute(async () => 'ok')).toBe('ok');
  expect(await b.execute(async () => 'ok')).toBe('ok');

  await server.kill();

  // Breakers: successes and failures alike answer at once from the local copy.
  const latencies: number[] = [];
  for (let i = 0; i < 30; i++) {
    const { value, ms } = await timed(() => a.execute(async () => `ok-${i}`));
    expect(value).toBe(`ok-${i}`);
    latencies.push(ms);
    const failed = await timed(() => b.execute(boom).catch((e: unknown) => e));
    latencies.push(failed.ms);
    await wait(20);
  }
  // At most storeTimeoutMs (250 ms; checked on virtual time in test/core/shared-breaker.test.ts),
  // never the server's reconnect; the bound leaves room for a loaded machine.
  expect(Math.max(...latencies)).toBeLessThan(3_000);
  expect(events).toContain('b:unavailable');
  // b tripped on its own during the outage and protects its callers.
  expect(isCircuitOpenError(await b.execute(async () => 'never').catch((e: unknown) => e))).toBe(
    true,
  );

  // The ledger fails closed: a StoreError, and the effect does not run.
  let ran = 0;
  const refused = await ledger
    .run('charge-2', async () => {
      ran++;
      return 'receipt-2';
    })
    .catch((e: unknown) => e);
  expect([isStoreError(refused), ran]).toEqual([true, 0]);

  await server.start();

  // Re-sync: b hears the store is back (its local trip gives way to the stored record).
  await until(() => events.includes('b:recovered'));
  await until(() => b.state === 'closed');
  // Nothing recorded was lost (a completed key: asking again while the connection comes back is safe).
  expect(await whenBack(() => ledger.run('charge-1', async () => 'ran again'))).toBe('receipt-1');
  expect(await new Checkpointer(storeB).recover('task-1')).toEqual({
    recovered: true,
    stepIndex: 2,
    state: { step: 2 },
    resumeFromStep: 3,
  });
  expect((await storeA.breakerGet('isolated-dep'))?.state).toBe('isolated');
  // The ledger works again, and runs the refused effect now (once).
  expect(await ledger.run('charge-2', async () => `receipt-2 after ${++ran} run`)).toBe(
    'receipt-2 after 1 run',
  );
  // Notifications flow again (the listening connection is back): a trip through b reaches a without a call.
  await until(() => a.state === 'closed');
  for (let i = 0; i < 3; i++) await b.execute(boom).catch(() => {});
  await until(() => a.state === 'open');
}

/** What {@link bulkheadOutage} shows, as a test title. */
export const BULKHEAD_OUTAGE =
  'a shared bulkhead keeps its local cap while the store is down (no call held past the store limit), and counts fleet-wide again after the restart';

/**
 * A bulkhead shared by two stores on one server through a crash of the server and its restart:
 * before, the cap of 2 is the fleet's (another holder's slots keep a call waiting); while the
 * server is down, calls are neither failed nor held — each bulkhead runs up to its own cap (a
 * `store_unavailable` event), within the store's time limit; after the restart the fleet's count
 * holds again (`store_recovered`).
 */
export async function bulkheadOutage(server: OutageFixture, limitMs: number): Promise<void> {
  const storeA = (await server.open()) as unknown as BulkheadStore;
  const storeB = (await server.open()) as unknown as BulkheadStore;
  const name = `cap-${Date.now()}`;
  const a = bulkhead({ maxConcurrent: 2, name, store: storeA, leaseMs: 5_000 });
  const b = bulkhead({ maxConcurrent: 2, name, store: storeB, leaseMs: 5_000 });
  const events: string[] = [];
  a.on('store_unavailable', () => events.push('unavailable'));
  a.on('store_recovered', () => events.push('recovered'));
  let openB!: () => void;
  const gateB = new Promise<void>((r) => {
    openB = r;
  });
  let runningB = 0;
  const held = [1, 2].map(() =>
    b.execute(async () => {
      runningB++;
      await gateB;
    }),
  );
  await until(() => runningB === 2);
  // Both fleet slots are b's: a's call waits.
  let ranA = 0;
  const waiting = a.execute(async () => {
    ranA++;
  });
  await wait(300);
  expect(ranA).toBe(0);
  openB();
  await Promise.all(held);
  await waiting;
  expect(ranA).toBe(1);

  await server.kill();
  // Down: a's calls run under its own cap of 2, each within the store's limit, none fails.
  let running = 0;
  let peak = 0;
  const started = performance.now();
  const delays: number[] = [];
  const during = Array.from({ length: 6 }, () =>
    a.execute(async () => {
      delays.push(performance.now() - started);
      running++;
      peak = Math.max(peak, running);
      await wait(20);
      running--;
      return 'ran';
    }),
  );
  expect(await Promise.all(during)).toEqual(Array(6).fill('ran'));
  expect(peak).toBe(2);
  expect(Math.min(...delays)).toBeLessThan(limitMs + 2_000);
  expect(events).toEqual(['unavailable']);

  await server.start();
  // Both clients answer again (each reconnects on its own schedule) before the fleet is checked.
  for (const store of [storeA, storeB])
    await untilAsync(async () => {
      try {
        await store.bulkheadRelease(name, 'probe:0');
        return true;
      } catch {
        return false;
      }
    });
  // Up again: b holds both fleet slots once more, and a waits for them.
  let openAgain!: () => void;
  const gateAgain = new Promise<void>((r) => {
    openAgain = r;
  });
  runningB = 0;
  const heldAgain: Promise<void>[] = [];
  for (let i = 0; i < 2; i++)
    heldAgain.push(
      b.execute(async () => {
        runningB++;
        await gateAgain;
      }),
    );
  await until(() => runningB === 2);
  ranA = 0;
  const after = a.execute(async () => {
    ranA++;
  });
  await until(() => events.includes('recovered'), 15_000);
  expect(ranA).toBe(0);
  openAgain();
  await Promise.all(heldAgain);
  await after;
  expect(ranA).toBe(1);
  expect(events).toEqual(['unavailable', 'recovered']);
}
