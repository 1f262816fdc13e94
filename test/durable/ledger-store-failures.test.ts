import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { classify } from '../../src/classify/classify.js';
import { IdempotencyLedger } from '../../src/idempotency/idempotency-ledger.js';
import { retry } from '../../src/retry/retry.js';
import { sqliteStore } from '../../src/sqlite/index.js';
import type { LedgerStore } from '../../src/store/ledger-store.js';
import { memoryStore } from '../../src/store/memory-store.js';
import type { Store } from '../../src/store/store.js';
import { isStoreError, type StoreError } from '../../src/store/store-error.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';

const LEASE = 1000;
const dir = mkdtempSync(join(tmpdir(), 'recourse-ledger-fail-'));
let files = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function settle<T>(
  p: Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  return p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

/** Advances the clock in small steps until `p` settles (timers of retries and renewals fire on the way). */
async function driven<T>(clock: VirtualClock, p: Promise<T>, stepMs = 50, maxSteps = 2000) {
  let done = false;
  const outcome = settle(p).finally(() => {
    done = true;
  });
  for (let i = 0; i < maxSteps && !done; i++) await clock.advance(stepMs);
  return outcome;
}

/** A store whose ledger methods fail while `failing[method]` > 0 (each failure counts down). */
function flaky(
  inner: Store,
  failing: Partial<Record<keyof LedgerStore, number>>,
  error: () => unknown = () => new Error('connection reset'),
): LedgerStore {
  const wrap =
    <A extends unknown[], R>(name: keyof LedgerStore, f: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      if ((failing[name] ?? 0) > 0) {
        failing[name]!--;
        throw error();
      }
      return f(...a);
    };
  return {
    ledgerClaim: wrap('ledgerClaim', (...a: Parameters<Store['ledgerClaim']>) =>
      inner.ledgerClaim(...a),
    ),
    ledgerRenew: wrap('ledgerRenew', (...a: Parameters<Store['ledgerRenew']>) =>
      inner.ledgerRenew(...a),
    ),
    ledgerComplete: wrap('ledgerComplete', (...a: Parameters<Store['ledgerComplete']>) =>
      inner.ledgerComplete(...a),
    ),
    ledgerRelease: wrap('ledgerRelease', (...a: Parameters<Store['ledgerRelease']>) =>
      inner.ledgerRelease(...a),
    ),
    ledgerGet: wrap('ledgerGet', (...a: Parameters<Store['ledgerGet']>) => inner.ledgerGet(...a)),
  };
}

function sqlitePair(busyTimeoutMs = 20) {
  const path = join(dir, `ledger-${files++}.db`);
  const store = sqliteStore({ path, busyTimeoutMs });
  // A second connection that takes the write lock and keeps it, as another process would.
  const locker = new Database(path);
  return {
    path,
    store,
    lock: () => locker.exec('BEGIN IMMEDIATE'),
    unlock: () => locker.exec('COMMIT'),
    close: async () => {
      if (locker.inTransaction) locker.exec('COMMIT');
      locker.close();
      await store.close();
    },
  };
}

describe('IdempotencyLedger: the store fails (issues 9.3, 12.5)', () => {
  it('9.3: a result that cannot be recorded (SQLite lock held past the busy timeout) rejects result_unrecorded, and is never run again', async () => {
    const db = sqlitePair();
    const clock = new VirtualClock(1_000_000);
    const ledger = new IdempotencyLedger(db.store, { clock, leaseMs: LEASE, random: () => 0.5 });
    let runs = 0;
    const send = async () => {
      runs++;
      db.lock(); // another writer holds the lock from now until the test releases it
      return { messageId: 'm1' };
    };
    const first = await driven(clock, ledger.run('email:1', send));
    expect(first.ok).toBe(false);
    const e = (first as { error: StoreError }).error;
    expect(isStoreError(e)).toBe(true);
    expect(e.code).toBe('result_unrecorded');
    expect(e.key).toBe('email:1');
    expect(e.message).toMatch(/ran, but its result could not be recorded after 3 attempts/);
    expect(isStoreError(e.cause) && (e.cause as StoreError).code === 'busy').toBe(true);
    // Not retryable: an enclosing retry must not run the effect again.
    expect(classify(e).retryable).toBe(false);
    expect(runs).toBe(1);

    // Still locked: the next run neither runs the effect nor pretends it is recorded.
    const second = await driven(clock, ledger.run('email:1', send));
    expect((second as { error: StoreError }).error.code).toBe('result_unrecorded');
    expect(runs).toBe(1);

    db.unlock();
    // The lock is gone: the next run records the first run's result instead of running again.
    const third = await driven(clock, ledger.run('email:1', send));
    expect(third).toEqual({ ok: true, value: { messageId: 'm1' } });
    expect(runs).toBe(1);
    expect((await db.store.ledgerGet('email:1'))?.state).toBe('completed');
    await db.close();
  });

  it('9.3: inside retry, an unrecorded result is not retried (the effect runs once)', async () => {
    const store = memoryStore();
    const clock = new VirtualClock(0);
    const ledger = new IdempotencyLedger(flaky(store, { ledgerComplete: 10 }), {
      clock,
      leaseMs: LEASE,
      random: () => 0.5,
    });
    let runs = 0;
    const r = await driven(
      clock,
      retry({ maxAttempts: 5, clock }).execute(() => ledger.run('k', async () => ++runs)),
    );
    expect(r.ok).toBe(false);
    expect(runs).toBe(1);
  });

  it('retries the completion write: one failed write does not fail the call', async () => {
    const store = memoryStore();
    const clock = new VirtualClock(0);
    const ledger = new IdempotencyLedger(flaky(store, { ledgerComplete: 2 }), {
      clock,
      leaseMs: LEASE,
      random: () => 0.5,
    });
    let runs = 0;
    expect(
      await driven(
        clock,
        ledger.run('k', async () => `sent ${++runs}`),
      ),
    ).toEqual({ ok: true, value: 'sent 1' });
    expect((await store.ledgerGet('k'))?.result).toBe('"sent 1"');
  });

  it('emits ledger_unrecorded with the key and the error', async () => {
    const clock = new VirtualClock(0);
    const ledger = new IdempotencyLedger(flaky(memoryStore(), { ledgerComplete: 3 }), {
      clock,
      leaseMs: LEASE,
      random: () => 0.5,
    });
    const events: unknown[] = [];
    ledger.on('ledger_unrecorded', (e) => events.push(e));
    const r = await driven(
      clock,
      ledger.run('k', async () => 1),
    );
    expect(events).toEqual([{ key: 'k', error: (r as { error: unknown }).error }]);
  });

  it('12.5: fails closed when the claim cannot be recorded: StoreError (persistent), and fn is not run', async () => {
    const raw = new Error('ECONNREFUSED 127.0.0.1:6379');
    const ledger = new IdempotencyLedger(
      flaky(memoryStore(), { ledgerClaim: 1 }, () => raw),
      { leaseMs: LEASE },
    );
    let runs = 0;
    const r = await settle(ledger.run('pay:1', async () => ++runs));
    const e = (r as { error: StoreError }).error;
    expect(isStoreError(e)).toBe(true);
    expect(e.code).toBe('unavailable');
    expect(e.key).toBe('pay:1');
    expect(e.cause).toBe(raw);
    expect(e.message).toMatch(
      /cannot claim key "pay:1", so the operation was not run: the store failed: Error: ECONNREFUSED/,
    );
    expect(classify(e)).toMatchObject({ kind: 'persistent', retryable: false });
    expect(runs).toBe(0);
  });

  it('12.5: fails closed on SQLite: the write lock held past the busy timeout at the claim is StoreError busy, nothing runs', async () => {
    const db = sqlitePair();
    const ledger = new IdempotencyLedger(db.store, { leaseMs: LEASE });
    db.lock();
    let runs = 0;
    const r = await settle(ledger.run('k', async () => ++runs));
    const e = (r as { error: StoreError }).error;
    expect([e.name, e.code, e.path]).toEqual(['StoreError', 'busy', db.path]);
    expect(e.message).toMatch(
      /sqliteStore: ledgerClaim on ".*" failed: .*database is locked.*busyTimeoutMs, 20 ms/,
    );
    expect(runs).toBe(0);
    db.unlock();
    expect(await ledger.run('k', async () => ++runs)).toBe(1);
    await db.close();
  });

  it('keeps renewing through a failed renewal (the next tick succeeds), so a long call is not taken over', async () => {
    const store = memoryStore();
    const clock = new VirtualClock(0);
    const ledger = new IdempotencyLedger(flaky(store, { ledgerRenew: 1 }), { clock, leaseMs: 900 });
    let release!: () => void;
    const p = ledger.run(
      'k',
      () => new Promise<string>((resolve) => (release = () => resolve('done'))),
    );
    await clock.advance(2000);
    const entry = await store.ledgerGet('k');
    expect(entry?.leaseUntil).toBeGreaterThan(clock.now());
    release();
    expect(await p).toBe('done');
  });
});

describe('IdempotencyLedger: outcome unknown (issue 12.6)', () => {
  /** A store where `key`'s holder died mid-call (claimed, then never renewed), its lease lapsed; a ledger on it and its events. */
  async function takeover(key: string) {
    const store = memoryStore();
    const clock = new VirtualClock(0);
    await store.ledgerClaim(key, 'host|4242|dead', clock.now(), LEASE);
    await clock.advance(LEASE);
    const ledger = new IdempotencyLedger(store, { clock, leaseMs: LEASE });
    const events: Array<{ key: string; previousOwner: string; outcome: string }> = [];
    ledger.on('ledger_takeover', (e) => events.push(e));
    return { store, clock, ledger, events };
  }

  it('without reconcile, a takeover runs again and says the outcome was unknown', async () => {
    const { ledger, events } = await takeover('pay:1');
    expect(await ledger.run('pay:1', async () => 'charged')).toBe('charged');
    expect(events).toEqual([{ key: 'pay:1', previousOwner: 'host|4242|dead', outcome: 'unknown' }]);
  });

  it('a fresh claim is no takeover: no event, reconcile is not asked', async () => {
    const ledger = new IdempotencyLedger(memoryStore(), { leaseMs: LEASE });
    const events: unknown[] = [];
    ledger.on('ledger_takeover', (e) => events.push(e));
    let asked = 0;
    const reconcile = async () => {
      asked++;
      return { done: false as const };
    };
    expect(await ledger.run('k', async () => 1, { reconcile })).toBe(1);
    expect([events, asked]).toEqual([[], 0]);
  });

  it('reconcile says done: its result is recorded and returned, fn is not run again', async () => {
    const { store, clock, ledger, events } = await takeover('pay:1');
    const asked: string[] = [];
    let runs = 0;
    const result = await ledger.run('pay:1', async () => ({ chargeId: `new-${++runs}` }), {
      reconcile: async (key) => {
        asked.push(key);
        return { done: true, result: { chargeId: 'ch_found', at: new Date(0) } };
      },
    });
    expect(result).toEqual({ chargeId: 'ch_found', at: '1970-01-01T00:00:00.000Z' });
    expect([runs, asked]).toEqual([0, ['pay:1']]);
    expect(events).toEqual([{ key: 'pay:1', previousOwner: 'host|4242|dead', outcome: 'done' }]);
    expect(await store.ledgerClaim('pay:1', 'later', clock.now(), LEASE)).toEqual({
      kind: 'completed',
      result: '{"at":"1970-01-01T00:00:00.000Z","chargeId":"ch_found"}',
    });
  });

  it('reconcile says not done: fn runs and its result is recorded', async () => {
    const { store, ledger, events } = await takeover('pay:1');
    expect(
      await ledger.run('pay:1', async () => 'charged', {
        reconcile: async () => ({ done: false }),
      }),
    ).toBe('charged');
    expect(events.map((e) => e.outcome)).toEqual(['not_done']);
    expect((await store.ledgerGet('pay:1'))?.result).toBe('"charged"');
  });

  it('reconcile throws: run rejects with its error, runs nothing, and the next caller reconciles again at once', async () => {
    const { store, clock, ledger } = await takeover('pay:1');
    const lookupDown = new Error('payments API 503');
    let runs = 0;
    const r = await settle(
      ledger.run('pay:1', async () => ++runs, {
        reconcile: async () => Promise.reject(lookupDown),
      }),
    );
    expect(r).toEqual({ ok: false, error: lookupDown });
    expect(runs).toBe(0);
    // The key is neither free nor held: the next caller takes it over without waiting out a lease.
    const other = new IdempotencyLedger(store, { clock, leaseMs: LEASE });
    let asked = 0;
    const again = await other.run('pay:1', async (): Promise<number | string> => ++runs, {
      reconcile: async () => {
        asked++;
        return { done: true, result: 'found' };
      },
    });
    expect([again, asked, runs]).toEqual(['found', 1, 0]);
  });

  it('reconcile answering something else is a TypeError naming the shape; the key stays for the next reconcile', async () => {
    const { store, ledger } = await takeover('k');
    const bad = [undefined, { done: 'yes' }, { done: true }];
    for (const answer of bad) {
      const r = await settle(
        ledger.run('k', async () => 1, { reconcile: async () => answer as never }),
      );
      expect((r as { error: Error }).error).toBeInstanceOf(TypeError);
      expect((r as { error: Error }).error.message).toMatch(
        /^reconcile must resolve \{ done: true, result \} or \{ done: false \}, got /,
      );
      expect((await store.ledgerGet('k'))?.state).toBe('pending');
    }
    await expect(ledger.run('k', async () => 1, { reconcile: 'no' as never })).rejects.toThrow(
      /reconcile must be a function/,
    );
  });
});
