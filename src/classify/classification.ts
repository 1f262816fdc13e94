/** What kind of failure an error is, and what recourse does with it. */
export type FailureKind = 'transient' | 'persistent' | 'logical' | 'fatal' | 'cancelled';

/**
 * The verdict of {@link classify} on one error.
 *
 * - `transient`: likely to succeed on another try (429, 5xx, 529, resets, timeouts, stalls).
 * - `persistent`: will keep failing until someone fixes something (bad key, DNS, TLS, disk full).
 * - `logical`: the request itself is wrong (400, 404, 422, context overflow).
 * - `fatal`: a bug in the caller (TypeError, RangeError, …).
 * - `cancelled`: the caller gave up.
 */
export interface Classification {
  kind: FailureKind;
  retryable: boolean;
  countsForBreaker: boolean;
  /** How long the server asked us to wait (Retry-After / retry-after-ms), in ms. */
  retryAfterMs?: number;
  status?: number;
  code?: string;
  /** A short machine-readable reason, e.g. `rate_limited`, `context_overflow`, `unclassified`. */
  reason: string;
}
