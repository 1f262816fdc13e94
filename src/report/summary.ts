import type { CallRow } from './call-rows.js';
import type { LogEvent } from './log-event.js';

/** Counts for the logical calls of the run. */
export interface CallSummary {
  calls: number;
  success: number;
  degraded: number;
  failed: number;
  cancelled: number;
  unknown: number;
  retries: number;
  stalls: number;
  requests: number;
}

/** Counts and latency for one dependency. */
export interface DependencySummary {
  dependency: string;
  /** Its `call` events (each a logical call of that dependency, or one path of a ladder). */
  calls: number;
  failures: number;
  retries: number;
  stalls: number;
  rejects: number;
  timeouts: number;
  invalid: number;
  /** Attempts that reached it; undefined when it was never a path of a call (only an outer call). */
  requests: number | undefined;
  opened: number;
  p50?: number;
  p95?: number;
  p99?: number;
  /** Durations of its `call` events, ms: successes and failures (for the histogram); refusals by an open breaker are left out. */
  okMs: number[];
  failedMs: number[];
}

/** The p-quantile of sorted values (nearest rank). */
export function quantile(sorted: ArrayLike<number>, p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

/**
 * The summary table's numbers: per logical call (how many succeeded, were degraded, failed; the
 * retries, stalls and requests they took) and per dependency (calls, failures, retries, stalls,
 * breaker refusals and openings, requests, latency percentiles of its `call` events).
 *
 * @example
 * const { calls, dependencies } = summarize(log.events, rows)
 */
export function summarize(
  events: readonly LogEvent[],
  rows: readonly CallRow[],
): { calls: CallSummary; dependencies: DependencySummary[] } {
  const calls: CallSummary = {
    calls: rows.length,
    success: 0,
    degraded: 0,
    failed: 0,
    cancelled: 0,
    unknown: 0,
    retries: 0,
    stalls: 0,
    requests: 0,
  };
  const deps = new Map<string, DependencySummary>();
  const dep = (name: string | undefined): DependencySummary => {
    const key = name ?? 'unnamed';
    let d = deps.get(key);
    if (d === undefined) {
      d = {
        dependency: key,
        calls: 0,
        failures: 0,
        retries: 0,
        stalls: 0,
        rejects: 0,
        timeouts: 0,
        invalid: 0,
        requests: undefined,
        opened: 0,
        okMs: [],
        failedMs: [],
      };
      deps.set(key, d);
    }
    return d;
  };
  for (const row of rows) {
    calls[row.status]++;
    calls.retries += row.retries;
    calls.stalls += row.stalls;
    calls.requests += row.requests;
    for (const p of row.paths) {
      const d = dep(p.dependency);
      d.requests = (d.requests ?? 0) + p.requests;
    }
  }
  for (const e of events) {
    switch (e.type) {
      case 'call': {
        const d = dep(e.dependency);
        d.calls++;
        if (e.outcome === 'failure') d.failures++;
        // A call the open breaker refused never reached the dependency: it says nothing about its latency.
        const refused = e.error?.type === 'CircuitOpenError';
        if (e.durationMs !== undefined && e.outcome !== 'cancelled' && !refused)
          (e.outcome === 'failure' ? d.failedMs : d.okMs).push(e.durationMs);
        break;
      }
      case 'retry':
        dep(e.dependency).retries++;
        break;
      case 'stall':
        dep(e.dependency).stalls++;
        break;
      case 'reject':
        dep(e.dependency).rejects++;
        break;
      case 'timeout':
        dep(e.dependency).timeouts++;
        break;
      case 'invalid':
        dep(e.dependency).invalid++;
        break;
      case 'state':
        if (e.to === 'open') dep(e.dependency).opened++;
        break;
    }
  }
  for (const d of deps.values()) {
    // A typed array sorts numbers natively: several times faster than sort with a comparator.
    const all = Float64Array.from([...d.okMs, ...d.failedMs]).sort();
    const p50 = quantile(all, 0.5);
    const p95 = quantile(all, 0.95);
    const p99 = quantile(all, 0.99);
    if (p50 !== undefined) d.p50 = p50;
    if (p95 !== undefined) d.p95 = p95;
    if (p99 !== undefined) d.p99 = p99;
  }
  return {
    calls,
    dependencies: [...deps.values()].sort((a, b) => a.dependency.localeCompare(b.dependency)),
  };
}
