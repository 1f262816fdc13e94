import { hasErrorName, RecourseError, type RecourseErrorOptions } from '../errors/recourse-error.js';

/** Why a store failed: see {@link StoreError}. */
export type StoreErrorCode = 'open_failed' | 'not_a_database' | 'read_only' | 'schema_too_new' | 'closed' | 'timeout';

/**
 * A store could not be opened or used: the database path is unusable (`open_failed`), the file
 * is not a SQLite database (`not_a_database`), it cannot be written (`read_only`), it was written
 * by a newer recourse (`schema_too_new`), the store was closed (`closed`), or it did not answer in time
 * (`timeout`: a shared breaker's `storeTimeoutMs`). `path` names the
 * database when there is one; the driver's error is the `cause`.
 *
 * @example
 * try { sqliteStore({ path: 'notes.txt' }) } catch (e) { if (isStoreError(e)) console.log(e.code) } // not_a_database
 */
export class StoreError extends RecourseError {
  override name = 'StoreError' as const;
  readonly code: StoreErrorCode;
  readonly path: string | undefined;
  constructor(code: StoreErrorCode, message: string, path?: string, options?: RecourseErrorOptions) {
    super(message, options);
    this.code = code;
    this.path = path;
  }
}

/** Cross-realm guard for {@link StoreError}. @example if (isStoreError(e) && e.code === 'closed') reopen() */
export function isStoreError(error: unknown): error is StoreError {
  return hasErrorName(error, 'StoreError');
}
