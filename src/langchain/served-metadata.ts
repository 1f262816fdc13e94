import type { PathFailure } from '../errors/all-paths-failed-error.js';
import { servedReport } from '../fallback/served-report.js';

/** One model that failed before another served, as {@link ServedModel} reports it (JSON). */
export interface ModelFailure {
  path: string;
  /** The error's text. */
  error: string;
  /** Its classification (`transient`, `persistent`, …) and reason (`overloaded`, `circuit_open`, …). */
  kind: string;
  reason: string;
  status?: number;
}

/**
 * What {@link recourseMiddleware} adds to every model answer, under
 * `response_metadata.recourse`: which model served it.
 *
 * @example
 * const { servedBy, degraded } = message.response_metadata.recourse as ServedModel
 */
export interface ServedModel {
  servedBy: string;
  /** `servedBy` is not the agent's own model (the first path). */
  degraded: boolean;
  /** The models tried before `servedBy`, in order. */
  failures: ModelFailure[];
}

/** @internal The report of a call served by `servedBy` after `failures`. */
export const servedModel: (
  servedBy: string,
  degraded: boolean,
  failures: readonly PathFailure[],
) => ServedModel = servedReport;

/** @internal Writes `served` on an answer (an AI message); a `Command` or anything else is left alone. */
export function markServed<T>(answer: T, served: ServedModel): T {
  const m = answer as { response_metadata?: unknown; lc_kwargs?: { response_metadata?: unknown } };
  if (typeof m !== 'object' || m === null || typeof m.response_metadata !== 'object') return answer;
  const metadata = { ...(m.response_metadata as object), recourse: served };
  m.response_metadata = metadata;
  if (typeof m.lc_kwargs === 'object' && m.lc_kwargs !== null)
    m.lc_kwargs.response_metadata = metadata;
  return answer;
}
