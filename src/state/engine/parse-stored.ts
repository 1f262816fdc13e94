import { showValue } from '../../options/validate-options.js';
import { errorText } from '../../text/safe-text.js';
import { isStoreError, StoreError } from './store-error.js';

/**
 * @internal Where a stored value was read: `what` says which store call and which kind of record
 * (`'redisStore: loadCheckpoint'`, `'ledger result'`), `key` names the record (a ledger key, an
 * escalation id, a task id), `path` the database file when there is one.
 */
export interface StoredAt {
  what: string;
  key: string;
  path?: string;
}

/**
 * @internal The one place a stored JSON text is decoded. A value that is not JSON, or not the shape
 * `shape` accepts (named by `expected`), is damage rather than an outage: it rejects with
 * `StoreError` `corrupt_record` naming the record, the parse error as `cause`, never a raw
 * `SyntaxError`/`TypeError` from deep in a backend (ARCHITECTURE.md §api.errors).
 */
export function parseStored<T>(
  text: string,
  at: StoredAt,
  shape?: (value: unknown) => boolean,
  expected?: string,
): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw corruptRecord(at, `is not JSON (${errorText(error)})`, error);
  }
  if (shape !== undefined && !shape(value))
    throw corruptRecord(at, `is not ${expected ?? 'the expected shape'}: ${showValue(value)}`);
  return value as T;
}

/** @internal A record that cannot be decoded, as `StoreError` `corrupt_record` naming it. */
export function corruptRecord(at: StoredAt, problem: string, cause?: unknown): StoreError {
  return new StoreError(
    'corrupt_record',
    `${at.what}: the stored record ${JSON.stringify(at.key)} ${problem}`,
    at.path,
    cause === undefined ? { key: at.key } : { key: at.key, cause },
  );
}

/** @internal True for an array of strings (an escalation's `deciders`, a saga's step names). */
export function isStringArray(value: unknown): boolean {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/** @internal True for a non-null, non-array object. */
export function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** @internal True for an object with a `slots` object (a bulkhead record). */
export function isBulkheadRecord(value: unknown): boolean {
  return isObject(value) && isObject((value as { slots?: unknown }).slots);
}

/**
 * @internal Decodes each stored row; a row that is `corrupt_record` is handed to `onCorrupt` and
 * left out when there is one (so one bad record does not hide the others), else it rejects.
 */
export function decodeEach<R, T>(
  rows: readonly R[],
  decode: (row: R) => T,
  onCorrupt: ((error: StoreError) => void) | undefined,
): T[] {
  const out: T[] = [];
  for (const row of rows) {
    try {
      out.push(decode(row));
    } catch (error) {
      if (onCorrupt === undefined || !isStoreError(error) || error.code !== 'corrupt_record')
        throw error;
      onCorrupt(error);
    }
  }
  return out;
}

/**
 * @internal A {@link Collection}'s `parse`: accepts a stored value of the shape `shape` checks,
 * else rejects it as `StoreError` `corrupt_record` naming `what` and the key.
 *
 * @example
 * const parse = storedShape<LeaseRecord>('saga lease', isObject, 'a lease record')
 */
export function storedShape<T>(
  what: string,
  shape: (value: unknown) => boolean,
  expected: string,
): (stored: unknown, key: string) => T {
  return (stored, key) => {
    if (!shape(stored))
      throw corruptRecord({ what, key }, `is not ${expected}: ${showValue(stored)}`);
    return stored as T;
  };
}
