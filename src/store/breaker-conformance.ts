import type { BreakerLimits, BreakerRecord } from '../transitions/breaker-record.js';
import type { BreakerStore } from './breaker-store.js';
import type { ConformanceTestApi } from './conformance.js';

const LIMITS: BreakerLimits = { failureThreshold: 3, cooldownMs: 1000, probeTimeoutMs: 500 };
// A wall-clock time with a fraction: stores keep times verbatim, as doubles.
const T0 = 1_700_000_000_000.5;

async function openBreaker(store: BreakerStore, at: number, name = 'b'): Promise<void> {
  for (let i = 0; i < LIMITS.failureThreshold; i++) {
    const { admission } = await store.breakerAdmit(name, at, LIMITS);
    if (admission.kind === 'reject') throw new Error('expected admission');
    await store.breakerRecord(name, admission.epoch, 'failure', at, LIMITS);
  }
}

function countKinds(kinds: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const k of kinds) counts[k] = (counts[k] ?? 0) + 1;
  return counts;
}

/** Change notifications seen by one subscriber, with a wait for the next ones. */
class Heard {
  readonly changes: Array<{ name: string; record: BreakerRecord }> = [];
  readonly stop: () => void;
  constructor(store: BreakerStore) {
    this.stop = store.breakerSubscribe!((name, record) => this.changes.push({ name, record }));
  }

  /** Waits (real time, up to 30 s: a loaded machine) until `n` changes (of `name`, if given) arrived; returns them. */
  async atLeast(n: number, name?: string): Promise<Array<{ name: string; record: BreakerRecord }>> {
    const of = () =>
      name === undefined ? this.changes : this.changes.filter((c) => c.name === name);
    for (let waited = 0; of().length < n && waited < 30_000; waited += 10)
      await new Promise((r) => setTimeout(r, 10));
    return of();
  }
}

/**
 * Returns once each of `heard` has heard a change `writer` made (to a breaker of its own), with
 * their changes then cleared: their subscriptions are in place, so none misses what follows. A
 * subscription in place late only catches up on the breakers its own handle uses, and would miss
 * the intermediate states of another's.
 */
async function listening(writer: BreakerStore, heard: readonly Heard[]): Promise<void> {
  const states = ['isolated', 'closed'] as const;
  const heardOne = (h: Heard) => h.changes.some((c) => c.name === 'listening');
  for (let i = 0, end = Date.now() + 60_000; !heard.every(heardOne) && Date.now() < end; i++) {
    await writer.breakerForce('listening', states[i % 2] as 'isolated' | 'closed');
    for (let waited = 0; !heard.every(heardOne) && waited < 500; waited += 10) await settle(10);
  }
  for (const h of heard) h.changes.length = 0;
}

const settle = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Options of {@link breakerStoreConformance}. */
export interface BreakerConformanceOptions {
  /**
   * Opens a second, independent handle on the backend the latest `makeStore()` call opened (a
   * second connection to the same server or file). Enables the tests of one probe among handles
   * and of notifications between them.
   */
  openAnother?: () => BreakerStore | Promise<BreakerStore>;
}

type Closable = BreakerStore & { close?: () => Promise<void> };

/**
 * The `BreakerStore` contract as a test suite, for a store that keeps only breakers (a full
 * `Store` runs it inside `storeConformance`). `makeStore` opens a fresh, empty store for each test;
 * a store with `close()` is closed after it.
 *
 * @example
 * import { afterEach, beforeEach, describe, expect, it } from 'vitest'
 * import { breakerStoreConformance } from 'agent-recourse/testing'
 * breakerStoreConformance('map', () => mapBreakerStore(), { describe, it, expect, beforeEach, afterEach })
 */
export function breakerStoreConformance(
  name: string,
  makeStore: () => BreakerStore | Promise<BreakerStore>,
  api: ConformanceTestApi,
  options: BreakerConformanceOptions = {},
): void {
  let store: Closable;
  const extra: Closable[] = [];
  const openAnother = options.openAnother;
  api.describe(`${name} breaker store conformance`, () => {
    api.beforeEach(async () => {
      store = await makeStore();
    });
    api.afterEach(async () => {
      for (const s of extra.splice(0)) await s.close?.();
      await store.close?.();
    });
    const another =
      openAnother === undefined
        ? undefined
        : async (): Promise<BreakerStore> => {
            const s: Closable = await openAnother();
            extra.push(s);
            return s;
          };
    breakerConformance(api, () => store, another);
  });
}

/**
 * @internal The breaker part of `storeConformance`: the `BreakerStore` contract (see its JSDoc),
 * as tests. `current()` is the store of the running test; `another()` opens a second handle on the
 * same backend, when the backend has handles.
 */
export function breakerConformance(
  api: ConformanceTestApi,
  current: () => BreakerStore,
  another: (() => Promise<BreakerStore>) | undefined,
): void {
  const { describe, it, expect } = api;

  describe('breaker', () => {
    it('reads a name never stored as a fresh closed record, and creates nothing for it', async () => {
      const store = current();
      expect(await store.breakerGet('b')).toBeUndefined();
      expect(await store.breakerAdmit('b', T0, LIMITS)).toEqual({
        admission: { kind: 'call', epoch: 0 },
        record: { state: 'closed', epoch: 0, failures: 0, openedAt: 0, probeUntil: 0 },
      });
      expect(await store.breakerGet('b')).toBeUndefined();
    });

    it('counts failures, opens at failureThreshold and rejects until the cooldown ends', async () => {
      const store = current();
      const { admission } = await store.breakerAdmit('b', T0, LIMITS);
      if (admission.kind !== 'call') throw new Error('expected a call');
      expect(await store.breakerRecord('b', admission.epoch, 'failure', T0, LIMITS)).toEqual({
        state: 'closed',
        epoch: 0,
        failures: 1,
        openedAt: 0,
        probeUntil: 0,
      });
      expect(
        (await store.breakerRecord('b', admission.epoch, 'success', T0, LIMITS)).failures,
      ).toBe(0);
      await openBreaker(store, T0);
      expect(await store.breakerGet('b')).toEqual({
        state: 'open',
        epoch: 1,
        failures: 3,
        openedAt: T0,
        probeUntil: 0,
      });
      expect(await store.breakerAdmit('b', T0 + 400, LIMITS)).toEqual({
        admission: { kind: 'reject', retryAfterMs: 600, state: 'open' },
        record: { state: 'open', epoch: 1, failures: 3, openedAt: T0, probeUntil: 0 },
      });
    });

    it('admits exactly one probe among 50 concurrent callers after the cooldown', async () => {
      const store = current();
      await openBreaker(store, T0);
      const answers = await Promise.all(
        Array.from({ length: 50 }, () => store.breakerAdmit('b', T0 + LIMITS.cooldownMs, LIMITS)),
      );
      expect(countKinds(answers.map((a) => a.admission.kind))).toEqual({ probe: 1, reject: 49 });
      const probeUntil = T0 + LIMITS.cooldownMs + LIMITS.probeTimeoutMs;
      for (const { record } of answers)
        expect(record).toEqual({
          state: 'half-open',
          epoch: 2,
          failures: 3,
          openedAt: T0,
          probeUntil,
        });
      expect(await store.breakerGet('b')).toEqual({
        state: 'half-open',
        epoch: 2,
        failures: 3,
        openedAt: T0,
        probeUntil,
      });
    });

    it('closes on the probe success; a stale outcome changes nothing and returns the current record', async () => {
      const store = current();
      await openBreaker(store, T0);
      const { admission: probe } = await store.breakerAdmit('b', T0 + LIMITS.cooldownMs, LIMITS);
      if (probe.kind !== 'probe') throw new Error('expected the probe');
      const halfOpen = await store.breakerGet('b');
      expect(await store.breakerRecord('b', 0, 'failure', T0 + 1001, LIMITS)).toEqual(halfOpen);
      const closed = await store.breakerRecord('b', probe.epoch, 'success', T0 + 1002, LIMITS);
      expect(closed).toEqual({
        state: 'closed',
        epoch: probe.epoch + 1,
        failures: 0,
        openedAt: T0,
        probeUntil: 0,
      });
    });

    it('reopens on a probe failure, restarting the cooldown', async () => {
      const store = current();
      await openBreaker(store, T0);
      const { admission: probe } = await store.breakerAdmit('b', T0 + 1000, LIMITS);
      if (probe.kind !== 'probe') throw new Error('expected the probe');
      const reopened = await store.breakerRecord('b', probe.epoch, 'failure', T0 + 1200, LIMITS);
      expect(reopened).toEqual({
        state: 'open',
        epoch: probe.epoch + 1,
        failures: 3,
        openedAt: T0 + 1200,
        probeUntil: 0,
      });
      expect((await store.breakerAdmit('b', T0 + 2100, LIMITS)).admission).toEqual({
        kind: 'reject',
        retryAfterMs: 100,
        state: 'open',
      });
    });

    it('frees the probe slot on a neutral outcome (a 400, a caller abort), staying half-open', async () => {
      const store = current();
      await openBreaker(store, T0);
      const { admission: probe } = await store.breakerAdmit('b', T0 + 1000, LIMITS);
      if (probe.kind !== 'probe') throw new Error('expected the probe');
      expect(await store.breakerRecord('b', probe.epoch, 'neutral', T0 + 1010, LIMITS)).toEqual({
        state: 'half-open',
        epoch: probe.epoch,
        failures: 3,
        openedAt: T0,
        probeUntil: 0,
      });
      expect((await store.breakerAdmit('b', T0 + 1020, LIMITS)).admission).toEqual({
        kind: 'probe',
        epoch: probe.epoch,
      });
    });

    it('hands a probe slot whose time is up to the next caller, under a new epoch', async () => {
      const store = current();
      await openBreaker(store, T0);
      const { admission: first } = await store.breakerAdmit('b', T0 + 1000, LIMITS);
      if (first.kind !== 'probe') throw new Error('expected the probe');
      expect((await store.breakerAdmit('b', T0 + 1499, LIMITS)).admission).toEqual({
        kind: 'reject',
        retryAfterMs: 1,
        state: 'half-open',
      });
      const { admission: second } = await store.breakerAdmit('b', T0 + 1500, LIMITS);
      expect(second).toEqual({ kind: 'probe', epoch: first.epoch + 1 });
      expect(
        (await store.breakerRecord('b', first.epoch, 'success', T0 + 1600, LIMITS)).state,
      ).toBe('half-open');
    });

    it('forces isolated and closed, bumping the epoch and clearing counters', async () => {
      const store = current();
      await openBreaker(store, T0);
      expect(await store.breakerForce('b', 'isolated')).toEqual({
        state: 'isolated',
        epoch: 2,
        failures: 0,
        openedAt: T0,
        probeUntil: 0,
      });
      const { admission } = await store.breakerAdmit('b', T0 + 10_000_000, LIMITS);
      expect(
        admission.kind === 'reject' &&
          admission.state === 'isolated' &&
          admission.retryAfterMs === Number.POSITIVE_INFINITY,
      ).toBe(true);
      expect(await store.breakerForce('b', 'closed')).toEqual({
        state: 'closed',
        epoch: 3,
        failures: 0,
        openedAt: T0,
        probeUntil: 0,
      });
      expect(await store.breakerForce('fresh', 'isolated')).toEqual({
        state: 'isolated',
        epoch: 1,
        failures: 0,
        openedAt: 0,
        probeUntil: 0,
      });
      expect(await store.breakerGet('other')).toBeUndefined();
    });

    it('keeps names independent and returns copies', async () => {
      const store = current();
      await openBreaker(store, T0, 'x');
      const got = await store.breakerGet('x');
      if (got === undefined) throw new Error('expected a record');
      got.state = 'closed';
      got.epoch = 99;
      expect((await store.breakerGet('x'))?.state).toBe('open');
      expect(await store.breakerGet('y')).toBeUndefined();
    });

    it('notifies subscribers of state changes (trip, probe, close, forced state) with the record as stored, never of a failure count while closed', async () => {
      const store = current();
      if (store.breakerSubscribe === undefined) return; // optional: such a store is re-read on an interval
      const heard = new Heard(store);
      // A subscription may take a moment to be in place (PostgreSQL's LISTEN): wait for a change.
      await store.breakerForce('ready', 'closed');
      await heard.atLeast(1);
      heard.changes.length = 0;
      const { admission } = await store.breakerAdmit('b', T0, LIMITS); // closed: no change
      if (admission.kind !== 'call') throw new Error('expected a call');
      await store.breakerRecord('b', admission.epoch, 'failure', T0, LIMITS); // a count: written, not announced
      await store.breakerRecord('b', admission.epoch, 'success', T0, LIMITS); // the count cleared: not announced
      await store.breakerRecord('b', 7, 'failure', T0, LIMITS); // stale: no change
      await store.breakerRecord('b', admission.epoch, 'failure', T0, LIMITS);
      await store.breakerRecord('b', admission.epoch, 'failure', T0, LIMITS);
      expect((await store.breakerGet('b'))?.failures).toBe(2); // written, though nobody heard
      await store.breakerRecord('b', admission.epoch, 'failure', T0, LIMITS); // the trip
      const probe = await store.breakerAdmit('b', T0 + LIMITS.cooldownMs, LIMITS); // the probe taken
      if (probe.admission.kind !== 'probe') throw new Error('expected the probe');
      await store.breakerRecord('b', probe.admission.epoch, 'success', T0 + 1000, LIMITS); // the close
      await store.breakerRecord('b', probe.admission.epoch + 1, 'failure', T0 + 1000, LIMITS); // a count again
      await store.breakerForce('b', 'isolated');
      const changes = await heard.atLeast(4);
      await settle(50); // nothing else arrives
      expect(changes).toEqual([
        {
          name: 'b',
          record: { state: 'open', epoch: 1, failures: 3, openedAt: T0, probeUntil: 0 },
        },
        {
          name: 'b',
          record: {
            state: 'half-open',
            epoch: 2,
            failures: 3,
            openedAt: T0,
            probeUntil: T0 + LIMITS.cooldownMs + LIMITS.probeTimeoutMs,
          },
        },
        {
          name: 'b',
          record: { state: 'closed', epoch: 3, failures: 0, openedAt: T0, probeUntil: 0 },
        },
        {
          name: 'b',
          record: { state: 'isolated', epoch: 4, failures: 0, openedAt: T0, probeUntil: 0 },
        },
      ]);
      heard.stop();
      heard.stop();
      await store.breakerForce('b', 'closed');
      await settle(50);
      expect(heard.changes.length).toBe(4);
    });

    it('delivers notifications after the transition, never inside it', async () => {
      const store = current();
      if (store.breakerSubscribe === undefined) return;
      const heard = new Heard(store);
      const pending = store.breakerForce('b', 'isolated');
      expect(heard.changes.length).toBe(0);
      await pending;
      expect((await heard.atLeast(1)).length).toBe(1);
      heard.stop();
    });

    if (another !== undefined) {
      it('grants one probe among handles racing, and notifies the other handles', async () => {
        const store = current();
        const handles = [store, await another(), await another(), await another()];
        const heard =
          store.breakerSubscribe === undefined
            ? undefined
            : handles.slice(1).map((h) => new Heard(h));
        if (heard !== undefined) await listening(store, heard);
        await openBreaker(store, T0);
        const answers = await Promise.all(
          handles.flatMap((h) =>
            [h, h].map((x) => x.breakerAdmit('b', T0 + LIMITS.cooldownMs, LIMITS)),
          ),
        );
        expect(answers.filter((a) => a.admission.kind === 'probe').length).toBe(1);
        if (heard !== undefined) {
          for (const h of heard) {
            // the trip (the third failure; the first two are counts, never announced), then the probe taken
            await h.atLeast(2, 'b');
            await settle(50);
            const changes = await h.atLeast(2, 'b');
            expect(changes.map((c) => c.record.state)).toEqual(['open', 'half-open']);
            h.stop();
          }
        }
      });

      it('sees what another handle wrote, also after that handle closed', async () => {
        const store = current();
        await store.breakerForce('b', 'isolated');
        const second = await another();
        expect((await second.breakerGet('b'))?.state).toBe('isolated');
      });
    }
  });
}
