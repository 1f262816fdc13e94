import { wholeMs } from '../text/whole-ms.js';
import { hasErrorName, RecourseError, type RecourseErrorOptions } from './recourse-error.js';

/** Which silence was too long: before the first item, between items, or the whole stream. */
export type StallPhase = 'first-item' | 'idle' | 'total';

/**
 * A stream went silent for too long (raised by `watch`). Classified transient and retryable.
 *
 * @example
 * for await (const m of watch(stream, { idleMs: 20_000 })) handle(m) // may throw StallError
 */
export class StallError extends RecourseError {
  override name = 'StallError' as const;
  readonly phase: StallPhase;
  /** The limit that was exceeded, in ms. */
  readonly limitMs: number;
  /** Items that counted as progress before the stall. */
  readonly items: number;
  constructor(phase: StallPhase, limitMs: number, items: number, options?: RecourseErrorOptions) {
    const what =
      phase === 'first-item'
        ? `no first item within ${wholeMs(limitMs)} ms`
        : phase === 'idle'
          ? `no progress for ${wholeMs(limitMs)} ms after ${items} item(s)`
          : `stream still running after its total budget of ${wholeMs(limitMs)} ms`;
    super(`stream stalled: ${what}`, options);
    this.phase = phase;
    this.limitMs = limitMs;
    this.items = items;
  }
}

/** Cross-realm guard for {@link StallError}. @example if (isStallError(e)) console.log(e.phase) */
export function isStallError(error: unknown): error is StallError {
  return hasErrorName(error, 'StallError');
}
