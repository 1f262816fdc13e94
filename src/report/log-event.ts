import { EVENT_TYPES } from '../events/event-types.js';
import type { ExplainedError } from '../telemetry/explain.js';

/** An error as a log line carries it (jsonLogger's `error` field), redacted: an explain node's own fields. */
export type LoggedError = Pick<
  ExplainedError,
  'type' | 'message' | 'kind' | 'reason' | 'status' | 'code'
>;

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
 * Event types the report draws: every event recourse publishes (`EVENT_TYPES`, checked against
 * the event map by the compiler). Lines of other types (another program's, a newer recourse's)
 * are listed as skipped (the page says so), never guessed at.
 */
export const KNOWN_EVENT_TYPES: ReadonlySet<string> = new Set(EVENT_TYPES);

/** Types whose hover card the report words itself (describeEvent); others show the line's `msg`. */
export const DESCRIBED_TYPES: ReadonlySet<string> = new Set([
  'retry',
  'giveup',
  'call',
  'attempt',
  'state',
  'reject',
  'fallback',
  'served',
  'stall',
  'degradation',
]);
