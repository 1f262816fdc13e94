import { isStoreError, StoreError, type StoreErrorCode } from './store-error.js';
import { errorText, safeField } from '../text/safe-text.js';

/** Network failures of the socket under a connection: the server is down or out of reach. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ECONNABORTED',
]);

/** @internal What a network store's driver error says about the server: the `StoreError` code and a hint ('' for none). */
export interface DriverDiagnosis {
  code: StoreErrorCode;
  hint: string;
}

/**
 * @internal The diagnosis of a socket failure (Node's `code` ECONNREFUSED, ECONNRESET, …: the server
 * is down or out of reach), or undefined for any other error. `settings` names where the host and
 * port were given ('client', 'pool').
 */
export function networkDiagnosis(error: unknown, settings: string): DriverDiagnosis | undefined {
  if (!NETWORK_CODES.has(safeField(error, 'code') ?? '')) return undefined;
  return {
    code: 'unavailable',
    hint: `is the server running, and are the host and port of the ${settings} right?`,
  };
}

/**
 * @internal A driver error met by one call of a network store, as a `StoreError` whose message is
 * `${call} failed: ${the driver's text} (${hint})` (`call` names the store, the operation and its
 * prefix or schema) with the key of a ledger entry or saga when there is one: a raw driver error
 * would be classified transient and retried, and would not say which store failed. A `StoreError`
 * is returned as it is.
 */
export function driverStoreError(
  error: unknown,
  diagnose: (error: unknown) => DriverDiagnosis,
  call: string,
  key?: string,
): StoreError {
  if (isStoreError(error)) return error;
  const { code, hint } = diagnose(error);
  const message = `${call} failed: ${errorText(error)}${hint === '' ? '' : ` (${hint})`}`;
  return new StoreError(
    code,
    message,
    undefined,
    key === undefined ? { cause: error } : { cause: error, key },
  );
}
