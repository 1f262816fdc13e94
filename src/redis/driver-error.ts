import {
  type DriverDiagnosis,
  driverStoreError,
  networkDiagnosis,
} from '../store/driver-diagnosis.js';
import type { StoreError } from '../store/store-error.js';
import { errorText, safeField } from '../text/safe-text.js';

/**
 * @internal What a driver error says about the server: Redis error replies start with an upper-case
 * word (READONLY, NOAUTH, …); socket failures carry Node's code; ioredis and node-redis name their
 * own errors for a closed or given-up connection.
 */
export function diagnose(error: unknown): DriverDiagnosis {
  const network = networkDiagnosis(error, 'client');
  if (network !== undefined) return network;
  const message = safeField(error, 'message') ?? errorText(error);
  const word = /^([A-Z]+)\b/.exec(message)?.[1] ?? '';
  if (word === 'READONLY')
    return { code: 'read_only', hint: 'connected to a replica: the store needs the primary' };
  if (word === 'NOAUTH' || word === 'WRONGPASS')
    return {
      code: 'open_failed',
      hint: "check the user and password of the client's connection settings",
    };
  if (word === 'NOPERM')
    return {
      code: 'open_failed',
      hint: "the client's ACL user may not run EVALSHA/EVAL, PUBLISH or SUBSCRIBE on recourse's keys",
    };
  if (word === 'WRONGTYPE')
    return {
      code: 'unavailable',
      hint: 'a key under the prefix holds another kind of value: is the prefix used by something else?',
    };
  if (word === 'OOM')
    return { code: 'unavailable', hint: 'the server is out of memory (maxmemory)' };
  if (word === 'LOADING' || word === 'BUSY' || word === 'MASTERDOWN' || word === 'TRYAGAIN')
    return { code: 'unavailable', hint: 'the server is starting up or busy' };
  // A cluster client follows MOVED and ASK itself: a single-node client meets them.
  if (word === 'MOVED' || word === 'ASK')
    return {
      code: 'unavailable',
      hint: 'the server is a Redis Cluster node: give redisStore a cluster client (ioredis or iovalkey Cluster, node-redis createCluster)',
    };
  if (word === 'CROSSSLOT')
    return {
      code: 'unavailable',
      hint: "a call's keys are in different slots: the client is not a cluster client redisStore recognizes (it hash-tags keys only for ioredis or iovalkey Cluster and node-redis createCluster)",
    };
  if (word === 'CLUSTERDOWN')
    return {
      code: 'unavailable',
      hint: "the Redis Cluster is down: a master failed and no replica has taken over (yet), or the cluster's slots are not all served",
    };
  return { code: 'unavailable', hint: '' };
}

/**
 * @internal A driver error met by one store call, as a `StoreError` naming the call, the prefix and
 * (for a ledger key or saga id) the key: a raw client error would be classified transient and
 * retried, and would not say which store failed.
 */
export function driverError(
  error: unknown,
  operation: string,
  prefix: string,
  key?: string,
): StoreError {
  return driverStoreError(
    error,
    diagnose,
    `redisStore: ${operation} under prefix ${JSON.stringify(prefix)}`,
    key,
  );
}

/** @internal True for the server's answer to `EVALSHA` of a script it does not hold (a restart, `SCRIPT FLUSH`). */
export function isNoScript(error: unknown): boolean {
  return (safeField(error, 'message') ?? '').startsWith('NOSCRIPT');
}
