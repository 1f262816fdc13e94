import { textOf } from './safe-text.js';

/**
 * @internal A time for a reader, in whole milliseconds: differences of `performance.now()` carry
 * float dust (`29999.161192`), which messages, logs and `explain` never show. `round` defaults to
 * `Math.round`; use `Math.ceil` for a wait, so a caller who waits that long is never early.
 * Anything that is not a finite number is shown as it is (`Infinity`, or via `textOf`).
 *
 * @example
 * `next probe in ${wholeMs(29999.16, Math.ceil)} ms` // 'next probe in 30000 ms'
 */
export function wholeMs(value: unknown, round: (n: number) => number = Math.round): string {
  return typeof value === 'number' && Number.isFinite(value) ? String(round(value)) : textOf(value);
}
