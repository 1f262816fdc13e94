// A shared breaker counts its own process's failures at once (ARCHITECTURE.md §state.local): the
// process that reaches the threshold opens its local copy right then, before the store has
// answered, and the store's answers reconcile the copy with what other processes did. On every
// backend.
import { afterAll, describe, expect, it } from 'vitest';
import { circuitBreaker, isCircuitOpenError, memoryStore, type Store } from '../../src/index.js';
import { BACKENDS } from '../cluster/backends.js';
import { httpError } from '../helpers/http-error.js';

interface Backend {
  name: string;
  unavailable: string | undefined;
  open(label: string): Promise<Store>;
}

const backends: Backend[] = [
  { name: 'memory', unavailable: undefined, open: async () => memoryStore() },
  ...BACKENDS.map((b) => ({
    name: b.name,
    unavailable: b.unavailable,
    open: (label: string) => b.open(b.fresh(label)),
  })),
];
afterAll(async () => {
  for (const b of BACKENDS) await b.cleanup();
});

/** Polls `check` until it holds (real time: a store on a network answers when it answers). */
async function eventually(check: () => Promise<boolean>, withinMs = 10_000): Promise<void> {
  const end = Date.now() + withinMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`not reached within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

for (const backend of backends) {
  describe.skipIf(backend.unavailable !== undefined)(
    `a shared breaker in the process that trips it (${backend.name})`,
    () => {
      it('failureThreshold 3, four back-to-back failing calls: the 4th is rejected without running fn; state and toJSON read open at once', async () => {
        const store = await backend.open('own-seq');
        try {
          // storeTimeoutMs long enough that a loaded machine does not turn this into an outage.
          const b = circuitBreaker({
            name: 'dep',
            store,
            failureThreshold: 3,
            cooldownMs: 600_000,
            storeTimeoutMs: 5_000,
          });
          await b.execute(() => 'ok'); // the first call waits for the stored record
          let runs = 0;
          const failing = (): Promise<never> => {
            runs++;
            return Promise.reject(httpError(503));
          };
          const outcomes: unknown[] = [];
          for (let i = 0; i < 4; i++) {
            outcomes.push(await b.execute(failing).catch((e: unknown) => e));
            if (i === 2) {
              expect(b.state).toBe('open');
              expect(b.toJSON()).toMatchObject({ state: 'open', failures: 3 });
            }
          }
          expect(runs).toBe(3);
          expect(outcomes.map((e) => isCircuitOpenError(e))).toEqual([false, false, false, true]);
          // The store reconciles to the same: open, for every process.
          await eventually(async () => (await store.breakerGet('dep'))?.state === 'open');
          expect(b.state).toBe('open');
        } finally {
          await store.close();
        }
      });

      it('the same with the calls started in one tick (fn throws at once): 3 run, the rest are rejected', async () => {
        const store = await backend.open('own-tick');
        try {
          const b = circuitBreaker({
            name: 'dep',
            store,
            failureThreshold: 3,
            cooldownMs: 600_000,
            storeTimeoutMs: 5_000,
          });
          await b.execute(() => 'ok');
          let runs = 0;
          const throwing = (): never => {
            runs++;
            throw httpError(503);
          };
          const calls = Array.from({ length: 6 }, () =>
            b.execute(throwing).catch((e: unknown) => e),
          );
          expect(b.state).toBe('open');
          const outcomes = await Promise.all(calls);
          expect(runs).toBe(3);
          expect(outcomes.filter((e) => isCircuitOpenError(e))).toHaveLength(3);
          await eventually(async () => (await store.breakerGet('dep'))?.state === 'open');
          expect(b.toJSON()).toMatchObject({ state: 'open', failures: 3 });
        } finally {
          await store.close();
        }
      });

      it('a success written by another process still clears the count here: the store reconciles', async () => {
        const store = await backend.open('own-mixed');
        try {
          const options = {
            name: 'dep',
            store,
            failureThreshold: 3,
            cooldownMs: 600_000,
            storeTimeoutMs: 5_000,
            syncIntervalMs: 25, // SQLite has no notifications: re-read often
          };
          const here = circuitBreaker(options);
          await here.execute(() => 'ok');
          const failing = (): Promise<never> => Promise.reject(httpError(503));
          await here.execute(failing).catch(() => {});
          await here.execute(failing).catch(() => {});
          await eventually(async () => (await store.breakerGet('dep'))?.failures === 2);
          // Another process's success clears the count in the store; this copy learns it.
          const record = (await store.breakerGet('dep'))!;
          await store.breakerRecord('dep', record.epoch, 'success', Date.now(), {
            ...options,
            probeTimeoutMs: 600_000,
          });
          await eventually(async () => (here.toJSON() as { failures: number }).failures === 0);
          await here.execute(failing).catch(() => {});
          expect(here.toJSON()).toMatchObject({ state: 'closed', failures: 1 });
          await eventually(async () => (await store.breakerGet('dep'))?.failures === 1);
          expect(here.state).toBe('closed');
        } finally {
          await store.close();
        }
      });
    },
  );
}
