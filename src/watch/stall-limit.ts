import { showValue } from '../options/validate-options.js';

/**
 * @internal A stall limit in ms: a number >= 1, or `Infinity` to turn that limit off explicitly
 * (the adapters have limits on by default). `undefined` stays `undefined` (not given).
 */
export function checkStallLimit(name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number')
    throw new TypeError(
      `${name} must be a number of ms >= 1, or Infinity for no limit, got ${showValue(value)}`,
    );
  if (!(value >= 1))
    throw new RangeError(
      `${name} must be a number of ms >= 1, or Infinity for no limit, got ${showValue(value)}`,
    );
  return value;
}

/** @internal A limit as the watcher keeps it: `undefined` for none (`Infinity` included). */
export function activeLimit(value: number | undefined): number | undefined {
  return value === Number.POSITIVE_INFINITY ? undefined : value;
}
