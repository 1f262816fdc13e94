import {
  checkInteger,
  checkName,
  checkNumber,
  checkOptions,
  type OptionKeys,
  showValue,
} from '../options/validate-options.js';

/** Options of {@link bulkhead}. */
export interface BulkheadOptions {
  /** The most calls that run at once (an integer >= 1). Required. */
  maxConcurrent: number;
  /** The most calls that wait for a slot: an integer >= 0 or Infinity (0: refuse when every slot is taken). Default Infinity. */
  maxQueue?: number;
  /** Reported in events and errors. */
  name?: string;
}

const BULKHEAD_KEYS: OptionKeys<BulkheadOptions> = {
  maxConcurrent: true,
  maxQueue: true,
  name: true,
};

/** @internal Checks a bulkhead's options when it is built (ARCHITECTURE.md §api.options). */
export function checkBulkheadOptions(options: BulkheadOptions): BulkheadOptions {
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
  const checked: BulkheadOptions = { maxConcurrent, maxQueue };
  if (o.name !== undefined) checked.name = checkName('name', o.name);
  return checked;
}
