import { statSync } from 'node:fs';
import { isStoreError, StoreError, type StoreErrorCode } from '../store/store-error.js';
import { errorText, safeField } from '../text/safe-text.js';

/** @internal The driver's error code (`SQLITE_BUSY`, …), or ''. */
export function sqliteCode(error: unknown): string {
  return safeField(error, 'code') ?? '';
}

/**
 * @internal A driver error met while using an open store, as a `StoreError` naming the operation
 * and the path: a raw `SqliteError` would be classified transient and retried, and would not say
 * which file.
 */
export function driverError(
  error: unknown,
  operation: string,
  path: string,
  busyTimeoutMs: number,
): StoreError {
  if (isStoreError(error)) return error;
  const code = sqliteCode(error);
  let kind: StoreErrorCode = 'unavailable';
  let hint = '';
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    kind = 'busy';
    hint = ` (another connection held the database's write lock longer than busyTimeoutMs, ${busyTimeoutMs} ms)`;
  } else if (code.startsWith('SQLITE_READONLY')) {
    kind = 'read_only';
    hint = ' (the file or its directory can no longer be written by this process)';
  } else if (code === 'SQLITE_FULL') hint = ' (the disk is full)';
  return new StoreError(
    kind,
    `sqliteStore: ${operation} on ${JSON.stringify(path)} failed: ${errorText(error)}${hint}`,
    path,
    { cause: error },
  );
}

/** @internal Which file a path named when the store opened it. */
export interface FileIdentity {
  dev: number;
  ino: number;
}

/** @internal The identity of the file at `path`, or undefined when there is none (`:memory:`). */
export function fileIdentity(path: string): FileIdentity | undefined {
  const stat = statSync(path, { throwIfNoEntry: false });
  return stat === undefined ? undefined : { dev: stat.dev, ino: stat.ino };
}

/**
 * @internal Undefined while `path` still names the file the store opened; otherwise the
 * `StoreError` to fail with. An open handle keeps reading and writing an unlinked file, so a store
 * whose file was deleted (or replaced, e.g. restored from a backup) would accept writes that no
 * other process, and no restart, ever sees.
 */
export function sameFile(
  absolutePath: string,
  path: string,
  opened: FileIdentity,
): StoreError | undefined {
  let now: FileIdentity | undefined;
  try {
    now = fileIdentity(absolutePath);
  } catch (error) {
    return new StoreError(
      'unavailable',
      `sqliteStore: cannot check ${JSON.stringify(path)}: ${errorText(error)}`,
      path,
      { cause: error },
    );
  }
  if (now !== undefined && now.dev === opened.dev && now.ino === opened.ino) return undefined;
  const what = now === undefined ? 'was deleted' : 'was replaced by another file';
  return new StoreError(
    'file_deleted',
    `sqliteStore: ${JSON.stringify(path)} ${what} while this store had it open; refusing to write into a file no other process sees (open a new store)`,
    path,
  );
}
