// Log lines as jsonLogger writes them, for report tests that need exact times and ids.

export const BASE = Date.parse('2026-03-01T10:00:00.000Z');

export interface LineFields {
  at: number;
  event: string;
  [field: string]: unknown;
}

/** One JSON line: `at` is ms after BASE. */
export function logLine({ at, event, ...rest }: LineFields): string {
  return JSON.stringify({
    timestamp: new Date(BASE + at).toISOString(),
    level: 'info',
    event,
    operation: 'test',
    msg: `${event} line`,
    ...rest,
  });
}

export const err529 = {
  type: 'OverloadedError',
  message: '529 overloaded',
  kind: 'transient',
  reason: 'overloaded',
  retryable: true,
  status: 529,
};
export const err500 = {
  type: 'InternalServerError',
  message: '500 boom',
  kind: 'transient',
  reason: 'server_error',
  retryable: true,
  status: 500,
};

/**
 * Three logical calls of a research ladder (deep-research → quick-search, wrapped in an
 * instrumented "research" call):
 * - c1: deep fails twice (529, backoff 50 ms) and opens its breaker; quick serves it: degraded.
 * - c2: deep refused by the open breaker; quick fails twice (500): all paths failed, no explain tree.
 * - c3: deep answers at once: success; its envelope carries nothing special.
 * Plus the breaker's half-open probe and close, and two degradation changes.
 */
export function ladderLog(): string[] {
  return [
    // c1
    logLine({
      at: 1100,
      event: 'retry',
      dependency: 'deep-research',
      call_id: 'c1',
      delay_ms: 50,
      error: { ...err529, attempt: 1, maxAttempts: 2 },
    }),
    logLine({
      at: 1200,
      event: 'state',
      dependency: 'deep-research',
      call_id: 'c1',
      from: 'closed',
      to: 'open',
    }),
    logLine({
      at: 1250,
      event: 'degradation',
      level: 1,
      dependency: 'degradation',
      from: 'normal',
      to: 'degraded',
      direction: 'escalate',
      error_rate: 0.5,
      calls: 4,
    }),
    logLine({
      at: 1300,
      event: 'giveup',
      dependency: 'deep-research',
      call_id: 'c1',
      reason: 'attempts',
      error: { ...err529, attempt: 2, maxAttempts: 2 },
    }),
    logLine({
      at: 1300,
      event: 'call',
      dependency: 'deep-research',
      call_id: 'c1',
      outcome: 'failure',
      duration_ms: 300,
      error: {
        type: 'RetriesExhaustedError',
        message: 'gave up after 2 attempt(s)',
        kind: 'transient',
        reason: 'overloaded',
        retryable: false,
        status: 529,
        attempt: 2,
      },
    }),
    logLine({
      at: 1301,
      event: 'fallback',
      dependency: 'deep-research',
      call_id: 'c1',
      from: 'deep-research',
      to: 'quick-search',
      error: err529,
    }),
    logLine({
      at: 1500,
      event: 'call',
      dependency: 'quick-search',
      call_id: 'c1',
      outcome: 'success',
      duration_ms: 198,
    }),
    logLine({
      at: 1500,
      event: 'served',
      call_id: 'c1',
      served_by: 'quick-search',
      degraded: true,
      failures: 1,
    }),
    logLine({
      at: 1501,
      event: 'call',
      dependency: 'research',
      call_id: 'c1',
      outcome: 'success',
      duration_ms: 501,
    }),
    // c2
    logLine({
      at: 2000,
      event: 'reject',
      dependency: 'deep-research',
      call_id: 'c2',
      retry_after_ms: 999.5,
    }),
    logLine({
      at: 2000,
      event: 'call',
      dependency: 'deep-research',
      call_id: 'c2',
      outcome: 'failure',
      duration_ms: 0.2,
      error: {
        type: 'CircuitOpenError',
        message: 'circuit "deep-research" is open',
        kind: 'transient',
        reason: 'circuit_open',
        retryable: false,
      },
    }),
    logLine({
      at: 2001,
      event: 'fallback',
      dependency: 'deep-research',
      call_id: 'c2',
      from: 'deep-research',
      to: 'quick-search',
      error: { type: 'CircuitOpenError', message: 'open' },
    }),
    logLine({
      at: 2100,
      event: 'retry',
      dependency: 'quick-search',
      call_id: 'c2',
      delay_ms: 20,
      error: { ...err500, attempt: 1, maxAttempts: 2 },
    }),
    logLine({
      at: 2200,
      event: 'giveup',
      dependency: 'quick-search',
      call_id: 'c2',
      reason: 'attempts',
      error: { ...err500, attempt: 2, maxAttempts: 2 },
    }),
    logLine({
      at: 2200,
      event: 'call',
      dependency: 'quick-search',
      call_id: 'c2',
      outcome: 'failure',
      duration_ms: 199,
      error: { type: 'RetriesExhaustedError', message: 'gave up after 2 attempt(s)', status: 500 },
    }),
    logLine({
      at: 2201,
      event: 'call',
      dependency: 'research',
      call_id: 'c2',
      outcome: 'failure',
      duration_ms: 201,
      error: { type: 'AllPathsFailedError', message: 'all 2 path(s) failed' },
    }),
    // the probe
    logLine({
      at: 3000,
      event: 'state',
      dependency: 'deep-research',
      from: 'open',
      to: 'half-open',
    }),
    logLine({
      at: 3100,
      event: 'state',
      dependency: 'deep-research',
      call_id: 'c3',
      from: 'half-open',
      to: 'closed',
    }),
    // c3
    logLine({
      at: 3100,
      event: 'call',
      dependency: 'deep-research',
      call_id: 'c3',
      outcome: 'success',
      duration_ms: 100,
    }),
    logLine({
      at: 3100,
      event: 'served',
      call_id: 'c3',
      served_by: 'deep-research',
      degraded: false,
      failures: 0,
    }),
    logLine({
      at: 3101,
      event: 'call',
      dependency: 'research',
      call_id: 'c3',
      outcome: 'success',
      duration_ms: 101,
    }),
    logLine({
      at: 4000,
      event: 'degradation',
      level: 0,
      dependency: 'degradation',
      from: 'degraded',
      to: 'normal',
      direction: 'restore',
      error_rate: 0,
      calls: 6,
    }),
  ];
}
