import { describe, expect, it } from 'vitest';
import { retryBudget } from '../../src/guardrails/retry-budget.js';
import {
  constant,
  isRetriesExhaustedError,
  memoryStore,
  retry,
  type Store,
} from '../../src/index.js';
import { seededRandom } from '../../src/random/seeded-random.js';
import type { RetryBudgetStore } from '../../src/store/retry-budget-store.js';
import { VirtualClock } from '../../src/testing/index.js';
import type { RetryBudgetGrant, RetryBudgetTake } from '../../src/transitions/retry-budget.js';
import { httpError } from '../helpers/http-error.js';
import { tick } from './helpers.js';

/** A store whose retryBudgetTake can be made to hang or fail, counting calls. */
function controllableStore(inner: Store = memoryStore()) {
  let mode: 'ok' | 'hang' | 'fail' = 'ok';
  const hung: Array<() => void> = [];
  const takes: RetryBudgetTake[] = [];
  const store: RetryBudgetStore = {
    retryBudgetTake(name, take, now, limits): Promise<RetryBudgetGrant> {
      takes.push({ ...take });
      if (mode === 'fail') return Promise.reject(new Error('ECONNREFUSED'));
      const answer = () => inner.retryBudgetTake(name, take, now, limits);
      if (mode === 'hang')
        return new Promise((resolve, reject) => hung.push(() => answer().then(resolve, reject)));
      return answer();
    },
    retryBudgetGet: (name) => inner.retryBudgetGet(name),
  };
  return {
    store,
    takes,
    set: (m: typeof mode) => {
      mode = m;
    },
    releaseHung: () => {
      for (const h of hung.splice(0)) h();
    },
  };
}

describe('retryBudget({ store }): options', () => {
  it('validates the store and the shared options, naming them', () => {
    expect(() => retryBudget({ store: {} as never })).toThrow(
      /store must be a RetryBudgetStore .*got/,
    );
    expect(() => retryBudget({ name: 'x' })).toThrow(/name needs a store/);
    expect(() => retryBudget({ storeTimeoutMs: 10 })).toThrow(/storeTimeoutMs needs a store/);
    expect(() => retryBudget({ leaseMs: 10 })).toThrow(/leaseMs needs a store/);
    const store = memoryStore();
    expect(() => retryBudget({ store, name: '' })).toThrow(/name must be a non-empty string/);
    expect(() => retryBudget({ store, storeTimeoutMs: 0 })).toThrow(
      /storeTimeoutMs must be a number >= 1, got 0/,
    );
    expect(() => retryBudget({ store, leaseMs: Number.NaN })).toThrow(/leaseMs/);
    expect(() => retryBudget({ store, ratio: 2 })).toThrow(
      /ratio must be a number between 0 and 1, got 2/,
    );
    expect(() => retryBudget({ store, nmae: 'x' } as never)).toThrow(
      /unknown option "nmae" \(did you mean "name"\?\)/,
    );
  });

  it('defaults to the wall clock, the name "default", and shows its link to the store in stats()', async () => {
    const store = memoryStore();
    const budget = retryBudget({ store });
    expect(budget.name).toBe('default');
    budget.recordRequest();
    await tick();
    expect(budget.stats().store).toEqual({
      name: 'default',
      available: true,
      heldTokens: 1,
      unreportedRequests: 0,
    });
    const stored = await store.retryBudgetGet('default');
    // Wall-clock time: every process on one scale.
    expect(Math.abs((stored?.refilledAt ?? 0) - Date.now())).toBeLessThan(5_000);
    await budget.close();
  });
});

describe('retryBudget({ store }): one budget for many processes', () => {
  /** `n` budgets on one store (as `n` processes would share it), all on one virtual clock. */
  function fleet(n: number, o: { ratio?: number; minPerSecond?: number; shared?: boolean } = {}) {
    const clock = new VirtualClock(1_700_000_000_000);
    const store = memoryStore();
    const budgets = Array.from({ length: n }, () =>
      o.shared === false
        ? retryBudget({ clock, ratio: o.ratio ?? 0.1, minPerSecond: o.minPerSecond ?? 3 })
        : retryBudget({
            clock,
            store,
            name: 'dep',
            ratio: o.ratio ?? 0.1,
            minPerSecond: o.minPerSecond ?? 3,
          }),
    );
    return { clock, store, budgets };
  }

  /** Every budget sees `perTick` requests every `stepMs`, each of which fails and asks for 2 retries. */
  async function deadDependency(
    budgets: ReturnType<typeof fleet>['budgets'],
    clock: VirtualClock,
    ticks: number,
    perTick: number,
    stepMs: number,
  ) {
    let requests = 0;
    let granted = 0;
    for (let t = 0; t < ticks; t++) {
      for (const b of budgets) {
        for (let i = 0; i < perTick; i++) {
          b.recordRequest();
          requests++;
          for (let r = 0; r < 2 && b.tryRetry(); r++) granted++;
        }
      }
      await clock.advance(stepMs);
    }
    return { requests, granted };
  }

  it('8 processes against a dead dependency retry within ratio × requests + one floor, using most of it', async () => {
    const { clock, budgets } = fleet(8);
    const start = clock.now();
    const { requests, granted } = await deadDependency(budgets, clock, 100, 10, 50); // 1,600 requests/s for 5 s
    const floor = 3 + (3 * (clock.now() - start)) / 1000;
    expect(granted).toBeLessThanOrEqual(0.1 * requests + floor);
    expect(granted).toBeGreaterThan(0.08 * requests);
    expect(1 + granted / requests).toBeLessThan(1.11);
  });

  it('at low traffic the floor is shared: 8 processes get one floor, where 8 separate budgets get 8', async () => {
    const shared = fleet(8);
    const t0 = shared.clock.now();
    const one = await deadDependency(shared.budgets, shared.clock, 30, 1, 500); // 2 requests/s per process for 15 s
    const sharedLimit = 0.1 * one.requests + 3 + (3 * (shared.clock.now() - t0)) / 1000;
    expect(one.granted).toBeLessThanOrEqual(sharedLimit);
    const apart = fleet(8, { shared: false });
    const eight = await deadDependency(apart.budgets, apart.clock, 30, 1, 500);
    expect(eight.granted).toBeGreaterThan(3 * one.granted);
    expect(1 + one.granted / one.requests).toBeLessThan(1.35);
    expect(1 + eight.granted / eight.requests).toBeGreaterThan(2.4);
  });

  it('a 1 % failure rate at steady traffic is fully retried by every process', async () => {
    const { clock, budgets } = fleet(4);
    const random = seededRandom(11);
    let failures = 0;
    for (let t = 0; t < 3_000; t++) {
      for (const b of budgets) {
        b.recordRequest();
        if (random() < 0.01) {
          failures++;
          expect(b.tryRetry()).toBe(true);
        }
      }
      await clock.advance(20);
    }
    expect(failures).toBeGreaterThan(50);
  });

  it('tryRetry never waits on the store: it answers from tokens taken ahead', async () => {
    const ctl = controllableStore();
    const clock = new VirtualClock(1_700_000_000_000);
    const budget = retryBudget({ clock, store: ctl.store, ratio: 0.5, minPerSecond: 1 });
    for (let i = 0; i < 10; i++) budget.recordRequest();
    await tick();
    expect(ctl.takes.length).toBe(1); // the first request fetched a token; the rest wait for the report tick
    expect(ctl.takes[0]).toEqual({ requests: 1, returned: 0, returnedAt: 0, want: 1 });
    ctl.set('hang');
    expect(budget.tryRetry()).toBe(true); // spends the token in hand, synchronously
    expect(budget.tryRetry()).toBe(false); // none left; the refill is in flight and does not block
    expect(ctl.takes.length).toBe(2);
    ctl.set('ok');
    ctl.releaseHung();
    await tick();
    expect(budget.stats().store?.heldTokens).toBeGreaterThan(0);
    expect(budget.tryRetry()).toBe(true);
    await budget.close();
  });

  it('gives back tokens unused for leaseMs, so another process can spend them', async () => {
    const { clock, store, budgets } = fleet(2, { ratio: 0.1, minPerSecond: 0 });
    const [a, b] = budgets as [ReturnType<typeof retryBudget>, ReturnType<typeof retryBudget>];
    for (let i = 0; i < 100; i++) a.recordRequest();
    await clock.advance(100); // reported: room for 10 retries
    // A asks for many retries: it takes tokens for them as it goes, then goes quiet holding some.
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 6; i++) a.tryRetry();
      await tick();
    }
    const held = a.stats().store?.heldTokens ?? 0;
    expect(held).toBeGreaterThan(0);
    const before = await store.retryBudgetGet('dep');
    const retriesBefore = before?.buckets.reduce((s, x) => s + x.retries, 0) ?? 0;
    await clock.advance(1_100);
    await tick();
    expect(a.stats().store?.heldTokens).toBe(0);
    const after = await store.retryBudgetGet('dep');
    expect(after?.buckets.reduce((s, x) => s + x.retries, 0)).toBe(retriesBefore - held);
    // B gets what A gave back.
    b.recordRequest();
    expect(b.tryRetry()).toBe(false);
    await tick();
    let granted = 0;
    for (let i = 0; i < 20; i++) {
      if (b.tryRetry()) granted++;
      await tick();
    }
    expect(granted).toBe(10 - (retriesBefore - held));
  });

  it('close() reports unreported requests and gives every held token back', async () => {
    const { clock, store, budgets } = fleet(1, { minPerSecond: 0 });
    const budget = budgets[0] as ReturnType<typeof retryBudget> & { close(): Promise<void> };
    for (let i = 0; i < 30; i++) budget.recordRequest();
    await clock.advance(100); // the report: 30 requests make room for 3 retries, one is taken
    expect(budget.tryRetry()).toBe(true);
    await tick(); // the spent token is replaced (and more are taken)
    expect(budget.stats().store?.heldTokens).toBeGreaterThan(0);
    await budget.close();
    const stored = await store.retryBudgetGet('dep');
    expect(stored?.buckets.reduce((s, x) => s + x.requests, 0)).toBe(30);
    expect(stored?.buckets.reduce((s, x) => s + x.retries, 0)).toBe(1); // only the one spent
  });
});

describe('retryBudget({ store }): store outage', () => {
  it('an unanswered store call turns the budget local after storeTimeoutMs, and shared again once it answers', async () => {
    const ctl = controllableStore();
    const clock = new VirtualClock(1_700_000_000_000);
    const budget = retryBudget({ clock, store: ctl.store, ratio: 0, minPerSecond: 2 });
    const events: string[] = [];
    budget.on('store_unavailable', (e) =>
      events.push(`unavailable ${e.name} ${(e.error as Error).name}`),
    );
    budget.on('store_recovered', (e) => events.push(`recovered ${e.name} ${e.downMs}`));
    ctl.set('hang');
    budget.recordRequest();
    expect(budget.tryRetry()).toBe(false); // nothing in hand yet; never waits
    await clock.advance(250);
    expect(events).toEqual(['unavailable default StoreError']);
    expect(budget.stats().store?.available).toBe(false);
    // Local decisions: this process's own floor of 2.
    expect([budget.tryRetry(), budget.tryRetry(), budget.tryRetry()]).toEqual([true, true, false]);
    // The hung call answers late: its grant is given back at the next call.
    ctl.set('ok');
    ctl.releaseHung();
    await tick();
    expect(budget.stats().store?.available).toBe(false);
    await clock.advance(1_000);
    await tick();
    expect(events).toEqual(['unavailable default StoreError', 'recovered default 1000']);
    expect(budget.stats().store?.available).toBe(true);
    const returning = ctl.takes.at(-1);
    expect(returning?.returned).toBeGreaterThan(0);
    await budget.close();
  });

  it('a failing store: retries go on from the local budget, and the requests seen meanwhile are reported once, bounded by the window', async () => {
    const ctl = controllableStore();
    const clock = new VirtualClock(1_700_000_000_000);
    const budget = retryBudget({ clock, store: ctl.store, ratio: 0.1, minPerSecond: 0 });
    ctl.set('fail');
    budget.recordRequest();
    await tick();
    expect(budget.stats().store?.available).toBe(false);
    // 30 s of traffic while the store is down: 300 requests, of which one window (10 s) counts locally.
    for (let i = 0; i < 300; i++) {
      budget.recordRequest();
      await clock.advance(100);
    }
    let local = 0;
    while (budget.tryRetry()) local++;
    expect(local).toBe(9); // 0.1 × the 90 requests in the window's ten buckets (the current one is empty)
    ctl.set('ok');
    await clock.advance(1_000);
    await tick();
    expect(budget.stats().store?.available).toBe(true);
    const stored = await ctl.store.retryBudgetGet('default');
    const reported = stored?.buckets.reduce((s, x) => s + x.requests, 0) ?? 0;
    expect(reported).toBeGreaterThan(0);
    expect(reported).toBeLessThanOrEqual(110);
    await budget.close();
  });

  it('retry({ budget }) keeps working through an outage: it never waits for the store', async () => {
    const ctl = controllableStore();
    const clock = new VirtualClock(1_700_000_000_000);
    const budget = retryBudget({ clock, store: ctl.store, ratio: 0.1, minPerSecond: 1 });
    ctl.set('hang');
    const policy = retry({ maxAttempts: 3, budget, clock, backoff: constant(0) });
    let calls = 0;
    const settled: unknown[] = [];
    for (let i = 0; i < 20; i++) {
      void policy
        .execute(() => {
          calls++;
          throw httpError(503);
        })
        .catch((e: unknown) => settled.push(e));
    }
    await tick();
    expect(settled.length).toBe(20); // all gave up at once: no call waited for the hung store
    expect(settled.every(isRetriesExhaustedError)).toBe(true);
    expect(calls).toBe(20);
    await clock.advance(300);
    ctl.releaseHung();
    await budget.close();
  });
});
