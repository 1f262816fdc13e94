import {
  checkMs,
  checkNumber,
  checkOneOf,
  checkOptions,
  type OptionKeys,
} from '../options/validate-options.js';
import type { Backoff } from './backoff.js';

/** How randomness spreads retries (Brooker, "Exponential Backoff and Jitter"). */
export type Jitter = 'full' | 'equal' | 'decorrelated' | 'none';

/** Options of {@link exponential}. */
export interface ExponentialOptions {
  /** First delay before jitter, ms. Default 1000. */
  baseMs?: number;
  /** Growth per attempt. Default 2. */
  factor?: number;
  /** Cap, ms. Default 30000. */
  maxMs?: number;
  /** Default `'full'`. */
  jitter?: Jitter;
}

const EXPONENTIAL_KEYS: OptionKeys<ExponentialOptions> = {
  baseMs: true,
  factor: true,
  maxMs: true,
  jitter: true,
};

const JITTERS: readonly Jitter[] = ['full', 'equal', 'decorrelated', 'none'];

/**
 * Exponential backoff with jitter. With `c = min(maxMs, baseMs · factor^(attempt-1))`:
 * `none` → c; `full` → U(0, c); `equal` → c/2 + U(0, c/2);
 * `decorrelated` → min(maxMs, U(baseMs, previousMs · 3)) (the first retry uses previousMs = baseMs).
 * Defaults: baseMs 1000, factor 2, maxMs 30000, jitter 'full'.
 *
 * @example
 * retry({ maxAttempts: 4, backoff: exponential({ baseMs: 200, maxMs: 5_000, jitter: 'equal' }) })
 */
export function exponential(options?: ExponentialOptions): Backoff {
  const o = checkOptions('exponential', options, EXPONENTIAL_KEYS);
  const baseMs = o.baseMs === undefined ? 1000 : checkMs('baseMs', o.baseMs);
  const factor = o.factor === undefined ? 2 : checkNumber('factor', o.factor, 1);
  if (!Number.isFinite(factor))
    throw new RangeError(`factor must be a finite number >= 1, got ${factor}`);
  const maxMs = o.maxMs === undefined ? Math.max(30_000, baseMs) : checkMs('maxMs', o.maxMs);
  if (maxMs < baseMs) throw new RangeError(`maxMs must be >= baseMs (${baseMs}), got ${maxMs}`);
  const jitter = o.jitter === undefined ? 'full' : checkOneOf('jitter', o.jitter, JITTERS);

  const capped = (attempt: number): number => {
    // factor^(attempt-1) overflows to Infinity for large attempts; min() keeps it at the cap.
    const raw = baseMs * factor ** Math.max(0, attempt - 1);
    return Number.isFinite(raw) ? Math.min(maxMs, raw) : maxMs;
  };
  switch (jitter) {
    case 'none':
      return { delay: (attempt) => capped(attempt) };
    case 'full':
      return { delay: (attempt, _previous, random) => random() * capped(attempt) };
    case 'equal':
      return {
        delay: (attempt, _previous, random) => {
          const c = capped(attempt);
          return c / 2 + random() * (c / 2);
        },
      };
    case 'decorrelated':
      return {
        delay: (_attempt, previousMs, random) => {
          const previous = previousMs > 0 ? previousMs : baseMs;
          const high = Math.max(baseMs, previous * 3);
          return Math.min(maxMs, baseMs + random() * (high - baseMs));
        },
      };
  }
}
