import {
  hasErrorName,
  RecourseError,
  type RecourseErrorOptions,
} from '../../errors/recourse-error.js';
import { errorText } from '../../text/safe-text.js';

/**
 * Why a store failed: see {@link StoreError}.
 * - `open_failed`, `not_a_database`, `read_only`, `schema_too_new`: the backend cannot be used
 * - `closed`: the store was closed
 * - `busy`: another writer held the backend's lock past the wait limit (SQLite `busyTimeoutMs`),
 *   or other writers won a record's compare-and-swap too many times in a row (`applyToSlot`'s `maxAttempts`)
 * - `unavailable`: the backend failed or could not be reached (I/O error, connection lost)
 * - `timeout`: the backend did not answer in time (a shared breaker's `storeTimeoutMs`)
 * - `file_deleted`: the SQLite file was deleted or replaced while the store had it open
 * - `result_unrecorded`: an `IdempotencyLedger` ran the operation but could not record its result
 * - `corrupt_record`: a stored record could not be decoded (not JSON, or not the record's shape); `key` names it
 */
export type StoreErrorCode =
  | 'open_failed'
  | 'not_a_database'
  | 'read_only'
  | 'schema_too_new'
  | 'closed'
  | 'timeout'
  | 'busy'
  | 'unavailable'
  | 'file_deleted'
  | 'result_unrecorded'
  | 'corrupt_record';

/** Extra facts of a {@link StoreError}. */
export interface StoreErrorOptions extends RecourseErrorOptions {
  /** The ledger key or saga id the failed write was for. */
  key?: string;
}

/**
 * A store could not be opened or used (see {@link StoreErrorCode}). Classified `persistent`, so no
 * retry layer repeats it: the ledger and sagas fail closed on it (a side effect whose claim cannot
 * be recorded is not run). `path` names the database when there is one, `key` the ledger key or
 * saga id when the failure was about one; the driver's error is the `cause`.
 *
 * @example
 * try { sqliteStore({ path: 'notes.txt' }) } catch (e) { if (isStoreError(e)) console.log(e.code) } // not_a_database
 */
export class StoreError extends RecourseError {
  override name = 'StoreError' as const;
  readonly code: StoreErrorCode;
  readonly path: string | undefined;
  readonly key: string | undefined;
  constructor(code: StoreErrorCode, message: string, path?: string, options?: StoreErrorOptions) {
    super(message, options);
    this.code = code;
    this.path = path;
    this.key = options?.key;
  }
}

/** Cross-realm guard for {@link StoreError}. @example if (isStoreError(e) && e.code === 'closed') reopen() */
export function isStoreError(error: unknown): error is StoreError {
  return hasErrorName(error, 'StoreError');
}

/**
 * @internal A store call's failure as a `StoreError` that says what could not be done (`what`) and
 * for which key: a `StoreError` keeps its code and path and becomes the cause; anything else (a
 * third-party store's raw driver error) becomes `unavailable`.
 */
export function asStoreError(error: unknown, what: string, key?: string): StoreError {
  const options: StoreErrorOptions = key === undefined ? { cause: error } : { cause: error, key };
  if (isStoreError(error))
    return new StoreError(error.code, `${what}: ${errorText(error.message)}`, error.path, options);
  return new StoreError(
    'unavailable',
    `${what}: the store failed: ${errorText(error)}`,
    undefined,
    options,
  );
}
