import type { StallPhase } from '../errors/stall-error.js';
import type { GiveUpReason } from '../errors/retries-exhausted-error.js';

/** The states a circuit breaker can be in. */
export type BreakerState = 'closed' | 'open' | 'half-open' | 'isolated';

/**
 * Every event a recourse policy emits, by type. Each is also published on `node:diagnostics_channel`
 * as `recourse:<type>` with `type` and `policy` added (free when nobody listens).
 */
export interface PolicyEventMap {
  /** A call failed and will be retried after `delayMs`. `attempt` is the attempt that just failed. */
  retry: { attempt: number; maxAttempts: number; delayMs: number; error: unknown };
  /** A retry layer stopped: out of attempts, deadline, Retry-After too long, or budget. */
  giveup: { attempts: number; maxAttempts: number; error: unknown; reason: GiveUpReason };
  /** A breaker changed state. */
  state: { name: string; from: BreakerState; to: BreakerState };
  /** A breaker refused a call without running it. */
  reject: { name: string; retryAfterMs: number };
  /** A fallback ladder moved from one path to the next. */
  fallback: { from: string; to: string; error: unknown };
  /** A fallback ladder was served; `degraded` when not by its first path. */
  served: { servedBy: string; degraded: boolean; failures: number };
  /** A `timeout` or breaker probe ran out of time. */
  timeout: { timeoutMs: number; probe: boolean; name?: string };
  /**
   * A breaker probe that had timed out answered successfully after all: the dependency works but
   * is slower than `probeTimeoutMs`, so probes can never close the breaker. Raise it.
   */
  probe_late: { name: string; probeTimeoutMs: number; elapsedMs: number };
  /** A shared breaker's store failed or timed out: the breaker goes on from its local copy. */
  store_unavailable: { name: string; error: unknown };
  /** A shared breaker's store answers again (after `downMs`); the local copy is re-read. */
  store_recovered: { name: string; downMs: number };
  /** `watch` caught a silent stream. */
  stall: { phase: StallPhase; limitMs: number; items: number; name?: string };
  /** `validate` rejected a result. */
  invalid: { reason: string; value: unknown };
}

/** A policy event name. */
export type PolicyEventType = keyof PolicyEventMap;

/**
 * An event as sinks receive it from `subscribe`: its payload plus `type`, `policy` (the kind:
 * `retry`, `circuit-breaker`, …), `name` (the policy's name, when it has one) and `at` (epoch ms).
 */
export type RecourseEvent = { type: string; policy: string; name?: string; at: number; [key: string]: unknown };

/** A listener of one event type. */
export type Listener<E> = (event: E) => void;
