import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type BreakerOutcome,
  type BreakerStore,
  type CircuitBreaker,
  circuitBreaker,
  isCircuitOpenError,
  isStoreError,
  jsonLogger,
  memoryStore,
  pipeline,
  retry,
  type Store,
  subscribe,
} from '../../src/index.js';
import { sqliteStore } from '../../src/sqlite/index.js';
import { VirtualClock } from '../../src/testing/index.js';
import { httpError } from '../helpers/http-error.js';
import { never, tick } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'recourse-shared-breaker-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Mode = 'up' | 'hang' | 'fail';

/** A store in front of a real one that counts breaker calls and can hang or fail them (an outage). */
function controlled(inner: Store) {
  const calls = { admit: 0, record: [] as BreakerOutcome[], force: 0, get: 0 };
  const state = { mode: 'up' as Mode };
  const down = new Error('store down');
  const gate = <T>(op: () => Promise<T>): Promise<T> =>
    state.mode === 'up' ? op() : state.mode === 'hang' ? never<T>() : Promise.reject(down);
  const store: BreakerStore = {
    breakerAdmit: (...a) => {
      calls.admit++;
      return gate(() => inner.breakerAdmit(...a));
    },
    breakerRecord: (...a) => {
      calls.record.push(a[2]);
      return gate(() => inner.breakerRecord(...a));
    },
    breakerForce: (...a) => {
      calls.force++;
      return gate(() => inner.breakerForce(...a));
    },
    breakerGet: (...a) => {
      calls.get++;
      return gate(() => inner.breakerGet(...a));
    },
    ...(inner.breakerSubscribe ? { breakerSubscribe: inner.breakerSubscribe.bind(inner) } : {}),
  };
  return { store, calls, state, down };
}

/** `inner` with some breaker methods replaced (the others bound to it). */
function replacing(inner: Store, overrides: Partial<BreakerStore>): BreakerStore {
  return {
    breakerAdmit: inner.breakerAdmit.bind(inner),
    breakerRecord: inner.breakerRecord.bind(inner),
    breakerForce: inner.breakerForce.bind(inner),
    breakerGet: inner.breakerGet.bind(inner),
    ...(inner.breakerSubscribe ? { breakerSubscribe: inner.breakerSubscribe.bind(inner) } : {}),
    ...overrides,
  };
}

/**
 * A tripped breaker (threshold 1) on a store whose probe question is answered only when the test
 * says so, with the cooldown over: the next call asks and waits.
 */
async function waitingForTheStore(cooldownMs: number) {
  const clock = new VirtualClock(1_000_000);
  const inner = memoryStore();
  let answer!: () => void;
  const store = replacing(inner, {
    breakerAdmit: (...a) => new Promise((r) => (answer = () => r(inner.breakerAdmit(...a)))),
  });
  const b = circuitBreaker({ name: 'dep', store, clock, failureThreshold: 1, cooldownMs });
  await settle();
  await fail(b);
  await settle();
  await clock.advance(cooldownMs);
  return { b, clock, inner, answer: () => answer() };
}

const failing = (): Promise<never> => Promise.reject(httpError(503));
const fail = (b: CircuitBreaker) => b.execute(failing).catch((e: unknown) => e);
/** Lets store answers, notifications and write-behind land. */
const settle = async (): Promise<void> => {
  await tick();
  await tick();
};

describe('circuitBreaker on a shared store', () => {
  it('defaults to a wall clock (one time scale for every process)', async () => {
    const store = memoryStore();
    const b = circuitBreaker({ name: 'w', store, failureThreshold: 1 });
    const before = Date.now();
    await fail(b);
    await settle();
    const r = await store.breakerGet('w');
    expect(r?.state).toBe('open');
    expect(r!.openedAt).toBeGreaterThanOrEqual(before);
    expect(r!.openedAt).toBeLessThanOrEqual(Date.now());
  });

  it('closed state: successes make no store call at all (one read when the breaker starts)', async () => {
    const { store, calls } = controlled(memoryStore());
    const b = circuitBreaker({ name: 's', store, clock: new VirtualClock() });
    for (let i = 0; i < 1_000; i++) await b.execute(() => 'ok');
    expect(calls).toEqual({ admit: 0, record: [], force: 0, get: 1 });
  });

  it('fused over retry on a store: the same single path, failures counted once per sequence', async () => {
    const clock = new VirtualClock();
    const { store, calls } = controlled(memoryStore());
    const b = circuitBreaker({ name: 'f', store, clock, failureThreshold: 2 });
    const policy = pipeline(b, retry({ maxAttempts: 3, clock, backoff: { delay: () => 0 } }));
    let attempts = 0;
    const run = () =>
      policy
        .execute(() => {
          attempts++;
          return failing();
        })
        .catch((e: unknown) => e);
    await run();
    await settle();
    expect(attempts).toBe(3);
    expect(calls.record).toEqual(['failure']);
    await run();
    await settle();
    expect(b.state).toBe('open');
    expect(isCircuitOpenError(await run())).toBe(true);
    expect(attempts).toBe(6);
  });

  it('failures are written at once; a run of successes after them costs one write', async () => {
    const { store, calls } = controlled(memoryStore());
    const b = circuitBreaker({ name: 'c', store, clock: new VirtualClock(), failureThreshold: 10 });
    await fail(b);
    await fail(b);
    await settle();
    expect(calls.record).toEqual(['failure', 'failure']);
    expect(b.toJSON()).toMatchObject({ failures: 2 });
    for (let i = 0; i < 100; i++) await b.execute(() => 'ok');
    await settle();
    expect(calls.record).toEqual(['failure', 'failure', 'success']);
    expect((await store.breakerGet('c'))?.failures).toBe(0);
  });

  it('a trip in one process reaches the others through change notifications, without a call', async () => {
    const clock = new VirtualClock(1_000_000);
    const store = memoryStore();
    const [a, b, c] = ['a', 'b', 'c'].map(() =>
      circuitBreaker({ name: 'dep', store, clock, failureThreshold: 2 }),
    );
    const seen: string[] = [];
    c!.on('state', (e) => seen.push(`${e.from}->${e.to}`));
    await settle();
    await fail(a!);
    await fail(b!);
    await settle();
    expect([a!.state, b!.state, c!.state]).toEqual(['open', 'open', 'open']);
    expect(seen).toEqual(['closed->open']);
    let ran = 0;
    expect(isCircuitOpenError(await c!.execute(() => ran++).catch((e: unknown) => e))).toBe(true);
    expect(ran).toBe(0);
  });

  it('without notifications (SQLite) a trip is seen after syncIntervalMs; a late joiner waits for the stored record', async () => {
    const path = join(dir, 'sync.db');
    const clock = new VirtualClock(1_000_000);
    const stores = [sqliteStore({ path }), sqliteStore({ path })];
    const [a, b] = stores.map((store) =>
      circuitBreaker({ name: 'dep', store, clock, failureThreshold: 1, cooldownMs: 60_000 }),
    );
    await settle();
    await fail(a!);
    await settle();
    expect(a!.state).toBe('open');
    expect(b!.state).toBe('closed'); // not told yet
    await clock.advance(1_000);
    await settle();
    expect(b!.state).toBe('open');
    const third = sqliteStore({ path });
    const late = circuitBreaker({ name: 'dep', store: third, clock });
    let ran = 0;
    expect(isCircuitOpenError(await late.execute(() => ran++).catch((e: unknown) => e))).toBe(true);
    expect(ran).toBe(0);
    for (const s of [...stores, third]) await s.close();
  });

  it.each(['memory', 'sqlite'])(
    '8 breakers × 50 concurrent callers after the cooldown (%s): one probe, one store question per breaker',
    async (kind) => {
      const clock = new VirtualClock(1_000_000);
      const path = join(dir, `probe-${kind}.db`);
      const shared = kind === 'memory' ? memoryStore() : undefined;
      const handles = Array.from({ length: 8 }, () => controlled(shared ?? sqliteStore({ path })));
      const breakers = handles.map((h) =>
        circuitBreaker({
          name: 'dep',
          store: h.store,
          clock,
          failureThreshold: 1,
          cooldownMs: 1_000,
        }),
      );
      await settle();
      await fail(breakers[0]!);
      await clock.advance(1_000); // cooldown over, and every copy re-read
      await settle();
      for (const b of breakers) expect(b.state).toBe('open');
      let reached = 0;
      let release!: () => void;
      const gate = new Promise<string>((r) => (release = () => r('ok')));
      const results = breakers.flatMap((b) =>
        Array.from({ length: 50 }, () =>
          b
            .execute(() => {
              reached++;
              return gate;
            })
            .then(
              () => 'ok',
              (e: unknown) => (isCircuitOpenError(e) ? 'rejected' : e),
            ),
        ),
      );
      await settle();
      expect(reached).toBe(1);
      for (const h of handles) expect(h.calls.admit).toBeLessThanOrEqual(1);
      release();
      const outcomes = await Promise.all(results);
      expect(outcomes.filter((o) => o === 'ok')).toHaveLength(1);
      expect(outcomes.filter((o) => o === 'rejected')).toHaveLength(399);
      await settle();
      expect(
        breakers[0]!.state === 'closed' ||
          (await handles[0]!.store.breakerGet('dep'))?.state === 'closed',
      ).toBe(true);
      if (kind === 'sqlite') for (const h of handles) await (h.store as unknown as Store).close?.();
    },
  );

  it('a stale local copy lets a call through, whose failure is stale in the store and teaches the copy', async () => {
    const path = join(dir, 'stale.db');
    const clock = new VirtualClock(1_000_000);
    const [s1, s2] = [sqliteStore({ path }), sqliteStore({ path })];
    const a = circuitBreaker({
      name: 'dep',
      store: s1,
      clock,
      failureThreshold: 1,
      cooldownMs: 60_000,
    });
    const b = circuitBreaker({
      name: 'dep',
      store: s2,
      clock,
      failureThreshold: 1,
      cooldownMs: 60_000,
    });
    await settle();
    await fail(a);
    await settle();
    expect(b.state).toBe('closed');
    await fail(b); // admitted by its stale copy
    await settle();
    expect(b.state).toBe('open');
    expect((await s1.breakerGet('dep'))?.epoch).toBe(1); // the stale failure did not open it again
    await s1.close();
    await s2.close();
  });

  it('a probe whose caller aborts frees the slot for every process at once', async () => {
    const clock = new VirtualClock(1_000_000);
    const store = memoryStore();
    const [a, b] = [0, 1].map(() =>
      circuitBreaker({ name: 'dep', store, clock, failureThreshold: 1, cooldownMs: 100 }),
    );
    await settle();
    await fail(a!);
    await clock.advance(100);
    const controller = new AbortController();
    const probe = a!.execute(() => never(), { signal: controller.signal }).catch((e: unknown) => e);
    await settle();
    expect((await store.breakerGet('dep'))?.probeUntil).toBeGreaterThan(0);
    controller.abort();
    expect(((await probe) as Error).name).toBe('AbortError');
    await settle();
    expect(await store.breakerGet('dep')).toMatchObject({ state: 'half-open', probeUntil: 0 });
    await expect(b!.execute(() => 'ok')).resolves.toBe('ok');
    await settle();
    expect(a!.state).toBe('closed');
  });

  it('a caller that gives up while the store decides runs nothing and leaves the slot free', async () => {
    const { b, inner, answer } = await waitingForTheStore(100);
    const controller = new AbortController();
    let ran = false;
    const call = b
      .execute(() => (ran = true), { signal: controller.signal })
      .catch((e: unknown) => e);
    await settle();
    controller.abort();
    answer();
    expect(((await call) as Error).name).toBe('AbortError');
    await settle();
    expect(ran).toBe(false);
    expect(await inner.breakerGet('dep')).toMatchObject({ state: 'half-open', probeUntil: 0 });
  });

  it('a third-party store that answers with plain values, or throws instead of rejecting, is handled like any other', async () => {
    const clock = new VirtualClock(1_000_000);
    const inner = memoryStore();
    let throwing = false;
    const store = {
      breakerAdmit: () => {
        throw new Error('not implemented');
      },
      breakerRecord: (
        name: string,
        epoch: number,
        outcome: BreakerOutcome,
        now: number,
        limits: Parameters<Store['breakerRecord']>[4],
      ) => {
        if (throwing) throw new Error('sync failure');
        void inner.breakerRecord(name, epoch, outcome, now, limits);
        return { state: 'open', epoch: 1, failures: 1, openedAt: now, probeUntil: 0 };
      },
      breakerForce: () => ({ state: 'closed', epoch: 0, failures: 0, openedAt: 0, probeUntil: 0 }),
      breakerGet: () => undefined,
    } as unknown as BreakerStore;
    const b = circuitBreaker({ name: 'sync', store, clock, failureThreshold: 1 });
    const events: string[] = [];
    b.on('store_unavailable', (e) => events.push((e.error as Error).message));
    await settle();
    await fail(b);
    await settle();
    expect(b.state).toBe('open'); // adopted from a plain-value answer
    throwing = true;
    await b.reset();
    await fail(b);
    await settle();
    expect(events).toEqual(['sync failure']);
    expect(b.state).toBe('open'); // tripped locally
  });

  describe('outage', () => {
    /** A breaker (threshold 1, cooldown 1 s) on a controllable store, tripped, its cooldown over. */
    async function trippedAndCooled() {
      const clock = new VirtualClock(1_000_000);
      const { store, state } = controlled(memoryStore());
      const b = circuitBreaker({
        name: 'dep',
        store,
        clock,
        failureThreshold: 1,
        cooldownMs: 1_000,
      });
      await settle();
      await fail(b);
      await settle();
      expect(b.state).toBe('open');
      await clock.advance(1_000);
      return { b, clock, state };
    }

    it('a hung store: calls never wait longer than storeTimeoutMs (the probe question probeStoreTimeoutMs), the breaker protects from its local copy, and re-syncs when back', async () => {
      const clock = new VirtualClock(1_000_000);
      const { store, calls, state } = controlled(memoryStore());
      const b = circuitBreaker({
        name: 'dep',
        store,
        clock,
        failureThreshold: 2,
        cooldownMs: 1_000,
      });
      const events: string[] = [];
      b.on('store_unavailable', (e) => events.push(`unavailable:${(e.error as Error).name}`));
      b.on('store_recovered', (e) => events.push(`recovered:${e.downMs}`));
      await settle();
      state.mode = 'hang';
      await fail(b); // the write hangs; the caller already has its error
      await clock.advance(250); // storeTimeoutMs
      await settle();
      expect(events).toEqual(['unavailable:StoreError']);
      expect(b.toJSON()).toMatchObject({ failures: 1, store: { available: false } });
      await fail(b); // counted locally: trips locally
      expect(b.state).toBe('open');
      await clock.advance(1_000);
      // the cooldown is over: only a write timed out (slow is not down), so the probe question
      // waits for the store up to probeStoreTimeoutMs; unanswered, this process probes alone
      const started = clock.now();
      const probe = b.execute(() => clock.now() - started);
      await clock.advance(1_999);
      expect(b.toJSON()).toMatchObject({ probeInFlight: false });
      await clock.advance(1);
      await expect(probe).resolves.toBe(2_000);
      expect(b.state).toBe('closed');
      // now the store is known down: the next probe is decided here, at once
      await fail(b);
      await fail(b);
      expect(b.state).toBe('open');
      await clock.advance(1_000);
      const again = clock.now();
      await expect(b.execute(() => clock.now() - again)).resolves.toBe(0);
      state.mode = 'up';
      await clock.advance(1_000); // the next once-a-second read finds the store back
      await settle();
      expect(events).toEqual(['unavailable:StoreError', 'recovered:5000']);
      expect(b.toJSON()).toMatchObject({ state: 'closed', store: { available: true } });
      expect(calls.get).toBeGreaterThanOrEqual(2);
    });

    it('after an outage the store record wins, even over epochs this process moved alone and while calls go on', async () => {
      const clock = new VirtualClock(1_000_000);
      const inner = memoryStore();
      let down = true;
      let answerGet: (() => void) | undefined;
      const store = replacing(inner, {
        breakerRecord: (...a) =>
          down ? Promise.reject(new Error('down')) : inner.breakerRecord(...a),
        breakerGet: (...a) =>
          down
            ? Promise.reject(new Error('down'))
            : new Promise((r) => (answerGet = () => r(inner.breakerGet(...a)))),
      });
      const b = circuitBreaker({ name: 'dep', store, clock, failureThreshold: 2, cooldownMs: 100 });
      await clock.advance(250); // the first read fails: unavailable from the start
      await settle();
      await fail(b);
      await fail(b); // a local trip
      await clock.advance(100);
      await b.execute(() => 'ok'); // a local probe closes it: three epochs the store never saw
      expect(b.toJSON()).toMatchObject({ state: 'closed', epoch: 3 });
      down = false;
      await clock.advance(650); // t = 1 s: the once-a-second recovery read starts …
      await fail(b); // … while a call still settles locally
      answerGet!(); // … and then the store answers
      await settle();
      expect(b.toJSON()).toMatchObject({ state: 'closed', epoch: 0, store: { available: true } });
      await fail(b);
      await fail(b);
      await settle();
      expect((await inner.breakerGet('dep'))?.state).toBe('open'); // counted by the store again
      expect(b.state).toBe('open');
    });

    it('a failing store: the first probe question fails over to a local probe within the same call', async () => {
      const { b, clock, state } = await trippedAndCooled();
      state.mode = 'fail';
      const started = clock.now();
      // a store that is down is not waited for (probeStoreTimeoutMs is for a slow one)
      await expect(b.execute(() => clock.now() - started)).resolves.toBe(0);
      expect(b.state).toBe('closed');
    });

    it('a hung probe question costs that one call probeStoreTimeoutMs, then it runs as the local probe', async () => {
      const { b, clock, state } = await trippedAndCooled();
      state.mode = 'hang';
      const started = clock.now();
      const call = b.execute(() => clock.now() - started);
      const others = await Promise.all([
        b.execute(() => 'x').catch((e: unknown) => e),
        b.execute(() => 'y').catch((e: unknown) => e),
      ]);
      expect(others.every(isCircuitOpenError)).toBe(true); // one question per process at a time
      await clock.advance(2_000);
      await expect(call).resolves.toBe(2_000);
    });

    it('a probe granted after the question timed out is given back, so the slot is not held for nobody', async () => {
      const { b, clock, inner, answer: late } = await waitingForTheStore(1_000);
      const call = b.execute(() => 'local probe');
      await clock.advance(2_000); // probeStoreTimeoutMs
      await expect(call).resolves.toBe('local probe');
      late();
      await settle();
      expect(await inner.breakerGet('dep')).toMatchObject({ state: 'half-open', probeUntil: 0 });
    });

    it('isolate() rejects with the store error, holds here, and is written when the store is back (issue 9.7)', async () => {
      const clock = new VirtualClock(1_000_000);
      const inner = memoryStore();
      const { store, state, down } = controlled(inner);
      const b = circuitBreaker({ name: 'dep', store, clock });
      await settle();
      state.mode = 'fail';
      await expect(b.isolate()).rejects.toBe(down);
      expect(b.state).toBe('isolated');
      expect(isCircuitOpenError(await b.execute(() => 'x').catch((e: unknown) => e))).toBe(true);
      expect(await inner.breakerGet('dep')).toBeUndefined();
      state.mode = 'up';
      await clock.advance(1_000);
      await settle();
      expect((await inner.breakerGet('dep'))?.state).toBe('isolated');
      await expect(b.reset()).resolves.toBeUndefined();
      expect((await inner.breakerGet('dep'))?.state).toBe('closed');
      state.mode = 'hang';
      const pending = b.isolate();
      await clock.advance(250);
      const error = await pending.catch((e: unknown) => e);
      expect(isStoreError(error) && error.code === 'timeout').toBe(true);
    });

    it('a forced state nobody awaits does not crash the process when the store fails', async () => {
      const { store, state } = controlled(memoryStore());
      const b = circuitBreaker({ name: 'dep', store, clock: new VirtualClock() });
      await settle();
      state.mode = 'fail';
      void b.isolate(); // an unhandled rejection here would fail the test run
      await settle();
      expect(b.state).toBe('isolated');
    });
  });

  it.each([true, false])(
    'isolate() then reset() at once: the last one wins, here and in the store, without flickering (notifications: %s)',
    async (notifies) => {
      const inner = memoryStore();
      const store = replacing(inner, {});
      if (!notifies) delete store.breakerSubscribe; // answers are then all it hears
      const b = circuitBreaker({ name: 'dep', store, clock: new VirtualClock() });
      await settle();
      const states: string[] = [];
      b.on('state', (e) => states.push(`${e.from}->${e.to}`));
      const isolated = b.isolate();
      const reset = b.reset();
      await Promise.all([isolated, reset]);
      await settle();
      expect(b.state).toBe('closed');
      expect((await store.breakerGet('dep'))?.state).toBe('closed');
      expect(states).toEqual(['closed->isolated', 'isolated->closed']);
    },
  );

  it('logs a store outage and a late probe as warnings', async () => {
    const lines: Array<{ level: string; event: string }> = [];
    const stop = subscribe(jsonLogger({ write: (line: string) => lines.push(JSON.parse(line)) }));
    try {
      const clock = new VirtualClock();
      const { store, state } = controlled(memoryStore());
      const b = circuitBreaker({
        name: 'logged',
        store,
        clock,
        failureThreshold: 1,
        cooldownMs: 10,
        probeTimeoutMs: 20,
      });
      await settle();
      state.mode = 'fail';
      await fail(b);
      await clock.advance(10);
      const probe = b.execute(() => clock.sleep(50).then(() => 'late')).catch(() => undefined);
      await clock.advance(50);
      await probe;
      await settle();
    } finally {
      stop();
    }
    const levels = Object.fromEntries(
      lines
        .filter((l) => l.event === 'store_unavailable' || l.event === 'probe_late')
        .map((l) => [l.event, l.level]),
    );
    expect(levels).toEqual({ store_unavailable: 'warn', probe_late: 'warn' });
  });

  it('rejects options that need a store without one, and stores that are not BreakerStores', () => {
    expect(() => circuitBreaker({ storeTimeoutMs: 100 })).toThrow('storeTimeoutMs needs a store');
    expect(() => circuitBreaker({ syncIntervalMs: 100 })).toThrow('syncIntervalMs needs a store');
    expect(() => circuitBreaker({ store: {} as BreakerStore })).toThrow(
      /store must be a BreakerStore with breakerAdmit/,
    );
    expect(() => circuitBreaker({ probeStoreTimeoutMs: 2_000 })).toThrow(
      'probeStoreTimeoutMs needs a store',
    );
    expect(() => circuitBreaker({ store: memoryStore(), probeStoreTimeoutMs: -5 })).toThrow(
      'probeStoreTimeoutMs must be a number >= 1, got -5',
    );
    expect(() => circuitBreaker({ store: memoryStore(), storeTimeoutMs: 0 })).toThrow(
      'storeTimeoutMs must be a number >= 1, got 0',
    );
  });
});
