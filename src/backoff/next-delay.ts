import type { Backoff } from './backoff.js';

/**
 * @internal The delay before retry number `attempt` from `backoff`, made safe to sleep on: a
 * negative, NaN or non-number answer (a user's backoff with a bug) becomes 0. Every loop that
 * waits between attempts (retry, the ledger's and saga's lease polling, compensation retries) asks
 * this one helper and passes the value back as `previousMs` next time.
 *
 * @example
 * let previous = 0
 * for (let attempt = 1; ; attempt++) { previous = nextDelay(backoff, attempt, previous, Math.random); await sleep(previous) }
 */
export function nextDelay(
  backoff: Backoff,
  attempt: number,
  previousMs: number,
  random: () => number,
): number {
  const delay = backoff.delay(attempt, previousMs, random);
  return typeof delay === 'number' && delay >= 0 ? delay : 0;
}
