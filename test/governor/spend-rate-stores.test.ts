// A spend-rate trip of a breaker that shares its state through a real store (SQLite file, the
// machine's PostgreSQL and Redis): the trip is one failure under threshold-1 limits written
// through the store's own transition, so a second breaker on another handle of the store sees it
// open, and the usual cooldown and single probe close it for both.
import { afterAll, describe, expect, it } from 'vitest';
import {
  type BreakerStore,
  circuitBreaker,
  isCircuitOpenError,
  memoryStore,
  pipeline,
  type Store,
  spendLimit,
} from '../../src/index.js';
import { VirtualClock } from '../../src/testing/index.js';
import { BACKENDS } from '../cluster/backends.js';

const answer = (tokens: number) => ({
  usage: { input_tokens: tokens / 2, output_tokens: tokens / 2 },
});

/** Waits for `check` (a store write or its notification landing); the deadline only ends a hung test. */
async function until(check: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 10)))
    if (await check()) return;
  throw new Error('condition not met in time');
}

for (const backend of BACKENDS) {
  describe.skipIf(backend.unavailable !== undefined)(
    `spendLimit rate on a breaker in a ${backend.name} store`,
    () => {
      afterAll(() => backend.cleanup());

      it('the trip is stored: a second breaker on another handle sees it open; cooldown and one probe close it for both', async () => {
        const spec = backend.fresh('spend-rate');
        const a = await backend.open(spec);
        const b = await backend.open(spec);
        try {
          const clock = new VirtualClock(Date.now());
          const options = {
            name: 'model',
            clock,
            cooldownMs: 5_000,
            storeTimeoutMs: 5_000,
            ...spec.breaker,
          };
          const here = circuitBreaker({ ...options, store: a });
          const there = circuitBreaker({ ...options, store: b });
          const budget = spendLimit({
            tokens: 1e9,
            rate: { tokens: 1_000, perMs: 60_000, breaker: here },
          });
          const call = pipeline(here, budget);
          expect(await there.execute(() => 'loaded')).toBe('loaded');
          await call.execute(async () => answer(600));
          expect(here.state).toBe('closed');
          await call.execute(async () => answer(600));
          expect(here.state).toBe('open'); // at once where it was tripped
          expect(here.toJSON()).toMatchObject({ reason: 'spend_rate' });
          await until(async () => (await a.breakerGet('model'))?.state === 'open');
          // The other handle learns it by notification, or (SQLite) by its next re-read.
          await until(async () => {
            if (!backend.notifies) await clock.advance(25);
            return there.state === 'open';
          });
          const refused = await there.execute(() => 'sent').catch((e: unknown) => e);
          expect(isCircuitOpenError(refused)).toBe(true);
          // The reason is known where the trip happened; elsewhere it is an ordinary open.
          expect(there.toJSON()).not.toHaveProperty('reason');

          await clock.advance(5_000);
          expect(await there.execute(() => 'probe')).toBe('probe');
          // The probe's success is written after its call returns: wait for it to land.
          await until(async () => (await b.breakerGet('model'))?.state === 'closed');
          await until(async () => {
            if (!backend.notifies) await clock.advance(25);
            return here.state === 'closed';
          });
          // A new closed period: the 1,200 spent before the trip is forgotten.
          await call.execute(async () => answer(600));
          expect(here.state).toBe('closed');
        } finally {
          await a.close();
          await b.close();
        }
      });
    },
  );
}

/** `inner`'s breaker methods, bound; `subscribe: false` leaves change notifications out (like SQLite). */
function through(inner: Store, overrides: Partial<BreakerStore>, subscribe = true): BreakerStore {
  return {
    breakerAdmit: inner.breakerAdmit.bind(inner),
    breakerRecord: inner.breakerRecord.bind(inner),
    breakerForce: inner.breakerForce.bind(inner),
    breakerGet: inner.breakerGet.bind(inner),
    ...(subscribe && inner.breakerSubscribe
      ? { breakerSubscribe: inner.breakerSubscribe.bind(inner) }
      : {}),
    ...overrides,
  };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('spendLimit rate on a shared breaker whose store is slow, down, or ahead of its copy', () => {
  it('tripped while its record is still loading: it trips the stored period once loaded', async () => {
    const clock = new VirtualClock(1_000_000);
    const inner = memoryStore();
    await inner.breakerForce('m', 'isolated');
    await inner.breakerForce('m', 'closed'); // stored: closed at epoch 2
    let load!: () => void;
    const store = through(inner, {
      breakerGet: (name) => new Promise((r) => (load = () => r(inner.breakerGet(name)))),
    });
    const breaker = circuitBreaker({ name: 'm', store, clock });
    const states: string[] = [];
    breaker.on('state', (e) => states.push(`${e.from}>${e.to}:${e.reason}`));
    spendLimit({ tokens: 1e9, rate: { tokens: 10, perMs: 1_000, breaker } }).record({
      input: 11,
      output: 0,
    });
    expect(breaker.state).toBe('closed'); // not yet: the copy is not known
    load();
    await settle();
    expect(await inner.breakerGet('m')).toMatchObject({ state: 'open', epoch: 3 });
    expect(breaker.state).toBe('open');
    expect(breaker.toJSON()).toMatchObject({ reason: 'spend_rate' });
    expect(states).toEqual(['closed>open:spend_rate']);
  });

  it('a copy behind the store (a reset elsewhere it was not told of): the trip is applied to the stored period', async () => {
    const clock = new VirtualClock(1_000_000);
    const inner = memoryStore();
    const here = circuitBreaker({
      name: 'm',
      store: through(inner, {}, false),
      clock,
      syncIntervalMs: 60_000,
    });
    await here.execute(() => 'loaded'); // copy: closed, epoch 0
    await inner.breakerForce('m', 'closed'); // another process's reset: epoch 1, not notified here
    spendLimit({ tokens: 1e9, rate: { tokens: 10, perMs: 1_000, breaker: here } }).record({
      input: 11,
      output: 0,
    });
    expect(here.state).toBe('open');
    await settle();
    expect(await inner.breakerGet('m')).toMatchObject({ state: 'open', epoch: 2 });
    expect(here.state).toBe('open');
  });

  it('the store down: it opens here at once and goes on from its copy (store_unavailable), like any failure', async () => {
    const clock = new VirtualClock(1_000_000);
    const inner = memoryStore();
    let down = false;
    const store = through(inner, {
      breakerRecord: (...a) =>
        down ? Promise.reject(new Error('store down')) : inner.breakerRecord(...a),
    });
    const breaker = circuitBreaker({ name: 'm', store, clock, cooldownMs: 1_000 });
    const events: string[] = [];
    breaker.on('store_unavailable', () => events.push('unavailable'));
    await breaker.execute(() => 'loaded');
    down = true;
    const budget = spendLimit({ tokens: 1e9, rate: { tokens: 10, perMs: 1_000, breaker } });
    await pipeline(breaker, budget).execute(async () => answer(20));
    expect(breaker.state).toBe('open');
    await settle();
    expect(events).toEqual(['unavailable']);
    expect(breaker.state).toBe('open');
    expect(
      isCircuitOpenError(
        await pipeline(breaker, budget)
          .execute(async () => answer(1))
          .catch((e: unknown) => e),
      ),
    ).toBe(true);
    expect((await inner.breakerGet('m'))?.state ?? 'closed').toBe('closed');
  });
});
