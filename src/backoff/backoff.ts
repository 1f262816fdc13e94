/**
 * A backoff schedule as a pure step function: the delay before retry number `attempt` (1 = the
 * delay before the first retry), given the previous delay and a source of randomness in [0, 1).
 *
 * @example
 * const b: Backoff = { delay: (attempt) => attempt * 100 }
 */
export interface Backoff {
  delay(attempt: number, previousMs: number, random: () => number): number;
}
