import {
  hasErrorName,
  RecourseError,
  type RecourseErrorOptions,
} from '../errors/recourse-error.js';

/**
 * A model stream ended cleanly but without its end event (`message_stop` for Anthropic, a
 * `finish_reason` for OpenAI Chat Completions, `response.completed` for the Responses API, a real
 * finish reason for the AI SDK): the connection was cut in a way the SDK does not report, and the
 * answer so far is partial. Carries `code: 'ERR_STREAM_PREMATURE_CLOSE'` so `classify` calls it
 * transient and retryable; never treat the partial answer as a success.
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
  /** What the stream should have ended with (`message_stop`, `finish_reason`, …). */
  readonly expected: string;
  constructor(
    events: number,
    lastEvent: string | undefined,
    partial?: unknown,
    expected = 'message_stop',
    options?: RecourseErrorOptions,
  ) {
    super(
      `stream ended without ${expected} after ${events} event(s)${lastEvent ? ` (last: ${lastEvent})` : ''}`,
      options,
    );
    this.events = events;
    this.lastEvent = lastEvent;
    this.partial = partial;
    this.expected = expected;
  }
}

/** Cross-realm guard for {@link IncompleteStreamError}. @example if (isIncompleteStreamError(e)) retry() */
export function isIncompleteStreamError(error: unknown): error is IncompleteStreamError {
  return hasErrorName(error, 'IncompleteStreamError');
}
