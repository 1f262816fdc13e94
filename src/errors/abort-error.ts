import { safeField } from '../text/safe-text.js';

/**
 * The error a cancelled call rejects with: the signal's own `reason` when it is an Error (what
 * `AbortController.abort()` sets by default is a DOMException named `AbortError`), otherwise a
 * DOMException `AbortError` carrying the reason as `cause`.
 *
 * @example
 * if (signal.aborted) throw abortReason(signal)
 */
export function abortReason(signal: AbortSignal): unknown {
  const reason: unknown = signal.reason;
  if (isErrorLike(reason)) return reason;
  const error = new DOMException('This operation was aborted', 'AbortError');
  if (reason !== undefined) Object.defineProperty(error, 'cause', { value: reason });
  return error;
}

/**
 * True when `error` is a cancellation: an `AbortError` by name (DOMException, undici, the SDKs),
 * or the reason of an aborted signal.
 *
 * @example
 * catch (e) { if (isAbortError(e)) return } // the caller gave up; nothing to report
 */
export function isAbortError(error: unknown): boolean {
  return typeof error === 'object' && safeField(error, 'name') === 'AbortError';
}

/** An Error, or an object with a `name`; false (not a throw) for a hostile Proxy. */
function isErrorLike(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  try {
    return value instanceof Error || 'name' in value;
  } catch {
    return false;
  }
}
