import type { Clock } from '../clock/clock.js';
import { wallClock } from '../clock/wall-clock.js';
import {
  checkClock,
  checkInteger,
  checkMs,
  checkName,
  checkNumber,
  checkOptions,
  type OptionKeys,
  showValue,
} from '../options/validate-options.js';

import type { BulkheadStore } from '../store/bulkhead-store.js';

/** Options of {@link bulkhead}. */
export interface BulkheadOptions {
  /** The most calls that run at once (an integer >= 1). Required. */
  maxConcurrent: number;
  /** The most calls that wait for a slot: an integer >= 0 or Infinity (0: refuse when every slot is taken). Default Infinity. */
  maxQueue?: number;
  /** Reported in events and errors; with `store`, the bulkhead's name in it (processes using one name share one cap). */
  name?: string;
  /**
   * Hold the cap fleet-wide: every process using this store and `name` shares `maxConcurrent`
   * (`redisStore`, `postgresStore`, `sqliteStore`; `memoryStore()` in one process). Default: this
   * process only.
   */
  store?: BulkheadStore;
  /** With a store: how long a slot stays taken after its holder stopped renewing it (died), ms. Default 30000. */
  leaseMs?: number;
  /** With a store: the time of the leases, one scale for every process. Default `wallClock`. */
  clock?: Clock;
}

/** @internal Checked options: with a store, its settings. */
export interface CheckedBulkheadOptions {
  maxConcurrent: number;
  maxQueue: number;
  name: string | undefined;
  shared: { store: BulkheadStore; name: string; leaseMs: number; clock: Clock } | undefined;
}

const BULKHEAD_KEYS: OptionKeys<BulkheadOptions> = {
  maxConcurrent: true,
  maxQueue: true,
  name: true,
  store: true,
  leaseMs: true,
  clock: true,
};

/** @internal Checks a bulkhead's options when it is built (ARCHITECTURE.md §api.options). */
export function checkBulkheadOptions(options: BulkheadOptions): CheckedBulkheadOptions {
  if (options === undefined)
    throw new TypeError('bulkhead(options) needs options with maxConcurrent, got undefined');
  const o = checkOptions('bulkhead', options, BULKHEAD_KEYS);
  if (o.maxConcurrent === undefined)
    throw new TypeError('bulkhead: maxConcurrent is required (an integer >= 1), got undefined');
  const maxConcurrent = checkInteger('maxConcurrent', o.maxConcurrent, 1);
  let maxQueue = Number.POSITIVE_INFINITY;
  if (o.maxQueue !== undefined) {
    maxQueue = checkNumber('maxQueue', o.maxQueue, 0);
    if (maxQueue !== Number.POSITIVE_INFINITY && !Number.isInteger(maxQueue))
      throw new RangeError(
        `maxQueue must be an integer >= 0 or Infinity, got ${showValue(o.maxQueue)}`,
      );
  }
  const name = o.name === undefined ? undefined : checkName('name', o.name);
  const leaseMs = o.leaseMs === undefined ? 30_000 : checkMs('leaseMs', o.leaseMs, 1);
  const clock = checkClock<Clock>('clock', o.clock ?? wallClock);
  const store = o.store;
  if (store === undefined) return { maxConcurrent, maxQueue, name, shared: undefined };
  if (
    typeof store !== 'object' ||
    store === null ||
    typeof (store as Partial<BulkheadStore>).bulkheadAcquire !== 'function'
  )
    throw new TypeError(
      `store must be a BulkheadStore (redisStore(), postgresStore(), sqliteStore(), memoryStore()), got ${showValue(store)}`,
    );
  if (name === undefined)
    throw new TypeError(
      'bulkhead: a store needs a name (the processes using one name share one cap), got undefined',
    );
  return { maxConcurrent, maxQueue, name, shared: { store, name, leaseMs, clock } };
}
