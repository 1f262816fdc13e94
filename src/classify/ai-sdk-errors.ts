// The Vercel AI SDK's errors, recognised by the registered-symbol markers its packages set
// (`AISDKError.hasMarker`), so recourse needs no import of `ai` and works across its versions.

const API_CALL_ERROR = Symbol.for('vercel.ai.error.AI_APICallError');
const RETRY_ERROR = Symbol.for('vercel.ai.error.AI_RetryError');
const PROVIDER_STREAM_ERROR = Symbol.for('vercel.ai.providerStreamError');

type Bag = Record<string | symbol, unknown>;

/**
 * @internal An AI SDK `RetryError` (the SDK's own retries gave up): the error it wraps and
 * whether it ran out of attempts (`maxRetriesExceeded`) rather than meeting a non-retryable error.
 */
export function aiRetryError(e: Bag): { lastError: unknown; exhausted: boolean } | undefined {
  if (e[RETRY_ERROR] !== true) return undefined;
  return { lastError: e.lastError, exhausted: e.reason === 'maxRetriesExceeded' };
}

/**
 * @internal The AI SDK's own retry verdict (`isRetryable`) of an `APICallError` or an in-stream
 * provider error, when it gives one.
 */
export function aiIsRetryable(e: Bag): boolean | undefined {
  if (e[API_CALL_ERROR] !== true && e[PROVIDER_STREAM_ERROR] !== true) return undefined;
  return typeof e.isRetryable === 'boolean' ? e.isRetryable : undefined;
}

const GATEWAY_ERROR = Symbol.for('vercel.ai.gateway.error');

/**
 * @internal True when the AI SDK's own retry loop (`maxRetries` above 0) would send the request
 * again after this error: an `APICallError` or gateway error that says `isRetryable: true`.
 * Anything else (recourse's own errors included) it rethrows at once.
 */
export function aiSdkWouldRetry(e: unknown): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const bag = e as Bag;
  try {
    return (
      (bag[API_CALL_ERROR] === true || bag[GATEWAY_ERROR] === true) && bag.isRetryable === true
    );
  } catch {
    return false;
  }
}
