import type { RecourseEventMap } from '../events/event-types.js';
import type { ExplainedError } from '../telemetry/explain.js';

/** An error as a log line carries it (jsonLogger's `error` field), redacted: an explain node's own fields. */
export type LoggedError = Pick<ExplainedError, 'type' | 'message' | 'kind' | 'reason' | 'status' | 'code'>;

/** A node of an `explain` tree as a log line may carry it (`explainJSON`'s shape), redacted. */
export type ExplainNode = ExplainedError;

/**
 * One event of a run as the report reads it from a `jsonLogger` line: the fields the report draws
 * with, normalised (camelCase, numbers checked), every string redacted.
 */
export interface LogEvent {
  /** 1-based line number in the log. */
  line: number;
  /** Epoch ms. */
  at: number;
  type: string;
  dependency?: string;
  /** The logical call the event belongs to (`call_id`): its row in the timeline. */
  callId?: string;
  attempt?: number;
  maxAttempts?: number;
  /** `call` / `attempt`: how long it took. */
  durationMs?: number;
  /** `retry`: the backoff before the next attempt. */
  delayMs?: number;
  outcome?: string;
  from?: string;
  to?: string;
  servedBy?: string;
  degraded?: boolean;
  level?: number;
  phase?: string;
  reason?: string;
  error?: LoggedError;
  explain?: ExplainNode;
  /** The line's own summary sentence (kept only for types outside {@link DESCRIBED_TYPES}). */
  msg?: string;
  /** The line's other fields (for the hover card), redacted; absent when there are none. */
  extra?: Record<string, unknown>;
}

/**
 * Every event type a log may hold: the keys of `RecourseEventMap`, spelled out so the compiler
 * fails here when an event is added and the report does not know it yet.
 */
const EVENT_TYPES: Record<keyof RecourseEventMap, true> = {
  retry: true,
  giveup: true,
  state: true,
  reject: true,
  fallback: true,
  served: true,
  timeout: true,
  probe_late: true,
  store_unavailable: true,
  store_recovered: true,
  stall: true,
  hedge: true,
  invalid: true,
  call: true,
  attempt: true,
  degradation: true,
  model_fallback: true,
  ledger_takeover: true,
  ledger_unrecorded: true,
  route: true,
  alert: true,
  alert_failed: true,
  replan: true,
  stop: true,
  escalation: true,
  rate_limit_wait: true,
  rate_limit_learned: true,
  budget_exceeded: true,
  spend_rate_exceeded: true,
  resume: true,
};

/**
 * Event types the report draws: every event recourse emits. Lines of other types (another
 * program's, a newer recourse's) are listed as skipped (the page says so), never guessed at.
 */
export const KNOWN_EVENT_TYPES: ReadonlySet<string> = new Set(Object.keys(EVENT_TYPES));

/** Types whose hover card the report words itself (describeEvent); others show the line's `msg`. */
export const DESCRIBED_TYPES: ReadonlySet<string> = new Set(['retry', 'giveup', 'call', 'attempt', 'state', 'reject', 'fallback', 'served', 'stall', 'degradation']);
