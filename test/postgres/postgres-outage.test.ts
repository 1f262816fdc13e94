import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkpointer, type CircuitBreaker, circuitBreaker, IdempotencyLedger, isCircuitOpenError, isStoreError } from '../../src/index.js';
import { postgresStore } from '../../src/postgres/index.js';
import type { Store } from '../../src/store/store.js';
import { rateLimiterThroughOutage } from '../helpers/rate-limiter-outage.js';
import { pgAvailable } from './pg-helpers.js';
import { PrivateCluster, postgresBin } from './private-cluster.js';

const wait = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await wait(10)) if (check()) return;
  throw new Error('condition not met in time');
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

const boom = (): Promise<never> => Promise.reject(Object.assign(new Error('upstream 503'), { status: 503 }));

describe.runIf(pgAvailable && postgresBin() !== undefined)('postgresStore through an outage of its own server', () => {
  let cluster: PrivateCluster;
  const pools: pg.Pool[] = [];
  const stores: Store[] = [];

  function open(extra: { breakerTimeoutMs?: number } = {}): ReturnType<typeof postgresStore> {
    const pool = new pg.Pool({ connectionString: cluster.url, max: 4 });
    pools.push(pool);
    const store = postgresStore({ pool, ...extra });
    stores.push(store);
    return store;
  }

  beforeAll(async () => {
    cluster = await PrivateCluster.create();
  }, 60_000);
  afterAll(async () => {
    for (const s of stores) await s.close();
    for (const p of pools) await p.end().catch(() => {});
    await cluster?.destroy();
  });

  it('breakers go on locally with no call over 300 ms, the ledger runs nothing, and after the restart everything re-syncs with nothing lost', async () => {
    const storeA = open();
    const storeB = open();
    const options = { name: 'model', failureThreshold: 3, cooldownMs: 60_000 };
    const a: CircuitBreaker = circuitBreaker({ ...options, store: storeA });
    const b: CircuitBreaker = circuitBreaker({ ...options, store: storeB });
    const events: string[] = [];
    for (const [label, br] of [['a', a], ['b', b]] as const) {
      br.on('store_unavailable', () => events.push(`${label}:unavailable`));
      br.on('store_recovered', () => events.push(`${label}:recovered`));
    }
    // Recorded before the outage: a ledger result, a checkpoint, an isolated breaker.
    const ledger = new IdempotencyLedger(storeA);
    expect(await ledger.run('charge-1', async () => 'receipt-1')).toBe('receipt-1');
    await new Checkpointer(storeA).save('task-1', 2, { step: 2 });
    await storeB.breakerForce('isolated-dep', 'isolated');
    expect(await a.execute(async () => 'ok')).toBe('ok');
    expect(await b.execute(async () => 'ok')).toBe('ok');

    await cluster.kill();

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
    expect(Math.max(...latencies)).toBeLessThan(300);
    expect(events).toContain('b:unavailable');
    // b tripped on its own during the outage and protects its callers.
    expect(isCircuitOpenError(await b.execute(async () => 'never').catch((e: unknown) => e))).toBe(true);

    // The ledger fails closed: a StoreError, and the effect does not run.
    let ran = 0;
    const refused = await ledger
      .run('charge-2', async () => {
        ran++;
        return 'receipt-2';
      })
      .catch((e: unknown) => e);
    expect([isStoreError(refused), ran]).toEqual([true, 0]);

    await cluster.start();

    // Re-sync: b hears the store is back (its local trip gives way to the stored record).
    await until(() => events.includes('b:recovered'));
    await until(() => b.state === 'closed');
    // Nothing recorded was lost.
    expect(await ledger.run('charge-1', async () => 'ran again')).toBe('receipt-1');
    expect(await new Checkpointer(storeB).recover('task-1')).toEqual({ recovered: true, stepIndex: 2, state: { step: 2 }, resumeFromStep: 3 });
    expect((await storeA.breakerGet('isolated-dep'))?.state).toBe('isolated');
    // The ledger works again, and runs the refused effect now (once).
    expect(await ledger.run('charge-2', async () => `receipt-2 after ${++ran} run`)).toBe('receipt-2 after 1 run');
    // Notifications flow again: a trip recorded through b reaches a without a call.
    for (let i = 0; i < 3; i++) await b.execute(boom).catch(() => {});
    await until(() => a.state === 'open');
  }, 60_000);

  it('a shared rateLimiter decides from its own process’s record while the server is down, and writes to the store again once it is back', async () => {
    await rateLimiterThroughOutage(open(), open({ breakerTimeoutMs: 5000 }), () => cluster.kill(), () => cluster.start());
  }, 60_000);
});
