import {
  type DriverDiagnosis,
  driverStoreError,
  networkDiagnosis,
} from '../store/driver-diagnosis.js';
import type { StoreError } from '../store/store-error.js';
import { safeField } from '../text/safe-text.js';

/**
 * @internal What a driver error says about the server: SQLSTATE classes from the PostgreSQL
 * manual's appendix A, socket codes from Node.
 */
export function diagnose(error: unknown): DriverDiagnosis {
  const network = networkDiagnosis(error, 'pool');
  if (network !== undefined) return network;
  const code = safeField(error, 'code') ?? '';
  if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03')
    return { code: 'unavailable', hint: 'the server closed the connection or is starting up' };
  if (code === '53300')
    return {
      code: 'unavailable',
      hint: 'the server has no connection slot left (max_connections)',
    };
  if (code === '28P01' || code === '28000')
    return {
      code: 'open_failed',
      hint: "check the user and password of the pool's connection settings",
    };
  if (code === '3D000')
    return {
      code: 'open_failed',
      hint: 'the database named in the connection settings does not exist',
    };
  if (code === '25006')
    return {
      code: 'read_only',
      hint: 'connected to a read-only server (a standby?): the store needs the primary',
    };
  if (code === '42501')
    return {
      code: 'read_only',
      hint: "the pool's user lacks a privilege on recourse's schema or tables",
    };
  if (code === '57014')
    return { code: 'timeout', hint: 'the server cancelled the statement (statement_timeout)' };
  // No code: node-postgres's own "Connection terminated unexpectedly" and the like.
  return { code: 'unavailable', hint: '' };
}

/**
 * @internal A driver error met by one store call, as a `StoreError` naming the call, the schema
 * and (for a ledger key or saga id) the key: a raw `pg` error would be classified transient and
 * retried, and would not say which store failed.
 */
export function driverError(
  error: unknown,
  operation: string,
  schema: string,
  key?: string,
): StoreError {
  return driverStoreError(
    error,
    diagnose,
    `postgresStore: ${operation} in schema ${JSON.stringify(schema)}`,
    key,
  );
}
