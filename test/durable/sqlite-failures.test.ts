import { copyFileSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { BreakerLimits } from '../../src/transitions/breaker-record.js';
import { classify } from '../../src/classify/classify.js';
import { IdempotencyLedger } from '../../src/idempotency/idempotency-ledger.js';
import { sqliteStore } from '../../src/sqlite/index.js';
import type { Store } from '../../src/store/store.js';
import { isStoreError, type StoreError } from '../../src/store/store-error.js';

const dir = mkdtempSync(join(tmpdir(), 'recourse-sqlite-fail-'));
let files = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const LIMITS: BreakerLimits = { failureThreshold: 3, cooldownMs: 1000, probeTimeoutMs: 500 };

async function storeError(p: Promise<unknown>): Promise<StoreError> {
  try {
    await p;
  } catch (error) {
    if (isStoreError(error)) return error;
    throw error;
  }
  throw new Error('expected a StoreError');
}

/** Every method of a store, called once, so each one's failure can be checked. */
function everyCall(store: Store): Array<[string, () => Promise<unknown>]> {
  const entry = { type: 'begin', step: -1, name: '', at: 1 } as const;
  return [
    ['breakerAdmit', () => store.breakerAdmit('b', 1, LIMITS)],
    ['breakerRecord', () => store.breakerRecord('b', 0, 'failure', 1, LIMITS)],
    ['breakerGet', () => store.breakerGet('b')],
    ['breakerForce', () => store.breakerForce('b', 'isolated')],
    ['ledgerClaim', () => store.ledgerClaim('k', 'o', 1, 1000)],
    ['ledgerRenew', () => store.ledgerRenew('k', 'o', 1, 1000)],
    ['ledgerComplete', () => store.ledgerComplete('k', 'o', '1', 1, 2)],
    ['ledgerRelease', () => store.ledgerRelease('k', 'o')],
    ['ledgerGet', () => store.ledgerGet('k')],
    [
      'saveCheckpoint',
      () =>
        store.saveCheckpoint({
          taskId: 't',
          stepIndex: 0,
          state: '{}',
          checksum: 'a'.repeat(64),
          savedAt: 1,
        }),
    ],
    ['loadCheckpoint', () => store.loadCheckpoint('t')],
    ['sagaAcquire', () => store.sagaAcquire('s', 'o', 1, 1000)],
    ['sagaRenew', () => store.sagaRenew('s', 'o', 1, 1000)],
    ['sagaRelease', () => store.sagaRelease('s', 'o')],
    ['sagaAppend', () => store.sagaAppend('s', 'o', entry)],
    ['sagaRead', () => store.sagaRead('s')],
    ['sagaReset', () => store.sagaReset('s', 'o')],
  ];
}

describe('sqliteStore: driver errors are StoreErrors (issue 9.3)', () => {
  it('wraps SQLITE_BUSY of every write, breaker admission included, as StoreError busy naming the operation and path', async () => {
    const path = join(dir, `busy-${files++}.db`);
    const store = sqliteStore({ path, busyTimeoutMs: 10 });
    const locker = new Database(path);
    locker.exec('BEGIN IMMEDIATE');
    const writes = everyCall(store).filter(
      ([name]) => !['breakerGet', 'ledgerGet', 'loadCheckpoint', 'sagaRead'].includes(name),
    );
    for (const [name, call] of writes) {
      const e = await storeError(call());
      expect([name, e.code, e.path]).toEqual([name, 'busy', path]);
      expect(e.message).toContain(`sqliteStore: ${name} on ${JSON.stringify(path)} failed`);
      expect(e.message).toContain('busyTimeoutMs, 10 ms');
      expect((e.cause as { code?: string }).code).toMatch(/^SQLITE_BUSY/);
      // A raw SqliteError would be classified transient and retried; a StoreError is not.
      expect(classify(e).retryable).toBe(false);
    }
    // Reads go on under WAL while another connection writes.
    expect(await store.breakerGet('b')).toBeUndefined();
    locker.exec('ROLLBACK');
    locker.close();
    expect((await store.breakerAdmit('b', 1, LIMITS)).admission.kind).toBe('call');
    await store.close();
  });
});

describe('sqliteStore: a file deleted under a live store (issue 9.14)', () => {
  it('fails every call with StoreError file_deleted once the file is gone, instead of writing into the unlinked inode', async () => {
    const path = join(dir, `deleted-${files++}.db`);
    const store = sqliteStore({ path });
    await store.ledgerClaim('before', 'o', 1, 1000);
    for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
    for (const [name, call] of everyCall(store)) {
      const e = await storeError(call());
      expect([name, e.code, e.path]).toEqual([name, 'file_deleted', path]);
      expect(e.message).toMatch(/was deleted while this store had it open/);
    }
    // The ledger fails closed on it: the operation is not run.
    let runs = 0;
    const e = await storeError(new IdempotencyLedger(store).run('k', async () => ++runs));
    expect([e.code, runs]).toEqual(['file_deleted', 0]);
    await store.close();
  });

  it('also fails when the file was replaced by another one (a restore, a move), and keeps failing', async () => {
    const path = join(dir, `replaced-${files++}.db`);
    const store = sqliteStore({ path });
    await store.ledgerClaim('k', 'o', 1, 1000);
    copyFileSync(path, `${path}.copy`);
    renameSync(`${path}.copy`, path);
    const e = await storeError(store.ledgerGet('k'));
    expect(e.code).toBe('file_deleted');
    expect(e.message).toMatch(/was replaced by another file/);
    expect((await storeError(store.ledgerGet('k'))).code).toBe('file_deleted');
    await store.close();
  });

  it('does not mistake a change of working directory for a deleted file', async () => {
    const sub = join(dir, `cwd-${files++}`);
    mkdirSync(sub);
    const before = process.cwd();
    process.chdir(sub);
    try {
      const store = sqliteStore({ path: 'relative.db' });
      process.chdir(before);
      expect((await store.ledgerClaim('k', 'o', 1, 1000)).kind).toBe('claimed');
      await store.close();
    } finally {
      process.chdir(before);
    }
  });

  it('an in-memory database has no file to lose', async () => {
    const store = sqliteStore({ path: ':memory:' });
    expect((await store.ledgerClaim('k', 'o', 1, 1000)).kind).toBe('claimed');
    await store.close();
  });
});
