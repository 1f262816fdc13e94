import type { Classification, FailureKind } from './classification.js';

/**
 * The key under which an error declares its own classification, which `classify` then takes as
 * it is (the extension point for third-party errors). It is `Symbol.for('recourse.classification')`,
 * so a library can declare one without depending on recourse, and two installed copies of
 * recourse agree on it. The value is a {@link DeclaredClassification}; one without a valid `kind`
 * is ignored.
 *
 * @example
 * class QuotaExceededError extends Error {
 *   readonly [classifiedAs]: DeclaredClassification = { kind: 'persistent', reason: 'quota_exceeded' }
 * }
 * classify(new QuotaExceededError()) // { kind: 'persistent', retryable: false, countsForBreaker: true, reason: 'quota_exceeded' }
 */
export const classifiedAs: unique symbol = Symbol.for('recourse.classification');

/**
 * What an error may declare about itself under {@link classifiedAs}. Only `kind` is required:
 * `retryable` defaults to `kind === 'transient'`, `countsForBreaker` to transient or persistent,
 * `reason` to `'declared'`; `retryAfterMs` is rounded up to whole ms.
 *
 * @example
 * const c: DeclaredClassification = { kind: 'transient', retryAfterMs: 2_000, reason: 'busy' }
 */
export interface DeclaredClassification {
  kind: FailureKind;
  retryable?: boolean;
  countsForBreaker?: boolean;
  retryAfterMs?: number;
  status?: number;
  code?: string;
  reason?: string;
}

const KINDS: ReadonlySet<string> = new Set<FailureKind>([
  'transient',
  'persistent',
  'logical',
  'fatal',
  'cancelled',
]);

/** @internal The classification `error` declares for itself, completed with defaults; undefined if none. */
export function declaredClassification(error: object): Classification | undefined {
  const declared: unknown = (error as { [classifiedAs]?: unknown })[classifiedAs];
  if (typeof declared !== 'object' || declared === null) return undefined;
  const d = declared as Record<string, unknown>;
  if (typeof d.kind !== 'string' || !KINDS.has(d.kind)) return undefined;
  const kind = d.kind as FailureKind;
  const result: Classification = {
    kind,
    retryable: typeof d.retryable === 'boolean' ? d.retryable : kind === 'transient',
    countsForBreaker:
      typeof d.countsForBreaker === 'boolean'
        ? d.countsForBreaker
        : kind === 'transient' || kind === 'persistent',
    reason: typeof d.reason === 'string' && d.reason !== '' ? d.reason : 'declared',
  };
  if (typeof d.retryAfterMs === 'number' && d.retryAfterMs >= 0 && Number.isFinite(d.retryAfterMs))
    result.retryAfterMs = Math.ceil(d.retryAfterMs);
  if (typeof d.status === 'number' && Number.isInteger(d.status)) result.status = d.status;
  if (typeof d.code === 'string') result.code = d.code;
  return result;
}
