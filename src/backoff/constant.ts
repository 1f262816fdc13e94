import { checkMs } from '../options/validate-options.js';
import type { Backoff } from './backoff.js';

/**
 * The same delay before every retry.
 *
 * @example
 * retry({ maxAttempts: 5, backoff: constant(250) })
 */
export function constant(ms: number): Backoff {
  const delay = checkMs('ms', ms);
  return { delay: () => delay };
}
