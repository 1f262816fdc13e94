import { hasErrorName, RecourseError } from '../errors/recourse-error.js';

/**
 * A message stream ended cleanly but without `message_stop`: the connection was cut in a way the
 * SDK does not report, and the text so far is partial. Carries `code: 'ERR_STREAM_PREMATURE_CLOSE'`
 * so `classify` calls it transient and retryable; never treat the partial message as a success.
 *
 * @example
 * catch (e) { if (isIncompleteStreamError(e)) console.log(`cut after ${e.events} events`, e.partial) }
 */
export class IncompleteStreamError extends RecourseError {
  override name = 'IncompleteStreamError' as const;
  readonly code = 'ERR_STREAM_PREMATURE_CLOSE' as const;
  /** Stream events received before the end. */
  readonly events: number;
  /** The type of the last event received, if any. */
  readonly lastEvent: string | undefined;
  /** What had been accumulated (not a complete message), if anything. */
  readonly partial: unknown;
  constructor(events: number, lastEvent: string | undefined, partial?: unknown) {
    super(`message stream ended without message_stop after ${events} event(s)${lastEvent ? ` (last: ${lastEvent})` : ''}`);
    this.events = events;
    this.lastEvent = lastEvent;
    this.partial = partial;
  }
}

/** Cross-realm guard for {@link IncompleteStreamError}. @example if (isIncompleteStreamError(e)) retry() */
export function isIncompleteStreamError(error: unknown): error is IncompleteStreamError {
  return hasErrorName(error, 'IncompleteStreamError');
}
