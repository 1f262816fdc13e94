import { breakerConformance } from './breaker-conformance.js';
import { retryBudgetConformance } from './retry-budget-conformance.js';
import type { CheckpointRecord } from './checkpoint-store.js';
import { escalationConformance } from './escalation-conformance.js';
import type { SagaLogEntry } from './saga-log-store.js';
import type { Store } from './store.js';
import { rejection } from './conformance-rejection.js';

/** The matchers the suite uses; vitest's and jest's `expect` provide them. */
export interface ConformanceMatchers {
  toBe(expected: unknown): void;
  toEqual(expected: unknown): void;
  toBeUndefined(): void;
  toBeGreaterThan(n: number): void;
}

/** The test functions the suite is given (vitest's, jest's, …), so it imports no test runner. */
export interface ConformanceTestApi {
  describe(name: string, fn: () => void): void;
  it(name: string, fn: () => Promise<void>): void;
  expect(actual: unknown): ConformanceMatchers;
  beforeEach(fn: () => Promise<void>): void;
  afterEach(fn: () => Promise<void>): void;
}

/** Options of {@link storeConformance}. */
export interface ConformanceOptions {
  /**
   * Opens a second, independent handle on the backend the latest `makeStore()` call opened (a
   * second connection to the same file or server). Enables the tests of durability and of
   * atomicity between handles; omit for a store that lives in one object (memory).
   */
  openAnother?: () => Store | Promise<Store>;
}

const T0 = 1_700_000_000_000;
const LEASE = 1000;
/** How long a result is kept in the tests that read it back (real time on Redis: see there). */
const KEPT = 60_000;

/** A key of 12 KB in UTF-8 (multi-byte characters included): backends must not truncate or reject it. */
const LONG_KEY = `long/${'ключ🔑'.repeat(1000)}`;

const realSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function countKinds(kinds: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const k of kinds) counts[k] = (counts[k] ?? 0) + 1;
  return counts;
}

/**
 * The behaviour every `Store` backend must have, as one test suite run against every backend
 * (memory, SQLite, Redis, PostgreSQL, yours): ledger claims, takeovers, leases, results and
 * bounded expiry; checkpoints kept verbatim; saga logs fenced by their lease, renewals that never
 * take a lease back; breaker transitions with exactly one probe among concurrent callers;
 * escalations opened once, decided once among racing deciders, expiring as denied; retry budgets
 * that never grant more than they hold among concurrent takers; keys of
 * 10 KB and more; concurrency cases with many callers; `close()`. Call it from a test file of the
 * backend; `makeStore` opens a fresh, empty store for each test (a new file, or a unique key prefix
 * or schema on a shared server), closed after the test. Times passed to the store are wall-clock
 * sized (around 1.7e12); one test waits 120 ms of real time, for backends that expire entries by
 * their server's clock (Redis `PX`).
 *
 * @example
 * import { afterEach, beforeEach, describe, expect, it } from 'vitest'
 * import { storeConformance } from 'agent-recourse/testing'
 * storeConformance('sqlite', () => sqliteStore({ path: freshPath() }), { describe, it, expect, beforeEach, afterEach })
 */
export function storeConformance(
  name: string,
  makeStore: () => Store | Promise<Store>,
  api: ConformanceTestApi,
  options: ConformanceOptions = {},
): void {
  const { describe, it, expect, beforeEach, afterEach } = api;
  let store: Store;
  const extra: Store[] = [];
  const another = async (): Promise<Store> => {
    if (options.openAnother === undefined)
      throw new Error('storeConformance: openAnother is not given');
    const s = await options.openAnother();
    extra.push(s);
    return s;
  };

  describe(`${name} store conformance`, () => {
    beforeEach(async () => {
      store = await makeStore();
    });
    afterEach(async () => {
      for (const s of extra.splice(0)) await s.close();
      await store.close();
    });

    describe('ledger', () => {
      it('claims a free key once; others see it held until the lease lapses', async () => {
        expect(await store.ledgerClaim('k', 'a', T0, LEASE)).toEqual({
          kind: 'claimed',
          takeover: false,
        });
        expect(await store.ledgerClaim('k', 'b', T0 + 10, LEASE)).toEqual({
          kind: 'held',
          leaseUntil: T0 + LEASE,
        });
        const entry = await store.ledgerGet('k');
        expect(entry).toEqual({
          key: 'k',
          state: 'pending',
          owner: 'a',
          leaseUntil: T0 + LEASE,
          claims: 1,
          expiresAt: 0,
        });
      });

      // Redis expires a result by its own clock (PX = expiresAt - now): a result kept for a minute
      // outlives the test however slowly the machine runs it, while `now` steps to the edge.
      it('returns a completed result verbatim to every later claim until it expires', async () => {
        const result = '{"id":"msg_1","text":"héllo 🔑"}';
        await store.ledgerClaim('ключ/🔑', 'a', T0, LEASE);
        expect(await store.ledgerComplete('ключ/🔑', 'a', result, T0 + 5, T0 + KEPT)).toBe(true);
        expect(await store.ledgerClaim('ключ/🔑', 'b', T0 + KEPT - 1, LEASE)).toEqual({
          kind: 'completed',
          result,
        });
        expect(await store.ledgerClaim('ключ/🔑', 'c', T0 + KEPT - 1, LEASE)).toEqual({
          kind: 'completed',
          result,
        });
        // Expired: the key is free again and the next claimer runs the operation.
        expect(await store.ledgerClaim('ключ/🔑', 'd', T0 + KEPT, LEASE)).toEqual({
          kind: 'claimed',
          takeover: false,
        });
        expect((await store.ledgerGet('ключ/🔑'))?.owner).toBe('d');
      });

      it('stores an undefined result as absent', async () => {
        await store.ledgerClaim('void', 'a', T0, LEASE);
        expect(await store.ledgerComplete('void', 'a', undefined, T0, T0 + KEPT)).toBe(true);
        expect(await store.ledgerClaim('void', 'b', T0 + 1, LEASE)).toEqual({
          kind: 'completed',
          result: undefined,
        });
        expect((await store.ledgerGet('void'))?.result).toBeUndefined();
      });

      it('lets only the holder renew, complete or release', async () => {
        await store.ledgerClaim('k', 'a', T0, LEASE);
        expect(await store.ledgerRenew('k', 'b', T0 + 1, LEASE)).toBe(false);
        expect(await store.ledgerComplete('k', 'b', '"x"', T0 + 1, T0 + 100)).toBe(false);
        await store.ledgerRelease('k', 'b');
        expect(await store.ledgerGet('k')).toEqual({
          key: 'k',
          state: 'pending',
          owner: 'a',
          leaseUntil: T0 + LEASE,
          claims: 1,
          expiresAt: 0,
        });
        expect(await store.ledgerRenew('k', 'a', T0 + 600, LEASE)).toBe(true);
        expect((await store.ledgerGet('k'))?.leaseUntil).toBe(T0 + 600 + LEASE);
        expect(await store.ledgerClaim('k', 'b', T0 + LEASE + 1, LEASE)).toEqual({
          kind: 'held',
          leaseUntil: T0 + 600 + LEASE,
        });
      });

      it('frees a released key for the next caller', async () => {
        await store.ledgerClaim('k', 'a', T0, LEASE);
        await store.ledgerRelease('k', 'a');
        expect(await store.ledgerGet('k')).toBeUndefined();
        expect(await store.ledgerClaim('k', 'b', T0 + 1, LEASE)).toEqual({
          kind: 'claimed',
          takeover: false,
        });
      });

      it('hands a lapsed claim to one taker; the old holder can no longer renew or complete it', async () => {
        await store.ledgerClaim('k', 'dead', T0, LEASE);
        expect(await store.ledgerClaim('k', 'b', T0 + LEASE, LEASE)).toEqual({
          kind: 'claimed',
          takeover: true,
          previousOwner: 'dead',
        });
        expect(await store.ledgerClaim('k', 'c', T0 + LEASE + 1, LEASE)).toEqual({
          kind: 'held',
          leaseUntil: T0 + 2 * LEASE,
        });
        expect(await store.ledgerRenew('k', 'dead', T0 + LEASE + 2, LEASE)).toBe(false);
        expect(
          await store.ledgerComplete('k', 'dead', '"late"', T0 + LEASE + 2, T0 + 10 * LEASE),
        ).toBe(false);
        expect(await store.ledgerComplete('k', 'b', '"ok"', T0 + LEASE + 3, T0 + 10 * LEASE)).toBe(
          true,
        );
        expect(await store.ledgerGet('k')).toEqual({
          key: 'k',
          state: 'completed',
          owner: 'b',
          leaseUntil: T0 + LEASE + 3,
          claims: 2,
          result: '"ok"',
          expiresAt: T0 + 10 * LEASE,
        });
      });

      it('grants exactly one of 50 concurrent claims on one key', async () => {
        const claims = await Promise.all(
          Array.from({ length: 50 }, (_, i) => store.ledgerClaim('race', `o${i}`, T0, LEASE)),
        );
        expect(countKinds(claims.map((c) => c.kind))).toEqual({ claimed: 1, held: 49 });
      });

      it('renews to exactly now + leaseMs (0 gives the claim up as lapsed: the next claim is a takeover)', async () => {
        await store.ledgerClaim('k', 'a', T0, LEASE);
        expect(await store.ledgerRenew('k', 'a', T0 + 500, 100)).toBe(true);
        expect((await store.ledgerGet('k'))?.leaseUntil).toBe(T0 + 600);
        expect(await store.ledgerRenew('k', 'a', T0 + 550, 0)).toBe(true);
        expect(await store.ledgerClaim('k', 'b', T0 + 550, LEASE)).toEqual({
          kind: 'claimed',
          takeover: true,
          previousOwner: 'a',
        });
      });

      it("still counts a lapsed claim nobody took as its holder's: renew and complete succeed, once", async () => {
        await store.ledgerClaim('k', 'slow', T0, LEASE);
        expect(await store.ledgerRenew('k', 'slow', T0 + 5 * LEASE, LEASE)).toBe(true);
        await store.ledgerClaim('k2', 'slow', T0, LEASE);
        expect(
          await store.ledgerComplete(
            'k2',
            'slow',
            '"late but fine"',
            T0 + 5 * LEASE,
            T0 + 10 * LEASE,
          ),
        ).toBe(true);
        expect(
          await store.ledgerComplete('k2', 'slow', '"again"', T0 + 5 * LEASE, T0 + 10 * LEASE),
        ).toBe(false);
        expect(await store.ledgerClaim('k2', 'x', T0 + 5 * LEASE, LEASE)).toEqual({
          kind: 'completed',
          result: '"late but fine"',
        });
      });

      it('handles a key of 10 KB verbatim', async () => {
        expect(await store.ledgerClaim(LONG_KEY, 'a', T0, LEASE)).toEqual({
          kind: 'claimed',
          takeover: false,
        });
        expect(await store.ledgerClaim(`${LONG_KEY}x`, 'b', T0, LEASE)).toEqual({
          kind: 'claimed',
          takeover: false,
        });
        expect(await store.ledgerComplete(LONG_KEY, 'a', '"ok"', T0, T0 + LEASE)).toBe(true);
        expect(await store.ledgerClaim(LONG_KEY, 'c', T0 + 1, LEASE)).toEqual({
          kind: 'completed',
          result: '"ok"',
        });
        expect((await store.ledgerGet(LONG_KEY))?.key).toBe(LONG_KEY);
      });

      it('forgets expired results without being asked for them: storage stays bounded', async () => {
        // Expiry by the `now` given (memory, SQLite: swept as claims go by) or by the server's own
        // clock (Redis PX): the entry expires 50 ms after completion in both scales.
        for (let i = 0; i < 20; i++) {
          await store.ledgerClaim(`old${i}`, 'a', T0, LEASE);
          await store.ledgerComplete(`old${i}`, 'a', '"x"', T0, T0 + 50);
        }
        await realSleep(120);
        for (let i = 0; i < 300; i++)
          await store.ledgerClaim(`new${i}`, 'b', T0 + 10 * LEASE, LEASE);
        const left = await Promise.all(
          Array.from({ length: 20 }, (_, i) => store.ledgerGet(`old${i}`)),
        );
        expect(left.filter((e) => e !== undefined).length).toBe(0);
      });

      it('grants exactly one claim per key among 400 concurrent callers on 20 keys', async () => {
        const claims = await Promise.all(
          Array.from({ length: 400 }, (_, i) =>
            store
              .ledgerClaim(`key${i % 20}`, `o${i}`, T0, LEASE)
              .then((c) => [i % 20, c.kind] as const),
          ),
        );
        const claimedPerKey = new Map<number, number>();
        for (const [k, kind] of claims)
          if (kind === 'claimed') claimedPerKey.set(k, (claimedPerKey.get(k) ?? 0) + 1);
        expect([...claimedPerKey.values()]).toEqual(Array.from({ length: 20 }, () => 1));
      });

      it('a lapsed holder completing while 50 callers claim: either it completes and none runs, or one takes over and it does not', async () => {
        await store.ledgerClaim('k', 'holder', T0, LEASE);
        const at = T0 + LEASE;
        const [completed, ...claims] = await Promise.all([
          store.ledgerComplete('k', 'holder', '"done"', at, at + LEASE),
          ...Array.from({ length: 50 }, (_, i) => store.ledgerClaim('k', `t${i}`, at, LEASE)),
        ]);
        const kinds = countKinds((claims as Array<{ kind: string }>).map((c) => c.kind));
        if (completed) expect(kinds.claimed).toBeUndefined();
        else expect(kinds.claimed).toBe(1);
      });

      it('keeps keys independent', async () => {
        await store.ledgerClaim('k1', 'a', T0, LEASE);
        expect(await store.ledgerClaim('k2', 'b', T0, LEASE)).toEqual({
          kind: 'claimed',
          takeover: false,
        });
        expect(await store.ledgerGet('k3')).toBeUndefined();
      });
    });

    describe('checkpoints', () => {
      const record = (taskId: string, stepIndex: number, state: string): CheckpointRecord => ({
        taskId,
        stepIndex,
        state,
        checksum: `${'ab'.repeat(31)}${String(stepIndex).padStart(2, '0')}`,
        savedAt: T0 + stepIndex + 0.5,
      });

      it('loads nothing for an unknown task', async () => {
        expect(await store.loadCheckpoint('never')).toBeUndefined();
      });

      it('keeps the latest record per task, verbatim', async () => {
        await store.saveCheckpoint(record('t', 0, '{"a":1}'));
        await store.saveCheckpoint(record('t', 1, '{"a":2,"s":"é🔑"}'));
        await store.saveCheckpoint(record('u', 7, '[]'));
        expect(await store.loadCheckpoint('t')).toEqual(record('t', 1, '{"a":2,"s":"é🔑"}'));
        expect(await store.loadCheckpoint('u')).toEqual(record('u', 7, '[]'));
      });

      it('does not judge records: a wrong checksum or unparsable state comes back as saved', async () => {
        const bad = {
          taskId: 't',
          stepIndex: 2,
          state: '{not json',
          checksum: '0'.repeat(64),
          savedAt: T0,
        };
        await store.saveCheckpoint(bad);
        expect(await store.loadCheckpoint('t')).toEqual(bad);
      });

      it('keeps a task id of 10 KB and a fractional savedAt verbatim', async () => {
        const r = {
          taskId: LONG_KEY,
          stepIndex: 2,
          state: '{"a":1}',
          checksum: 'c'.repeat(64),
          savedAt: T0 + 0.123456789,
        };
        await store.saveCheckpoint(r);
        expect(await store.loadCheckpoint(LONG_KEY)).toEqual(r);
        expect(await store.loadCheckpoint(`${LONG_KEY}x`)).toBeUndefined();
      });

      it('returns copies: changing a loaded record changes nothing stored', async () => {
        await store.saveCheckpoint(record('t', 0, '{"a":1}'));
        const loaded = await store.loadCheckpoint('t');
        if (loaded) loaded.state = '{"a":666}';
        expect((await store.loadCheckpoint('t'))?.state).toBe('{"a":1}');
      });
    });

    describe('saga log', () => {
      const line = (
        type: SagaLogEntry['type'],
        step: number,
        stepName: string,
        data?: string,
      ): SagaLogEntry =>
        data === undefined
          ? { type, step, name: stepName, at: T0 + step }
          : { type, step, name: stepName, data, at: T0 + step };

      it('reads an empty log for an unknown saga', async () => {
        expect(await store.sagaRead('never')).toEqual([]);
      });

      it('gives the lease to one owner until it lapses or is released', async () => {
        expect(await store.sagaAcquire('s', 'a', T0, LEASE)).toEqual({
          acquired: true,
          leaseUntil: T0 + LEASE,
          holder: 'a',
        });
        expect(await store.sagaAcquire('s', 'b', T0 + 1, LEASE)).toEqual({
          acquired: false,
          leaseUntil: T0 + LEASE,
          holder: 'a',
        });
        expect(await store.sagaAcquire('s', 'a', T0 + 2, LEASE)).toEqual({
          acquired: true,
          leaseUntil: T0 + 2 + LEASE,
          holder: 'a',
        });
        expect(await store.sagaAcquire('s', 'b', T0 + 2 + LEASE, LEASE)).toEqual({
          acquired: true,
          leaseUntil: T0 + 2 + 2 * LEASE,
          holder: 'b',
        });
        await store.sagaRelease('s', 'a'); // not a's any more: no effect
        expect((await store.sagaAcquire('s', 'c', T0 + 3 + LEASE, LEASE)).acquired).toBe(false);
        await store.sagaRelease('s', 'b');
        expect((await store.sagaAcquire('s', 'c', T0 + 3 + LEASE, LEASE)).acquired).toBe(true);
      });

      it('replaces a live lease only for the caller naming its current holder', async () => {
        await store.sagaAcquire('s', 'dead', T0, LEASE);
        expect(await store.sagaAcquire('s', 'b', T0 + 1, LEASE, 'someone-else')).toEqual({
          acquired: false,
          leaseUntil: T0 + LEASE,
          holder: 'dead',
        });
        const replacers = await Promise.all(
          ['b', 'c', 'd'].map((o) => store.sagaAcquire('s', o, T0 + 2, LEASE, 'dead')),
        );
        expect(replacers.filter((l) => l.acquired).length).toBe(1);
        const winner = replacers.find((l) => l.acquired)!.holder;
        expect(replacers.every((l) => l.holder === winner && l.leaseUntil === T0 + 2 + LEASE)).toBe(
          true,
        );
        expect(await store.sagaAppend('s', 'dead', line('step', 0, 'x'))).toBe(false);
        expect(await store.sagaAppend('s', winner, line('step', 0, 'x'))).toBe(true);
      });

      it('grants exactly one of 50 concurrent lease requests', async () => {
        const leases = await Promise.all(
          Array.from({ length: 50 }, (_, i) => store.sagaAcquire('s', `o${i}`, T0, LEASE)),
        );
        expect(leases.filter((l) => l.acquired).length).toBe(1);
      });

      it('renews only for the holder, to exactly now + leaseMs, and never takes a lease back', async () => {
        expect(await store.sagaRenew('s', 'a', T0, LEASE)).toBe(false); // nothing to renew
        await store.sagaAcquire('s', 'a', T0, LEASE);
        expect(await store.sagaRenew('s', 'b', T0 + 1, LEASE)).toBe(false);
        expect(await store.sagaRenew('s', 'a', T0 + 500, 100)).toBe(true);
        expect(await store.sagaAcquire('s', 'b', T0 + 599, LEASE)).toEqual({
          acquired: false,
          leaseUntil: T0 + 600,
          holder: 'a',
        });
        // Lapsed, nobody took it: still a's.
        expect(await store.sagaRenew('s', 'a', T0 + 2 * LEASE, LEASE)).toBe(true);
        // Taken over, then released by the taker: a renewal must not make a the holder again.
        await store.sagaAcquire('s', 'b', T0 + 4 * LEASE, LEASE);
        expect(await store.sagaRenew('s', 'a', T0 + 4 * LEASE + 1, LEASE)).toBe(false);
        await store.sagaRelease('s', 'b');
        expect(await store.sagaRenew('s', 'a', T0 + 4 * LEASE + 2, LEASE)).toBe(false);
        expect(await store.sagaAppend('s', 'a', line('step', 0, 'x'))).toBe(false);
      });

      it('keeps a saga id of 10 KB apart from its neighbours', async () => {
        expect((await store.sagaAcquire(LONG_KEY, 'a', T0, LEASE)).acquired).toBe(true);
        expect(await store.sagaAppend(LONG_KEY, 'a', line('begin', -1, '', '[]'))).toBe(true);
        expect(await store.sagaRead(LONG_KEY)).toEqual([line('begin', -1, '', '[]')]);
        expect(await store.sagaRead(`${LONG_KEY}x`)).toEqual([]);
      });

      it('keeps every one of 100 concurrent appends by the holder', async () => {
        await store.sagaAcquire('s', 'a', T0, LEASE);
        const oks = await Promise.all(
          Array.from({ length: 100 }, (_, i) =>
            store.sagaAppend('s', 'a', line('step', i, `n${i}`)),
          ),
        );
        expect(oks.every((ok) => ok)).toBe(true);
        const steps = (await store.sagaRead('s')).map((e) => e.step).sort((x, y) => x - y);
        expect(steps).toEqual(Array.from({ length: 100 }, (_, i) => i));
      });

      it('appends in order for the lease holder only, and resets for it only', async () => {
        await store.sagaAcquire('s', 'a', T0, LEASE);
        const entries = [
          line('begin', -1, '', '["x","y"]'),
          line('step', 0, 'x', '{"id":1}'),
          line('step', 1, 'y'),
          line('end', -1, '', 'completed'),
        ];
        for (const e of entries) expect(await store.sagaAppend('s', 'a', e)).toBe(true);
        expect(await store.sagaAppend('s', 'intruder', line('compensated', 0, 'x'))).toBe(false);
        expect(await store.sagaAppend('other', 'a', line('begin', -1, ''))).toBe(false);
        expect(await store.sagaRead('s')).toEqual(entries);
        expect(await store.sagaRead('other')).toEqual([]);
        expect(await store.sagaReset('s', 'intruder')).toBe(false);
        expect((await store.sagaRead('s')).length).toBe(4);
        expect(await store.sagaReset('s', 'a')).toBe(true);
        expect(await store.sagaRead('s')).toEqual([]);
      });

      it('fences out a holder whose lease was taken over', async () => {
        await store.sagaAcquire('s', 'old', T0, LEASE);
        await store.sagaAppend('s', 'old', line('begin', -1, '', '[]'));
        await store.sagaAcquire('s', 'new', T0 + LEASE, LEASE);
        expect(await store.sagaAppend('s', 'old', line('step', 0, 'x'))).toBe(false);
        expect(await store.sagaAppend('s', 'new', line('compensated', 0, 'x'))).toBe(true);
        expect((await store.sagaRead('s')).map((e) => e.type)).toEqual(['begin', 'compensated']);
      });
    });

    breakerConformance(api, () => store, options.openAnother === undefined ? undefined : another);
    escalationConformance(
      api,
      () => store,
      options.openAnother === undefined ? undefined : another,
    );

    retryBudgetConformance(
      api,
      () => store,
      options.openAnother === undefined ? undefined : another,
    );

    describe('close', () => {
      it('rejects every call after close with StoreError closed; closing twice is fine', async () => {
        await store.close();
        await store.close();
        const errors = await Promise.all([
          rejection(store.ledgerClaim('k', 'a', T0, LEASE)),
          rejection(store.ledgerRenew('k', 'a', T0, LEASE)),
          rejection(store.ledgerComplete('k', 'a', '1', T0, T0 + 1)),
          rejection(store.ledgerRelease('k', 'a')),
          rejection(store.ledgerGet('k')),
          rejection(
            store.saveCheckpoint({
              taskId: 't',
              stepIndex: 0,
              state: '{}',
              checksum: 'c'.repeat(64),
              savedAt: T0,
            }),
          ),
          rejection(store.loadCheckpoint('t')),
          rejection(store.sagaAcquire('s', 'a', T0, LEASE)),
          rejection(store.sagaRenew('s', 'a', T0, LEASE)),
          rejection(store.sagaRelease('s', 'a')),
          rejection(store.sagaAppend('s', 'a', { type: 'begin', step: -1, name: '', at: T0 })),
          rejection(store.sagaRead('s')),
          rejection(store.sagaReset('s', 'a')),
          rejection(store.breakerGet('b')),
          rejection(
            store.retryBudgetTake('b', { requests: 1, want: 1, returned: 0, returnedAt: 0 }, T0, {
              ratio: 0.1,
              minPerSecond: 3,
              windowMs: 10_000,
            }),
          ),
          rejection(store.retryBudgetGet('b')),
        ]);
        for (const e of errors)
          expect([
            (e as Error | undefined)?.name,
            (e as { code?: string } | undefined)?.code,
          ]).toEqual(['StoreError', 'closed']);
      });
    });

    const openAnother = options.openAnother;
    if (openAnother !== undefined) {
      describe('between handles', () => {
        it('sees what another handle wrote, also after that handle closed', async () => {
          await store.ledgerClaim('k', 'a', T0, LEASE);
          await store.ledgerComplete('k', 'a', '"done"', T0, T0 + LEASE);
          await store.saveCheckpoint({
            taskId: 't',
            stepIndex: 3,
            state: '{}',
            checksum: 'c'.repeat(64),
            savedAt: T0,
          });
          await store.breakerForce('b', 'isolated');
          const second = await another();
          await store.close();
          store = await another();
          expect(await second.ledgerClaim('k', 'b', T0 + 1, LEASE)).toEqual({
            kind: 'completed',
            result: '"done"',
          });
          expect((await store.loadCheckpoint('t'))?.stepIndex).toBe(3);
          expect((await store.breakerGet('b'))?.state).toBe('isolated');
        });

        it('grants one claim and one lease among handles racing', async () => {
          const handles = [store, await another(), await another(), await another()];
          const claims = await Promise.all(
            handles.flatMap((h, i) =>
              [0, 1, 2].map((j) => h.ledgerClaim('race', `h${i}-${j}`, T0, LEASE)),
            ),
          );
          expect(claims.filter((c) => c.kind === 'claimed').length).toBe(1);
          const leases = await Promise.all(
            handles.map((h, i) => h.sagaAcquire('s', `h${i}`, T0, LEASE)),
          );
          expect(leases.filter((l) => l.acquired).length).toBe(1);
        });
      });
    }
  });
}
