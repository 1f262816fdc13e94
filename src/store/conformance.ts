import { breakerConformance } from './breaker-conformance.js';
import type { CheckpointRecord } from './checkpoint-store.js';
import type { SagaLogEntry } from './saga-log-store.js';
import type { Store } from './store.js';

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

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  return undefined;
}

function countKinds(kinds: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const k of kinds) counts[k] = (counts[k] ?? 0) + 1;
  return counts;
}

/**
 * The behaviour every `Store` backend must have, as a test suite: ledger claims, leases, results
 * and expiry; checkpoints kept verbatim; saga logs fenced by their lease; breaker transitions with
 * exactly one probe among concurrent callers; `close()`. Call it from a test file of the backend;
 * `makeStore` opens a fresh, empty store for each test (it is closed after the test).
 *
 * @example
 * import { afterEach, beforeEach, describe, expect, it } from 'vitest'
 * import { storeConformance } from 'recourse/testing'
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
    if (options.openAnother === undefined) throw new Error('storeConformance: openAnother is not given');
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
        expect(await store.ledgerClaim('k', 'a', T0, LEASE)).toEqual({ kind: 'claimed', takeover: false });
        expect(await store.ledgerClaim('k', 'b', T0 + 10, LEASE)).toEqual({ kind: 'held', leaseUntil: T0 + LEASE });
        const entry = await store.ledgerGet('k');
        expect(entry).toEqual({ key: 'k', state: 'pending', owner: 'a', leaseUntil: T0 + LEASE, claims: 1, expiresAt: 0 });
      });

      it('returns a completed result verbatim to every later claim until it expires', async () => {
        const result = '{"id":"msg_1","text":"héllo 🔑"}';
        await store.ledgerClaim('ключ/🔑', 'a', T0, LEASE);
        expect(await store.ledgerComplete('ключ/🔑', 'a', result, T0 + 5, T0 + 100)).toBe(true);
        expect(await store.ledgerClaim('ключ/🔑', 'b', T0 + 99, LEASE)).toEqual({ kind: 'completed', result });
        expect(await store.ledgerClaim('ключ/🔑', 'c', T0 + 99, LEASE)).toEqual({ kind: 'completed', result });
        // Expired: the key is free again and the next claimer runs the operation.
        expect(await store.ledgerClaim('ключ/🔑', 'd', T0 + 100, LEASE)).toEqual({ kind: 'claimed', takeover: false });
        expect((await store.ledgerGet('ключ/🔑'))?.owner).toBe('d');
      });

      it('stores an undefined result as absent', async () => {
        await store.ledgerClaim('void', 'a', T0, LEASE);
        expect(await store.ledgerComplete('void', 'a', undefined, T0, T0 + 100)).toBe(true);
        expect(await store.ledgerClaim('void', 'b', T0 + 1, LEASE)).toEqual({ kind: 'completed', result: undefined });
        expect((await store.ledgerGet('void'))?.result).toBeUndefined();
      });

      it('lets only the holder renew, complete or release', async () => {
        await store.ledgerClaim('k', 'a', T0, LEASE);
        expect(await store.ledgerRenew('k', 'b', T0 + 1, LEASE)).toBe(false);
        expect(await store.ledgerComplete('k', 'b', '"x"', T0 + 1, T0 + 100)).toBe(false);
        await store.ledgerRelease('k', 'b');
        expect(await store.ledgerGet('k')).toEqual({ key: 'k', state: 'pending', owner: 'a', leaseUntil: T0 + LEASE, claims: 1, expiresAt: 0 });
        expect(await store.ledgerRenew('k', 'a', T0 + 600, LEASE)).toBe(true);
        expect((await store.ledgerGet('k'))?.leaseUntil).toBe(T0 + 600 + LEASE);
        expect(await store.ledgerClaim('k', 'b', T0 + LEASE + 1, LEASE)).toEqual({ kind: 'held', leaseUntil: T0 + 600 + LEASE });
      });

      it('frees a released key for the next caller', async () => {
        await store.ledgerClaim('k', 'a', T0, LEASE);
        await store.ledgerRelease('k', 'a');
        expect(await store.ledgerGet('k')).toBeUndefined();
        expect(await store.ledgerClaim('k', 'b', T0 + 1, LEASE)).toEqual({ kind: 'claimed', takeover: false });
      });

      it('hands a lapsed claim to one taker; the old holder can no longer renew or complete it', async () => {
        await store.ledgerClaim('k', 'dead', T0, LEASE);
        expect(await store.ledgerClaim('k', 'b', T0 + LEASE, LEASE)).toEqual({ kind: 'claimed', takeover: true, previousOwner: 'dead' });
        expect(await store.ledgerClaim('k', 'c', T0 + LEASE + 1, LEASE)).toEqual({ kind: 'held', leaseUntil: T0 + 2 * LEASE });
        expect(await store.ledgerRenew('k', 'dead', T0 + LEASE + 2, LEASE)).toBe(false);
        expect(await store.ledgerComplete('k', 'dead', '"late"', T0 + LEASE + 2, T0 + 10 * LEASE)).toBe(false);
        expect(await store.ledgerComplete('k', 'b', '"ok"', T0 + LEASE + 3, T0 + 10 * LEASE)).toBe(true);
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
        const claims = await Promise.all(Array.from({ length: 50 }, (_, i) => store.ledgerClaim('race', `o${i}`, T0, LEASE)));
        expect(countKinds(claims.map((c) => c.kind))).toEqual({ claimed: 1, held: 49 });
      });

      it('keeps keys independent', async () => {
        await store.ledgerClaim('k1', 'a', T0, LEASE);
        expect(await store.ledgerClaim('k2', 'b', T0, LEASE)).toEqual({ kind: 'claimed', takeover: false });
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
        const bad = { taskId: 't', stepIndex: 2, state: '{not json', checksum: '0'.repeat(64), savedAt: T0 };
        await store.saveCheckpoint(bad);
        expect(await store.loadCheckpoint('t')).toEqual(bad);
      });

      it('returns copies: changing a loaded record changes nothing stored', async () => {
        await store.saveCheckpoint(record('t', 0, '{"a":1}'));
        const loaded = await store.loadCheckpoint('t');
        if (loaded) loaded.state = '{"a":666}';
        expect((await store.loadCheckpoint('t'))?.state).toBe('{"a":1}');
      });
    });

    describe('saga log', () => {
      const line = (type: SagaLogEntry['type'], step: number, stepName: string, data?: string): SagaLogEntry =>
        data === undefined ? { type, step, name: stepName, at: T0 + step } : { type, step, name: stepName, data, at: T0 + step };

      it('reads an empty log for an unknown saga', async () => {
        expect(await store.sagaRead('never')).toEqual([]);
      });

      it('gives the lease to one owner until it lapses or is released', async () => {
        expect(await store.sagaAcquire('s', 'a', T0, LEASE)).toEqual({ acquired: true, leaseUntil: T0 + LEASE, holder: 'a' });
        expect(await store.sagaAcquire('s', 'b', T0 + 1, LEASE)).toEqual({ acquired: false, leaseUntil: T0 + LEASE, holder: 'a' });
        expect(await store.sagaAcquire('s', 'a', T0 + 2, LEASE)).toEqual({ acquired: true, leaseUntil: T0 + 2 + LEASE, holder: 'a' });
        expect(await store.sagaAcquire('s', 'b', T0 + 2 + LEASE, LEASE)).toEqual({ acquired: true, leaseUntil: T0 + 2 + 2 * LEASE, holder: 'b' });
        await store.sagaRelease('s', 'a'); // not a's any more: no effect
        expect((await store.sagaAcquire('s', 'c', T0 + 3 + LEASE, LEASE)).acquired).toBe(false);
        await store.sagaRelease('s', 'b');
        expect((await store.sagaAcquire('s', 'c', T0 + 3 + LEASE, LEASE)).acquired).toBe(true);
      });

      it('replaces a live lease only for the caller naming its current holder', async () => {
        await store.sagaAcquire('s', 'dead', T0, LEASE);
        expect(await store.sagaAcquire('s', 'b', T0 + 1, LEASE, 'someone-else')).toEqual({ acquired: false, leaseUntil: T0 + LEASE, holder: 'dead' });
        const replacers = await Promise.all(['b', 'c', 'd'].map((o) => store.sagaAcquire('s', o, T0 + 2, LEASE, 'dead')));
        expect(replacers.filter((l) => l.acquired).length).toBe(1);
        const winner = replacers.find((l) => l.acquired)!.holder;
        expect(replacers.every((l) => l.holder === winner && l.leaseUntil === T0 + 2 + LEASE)).toBe(true);
        expect(await store.sagaAppend('s', 'dead', line('step', 0, 'x'))).toBe(false);
        expect(await store.sagaAppend('s', winner, line('step', 0, 'x'))).toBe(true);
      });

      it('grants exactly one of 50 concurrent lease requests', async () => {
        const leases = await Promise.all(Array.from({ length: 50 }, (_, i) => store.sagaAcquire('s', `o${i}`, T0, LEASE)));
        expect(leases.filter((l) => l.acquired).length).toBe(1);
      });

      it('appends in order for the lease holder only, and resets for it only', async () => {
        await store.sagaAcquire('s', 'a', T0, LEASE);
        const entries = [line('begin', -1, '', '["x","y"]'), line('step', 0, 'x', '{"id":1}'), line('step', 1, 'y'), line('end', -1, '', 'completed')];
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

    describe('close', () => {
      it('rejects every call after close with StoreError closed; closing twice is fine', async () => {
        await store.close();
        await store.close();
        const errors = await Promise.all([
          rejection(store.ledgerClaim('k', 'a', T0, LEASE)),
          rejection(store.loadCheckpoint('t')),
          rejection(store.sagaRead('s')),
          rejection(store.breakerGet('b')),
        ]);
        for (const e of errors) expect([(e as Error | undefined)?.name, (e as { code?: string } | undefined)?.code]).toEqual(['StoreError', 'closed']);
      });
    });

    const openAnother = options.openAnother;
    if (openAnother !== undefined) {
      describe('between handles', () => {

        it('sees what another handle wrote, also after that handle closed', async () => {
          await store.ledgerClaim('k', 'a', T0, LEASE);
          await store.ledgerComplete('k', 'a', '"done"', T0, T0 + LEASE);
          await store.saveCheckpoint({ taskId: 't', stepIndex: 3, state: '{}', checksum: 'c'.repeat(64), savedAt: T0 });
          await store.breakerForce('b', 'isolated');
          const second = await another();
          await store.close();
          store = await another();
          expect(await second.ledgerClaim('k', 'b', T0 + 1, LEASE)).toEqual({ kind: 'completed', result: '"done"' });
          expect((await store.loadCheckpoint('t'))?.stepIndex).toBe(3);
          expect((await store.breakerGet('b'))?.state).toBe('isolated');
        });

        it('grants one claim and one lease among handles racing', async () => {
          const handles = [store, await another(), await another(), await another()];
          const claims = await Promise.all(handles.flatMap((h, i) => [0, 1, 2].map((j) => h.ledgerClaim('race', `h${i}-${j}`, T0, LEASE))));
          expect(claims.filter((c) => c.kind === 'claimed').length).toBe(1);
          const leases = await Promise.all(handles.map((h, i) => h.sagaAcquire('s', `h${i}`, T0, LEASE)));
          expect(leases.filter((l) => l.acquired).length).toBe(1);
        });
      });
    }
  });
}
