import { classifiedAs, type DeclaredClassification } from '../classify/declared.js';
import { hasErrorName, RecourseError } from '../errors/recourse-error.js';
import { textOf } from '../text/safe-text.js';

/** Codes of a failed response that a second request may not meet: the service's own trouble. */
const TRANSIENT_CODES: ReadonlyMap<string, number> = new Map([
  ['server_error', 500],
  ['rate_limit_exceeded', 429],
  ['vector_store_timeout', 504],
]);

/**
 * The Responses API ended a stream with `response.failed`: the response stopped with an error
 * (`code`, `message`) inside an HTTP 200 stream, which the SDK hands over as a finished response.
 * Classified transient for `server_error` (500), `rate_limit_exceeded` (429) and
 * `vector_store_timeout` (504) or no code at all, logical for the rest (`invalid_prompt`, image
 * errors, policy refusals: the same request fails the same way).
 *
 * @example
 * catch (e) { if (isResponseFailedError(e)) console.log(e.code, e.response.id) }
 */
export class ResponseFailedError extends RecourseError {
  override name = 'ResponseFailedError' as const;
  /** The response's `error.code` (`server_error`, `invalid_prompt`, …), if it had one. */
  readonly code: string | undefined;
  /** The failed response as the SDK accumulated it. */
  readonly response: unknown;
  readonly [classifiedAs]: DeclaredClassification;
  constructor(response: { id?: unknown; error?: { code?: unknown; message?: unknown } | null }) {
    const code = typeof response.error?.code === 'string' ? response.error.code : undefined;
    const message =
      typeof response.error?.message === 'string' ? response.error.message : 'no error message';
    super(
      `response ${textOf(response.id)} failed${code === undefined ? '' : ` (${code})`}: ${message}`,
    );
    this.code = code;
    this.response = response;
    if (code === undefined) this[classifiedAs] = { kind: 'transient', reason: 'response_failed' };
    else {
      const status = TRANSIENT_CODES.get(code);
      this[classifiedAs] =
        status === undefined
          ? { kind: 'logical', reason: code, code }
          : { kind: 'transient', status, reason: code, code };
    }
  }
}

/** Cross-realm guard for {@link ResponseFailedError}. @example if (isResponseFailedError(e)) report(e.code) */
export function isResponseFailedError(error: unknown): error is ResponseFailedError {
  return hasErrorName(error, 'ResponseFailedError');
}
