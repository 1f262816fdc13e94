import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteStore } from '../../src/sqlite/index.js';
import { SCHEMA_VERSION } from '../../src/sqlite/schema.js';
import { isStoreError, type StoreError } from '../../src/store/store-error.js';
import { requireBuild, spawnFixture } from './process-helpers.js';

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'recourse-open-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function openError(path: string): StoreError {
  try {
    sqliteStore({ path });
  } catch (error) {
    if (isStoreError(error)) return error;
    throw error;
  }
  throw new Error(`sqliteStore opened ${path}`);
}

describe('sqliteStore: opening', () => {
  it('creates the schema, records its version, and runs in WAL mode', async () => {
    const path = join(dir, 'fresh.db');
    const store = sqliteStore({ path });
    await store.saveCheckpoint({
      taskId: 't',
      stepIndex: 0,
      state: '{}',
      checksum: 'a'.repeat(64),
      savedAt: 1,
    });
    await store.close();
    const raw = new Database(path, { readonly: true });
    try {
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(raw.prepare('SELECT version FROM recourse_schema').pluck().get()).toBe(SCHEMA_VERSION);
      const tables = raw
        .prepare(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'recourse_%' ORDER BY name",
        )
        .pluck()
        .all();
      expect(tables).toEqual([
        'recourse_breakers',
        'recourse_budgets',
        'recourse_bulkheads',
        'recourse_checkpoints',
        'recourse_escalations',
        'recourse_ledger',
        'recourse_saga_leases',
        'recourse_saga_log',
        'recourse_schema',
      ]);
    } finally {
      raw.close();
    }
    // Reopening keeps the data (the schema is not recreated).
    const again = sqliteStore({ path });
    expect((await again.loadCheckpoint('t'))?.savedAt).toBe(1);
    await again.close();
  });

  it('upgrades a version 2 database (before retry budgets) in place, keeping its data', async () => {
    const path = join(dir, 'v2.db');
    const first = sqliteStore({ path });
    await first.saveCheckpoint({
      taskId: 't',
      stepIndex: 4,
      state: '{}',
      checksum: 'c'.repeat(64),
      savedAt: 1.5,
    });
    await first.close();
    // A version 2 file: today's schema without what version 3 added.
    const raw = new Database(path);
    raw.exec(
      'DROP TABLE recourse_budgets; DROP TABLE recourse_bulkheads; UPDATE recourse_schema SET version = 2',
    );
    raw.close();
    const store = sqliteStore({ path });
    try {
      expect(await store.loadCheckpoint('t')).toEqual({
        taskId: 't',
        stepIndex: 4,
        state: '{}',
        checksum: 'c'.repeat(64),
        savedAt: 1.5,
      });
      const limits = { ratio: 0.1, minPerSecond: 2, windowMs: 10_000 };
      expect(
        (
          await store.retryBudgetTake(
            'b',
            { requests: 0, returned: 0, returnedAt: 0, want: 5 },
            1000,
            limits,
          )
        ).granted,
      ).toBe(2);
    } finally {
      await store.close();
    }
    const check = new Database(path, { readonly: true });
    expect(check.prepare('SELECT version FROM recourse_schema').pluck().get()).toBe(SCHEMA_VERSION);
    check.close();
  });

  it('rejects a missing or empty path and bad options with a TypeError/RangeError naming them', () => {
    expect(() => sqliteStore({} as { path: string })).toThrow(
      /path must be a non-empty string.*got undefined/,
    );
    expect(() => sqliteStore({ path: '' })).toThrow(/path must be a non-empty string.*got ""/);
    expect(() => sqliteStore(undefined as unknown as { path: string })).toThrow(TypeError);
    expect(() => sqliteStore({ path: join(dir, 'x.db'), busyTimeoutMs: -1 })).toThrow(
      /busyTimeoutMs must be a number >= 0, got -1/,
    );
    expect(existsSync(join(dir, 'x.db'))).toBe(false);
  });

  it('names the path when its directory does not exist, and creates nothing', () => {
    const path = join(dir, 'no-such-dir', 'state.db');
    const e = openError(path);
    expect(e.code).toBe('open_failed');
    expect(e.path).toBe(path);
    expect(e.message).toContain(path);
    expect(e.message).toMatch(/directory does not exist/);
    expect(existsSync(join(dir, 'no-such-dir'))).toBe(false);
  });

  it('refuses a directory as the database path', () => {
    const path = join(dir, 'a-directory');
    mkdirSync(path);
    expect(openError(path).code).toBe('open_failed');
  });

  it('refuses a file that is not a SQLite database and leaves it byte for byte as it was', () => {
    const sub = join(dir, 'notdb');
    mkdirSync(sub);
    const path = join(sub, 'notes.txt');
    const content = `${'not a database; '.repeat(40)}\n`;
    writeFileSync(path, content);
    const e = openError(path);
    expect(e.code).toBe('not_a_database');
    expect(e.message).toContain(path);
    expect(isStoreError(e) && (e.cause as { code?: string }).code).toBe('SQLITE_NOTADB');
    expect(readFileSync(path, 'utf8')).toBe(content);
    expect(readdirSync(sub)).toEqual(['notes.txt']); // no -wal / -shm left behind
  });

  it('upgrades a version 1 database (recourse 0.1) to the escalations table, keeping its data', async () => {
    const path = join(dir, 'v1.db');
    // A version 1 file: today's schema without what version 2 added.
    await sqliteStore({ path }).close();
    const raw = new Database(path);
    raw.exec(`DROP TABLE recourse_escalations; DROP TABLE recourse_budgets; DROP TABLE recourse_bulkheads; UPDATE recourse_schema SET version = 1;
      INSERT INTO recourse_checkpoints VALUES ('t', 4, '{}', '${'c'.repeat(64)}', 7);`);
    raw.close();
    const store = sqliteStore({ path });
    expect((await store.loadCheckpoint('t'))?.stepIndex).toBe(4);
    const record = {
      id: 'esc_1',
      action: 'a',
      args: 'null',
      reason: 'r',
      deciders: [],
      state: 'pending' as const,
      round: 1,
      createdAt: 1,
      expiresAt: 10,
      keepUntil: 20,
    };
    expect(await store.escalationOpen(record, 1)).toEqual({ created: true, record });
    expect(
      (
        await store.retryBudgetTake('b', { requests: 0, returned: 0, returnedAt: 0, want: 1 }, 1, {
          ratio: 0.1,
          minPerSecond: 3,
          windowMs: 10_000,
        })
      ).granted,
    ).toBe(1);
    await store.close();
    const check = new Database(path, { readonly: true });
    expect(check.prepare('SELECT version FROM recourse_schema').pluck().get()).toBe(SCHEMA_VERSION);
    check.close();
  });

  it('refuses a database written by a newer schema version, without touching it', () => {
    const path = join(dir, 'newer.db');
    const raw = new Database(path);
    raw.exec(
      'CREATE TABLE recourse_schema (id INTEGER PRIMARY KEY, version INTEGER NOT NULL, opened_at INTEGER NOT NULL)',
    );
    raw.prepare('INSERT INTO recourse_schema VALUES (1, ?, 0)').run(SCHEMA_VERSION + 1);
    raw.close();
    const e = openError(path);
    expect(e.code).toBe('schema_too_new');
    expect(e.message).toContain(
      `schema version ${SCHEMA_VERSION + 1}, newer than this version of recourse understands (${SCHEMA_VERSION})`,
    );
    const check = new Database(path, { readonly: true });
    expect(check.prepare('SELECT opened_at FROM recourse_schema').pluck().get()).toBe(0);
    check.close();
  });

  it('refuses a database file it cannot write (at open, not at the first transition)', async () => {
    requireBuild();
    const sub = join(dir, 'ro');
    mkdirSync(sub);
    const path = join(sub, 'ro.db');
    await (await Promise.resolve(sqliteStore({ path }))).close();
    const before = readFileSync(path);
    chmodSync(path, 0o444);
    chmodSync(sub, 0o555);
    chmodSync(dir, 0o755); // mkdtemp makes it 0700: the unprivileged child must reach the file
    try {
      // root ignores file modes: then the check runs as an unprivileged user in a child process.
      const asRoot = process.getuid?.() === 0;
      const opened = spawnFixture(
        'open-store.mjs',
        [path],
        asRoot ? { uid: 65534, gid: 65534 } : {},
      );
      await opened.exited;
      const out = opened.stdout().trim();
      expect(out.slice(0, 4)).toBe('ERR ');
      const e = JSON.parse(out.slice(4)) as {
        name: string;
        code: string;
        path: string;
        message: string;
      };
      expect(e).toMatchObject({ name: 'StoreError', code: 'read_only', path });
      expect(e.message).toContain(path);
    } finally {
      chmodSync(dir, 0o700);
      chmodSync(sub, 0o755);
      chmodSync(path, 0o644);
    }
    expect(readFileSync(path).equals(before)).toBe(true);
  });
});
