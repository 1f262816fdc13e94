import Database from 'better-sqlite3';
import { StoreError, type StoreErrorCode } from '../store/store-error.js';
import { sqliteCode } from './driver-error.js';
import { migrate } from './schema.js';
import { textOf } from '../text/safe-text.js';

/** @internal Maps a driver error met while opening to a StoreError that names the path. */
function openError(error: unknown, path: string): StoreError {
  const code = sqliteCode(error);
  const detail = textOf(error);
  let kind: StoreErrorCode = 'open_failed';
  let hint = '';
  if (code === 'SQLITE_NOTADB') {
    kind = 'not_a_database';
    hint = ' (the file exists but is not a SQLite database; it was left untouched)';
  } else if (
    code.startsWith('SQLITE_READONLY') ||
    code === 'SQLITE_PERM' ||
    code === 'SQLITE_AUTH'
  ) {
    kind = 'read_only';
    hint = ' (the file or its directory cannot be written by this process)';
  } else if (code === 'SQLITE_CANTOPEN')
    hint = ' (is it a directory, or is the directory not writable?)';
  return new StoreError(
    kind,
    `sqliteStore: cannot use ${JSON.stringify(path)}: ${detail}${hint}`,
    path,
    { cause: error },
  );
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Switching to WAL needs a moment alone with the file; a process opening it at the same time retries. */
function enableWal(db: Database.Database, busyTimeoutMs: number): void {
  const until = Date.now() + busyTimeoutMs;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if (!sqliteCode(error).startsWith('SQLITE_BUSY') || Date.now() >= until) throw error;
      sleepSync(10);
    }
  }
}

/**
 * @internal Opens (creating if needed) a SQLite file for recourse: WAL, a busy timeout, fsync on
 * commit (`synchronous = FULL`, so a committed transition survives power loss too), schema created
 * or upgraded. Any failure closes the handle and throws a StoreError.
 */
export function openDatabase(path: string, busyTimeoutMs: number): Database.Database {
  let db: Database.Database;
  try {
    db = new Database(path, { timeout: busyTimeoutMs });
  } catch (error) {
    throw openError(error, path);
  }
  try {
    enableWal(db, busyTimeoutMs);
    db.pragma('synchronous = FULL');
    migrate(db, path);
    return db;
  } catch (error) {
    db.close();
    throw error instanceof StoreError ? error : openError(error, path);
  }
}
