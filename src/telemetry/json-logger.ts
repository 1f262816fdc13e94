import type { RecourseEvent } from '../events/recourse-event.js';
import { callIdOf, dependencyOf } from '../events/event-scope.js';
import { type ErrorSummary, summarizeError } from './error-summary.js';
import {
  checkOneOf,
  checkOptions,
  type OptionKeys,
  showValue,
} from '../options/validate-options.js';
import { safeRead, textOf } from '../text/safe-text.js';
import { wholeMs } from '../text/whole-ms.js';
import { explainJSON } from './explain.js';
import { redact, redactText } from './redact.js';

/** Severity of a log line. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };
const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

/** Options of {@link jsonLogger}. */
export interface JsonLoggerOptions {
  /** Lines below this level are dropped. Default `'debug'` (every event). */
  level?: LogLevel;
  /** Fields added to every line (e.g. `{ service: 'orchestrator' }`), redacted like the rest. */
  fields?: Record<string, unknown>;
}

const JSON_LOGGER_KEYS: OptionKeys<JsonLoggerOptions> = { level: true, fields: true };

/** One line written by {@link jsonLogger}. */
export interface LogLine {
  timestamp: string;
  level: LogLevel;
  /** The event type: `retry`, `giveup`, `state`, `fallback`, `call`, … */
  event: string;
  /** The kind of policy that emitted it: `retry`, `circuit-breaker`, `timeout`, `watch`, `fallback`, `instrument`, … */
  operation: string;
  dependency?: string;
  /** The logical call the event belongs to (its outermost call): `"<pid>.<n>"`; absent outside a call. */
  call_id?: string;
  msg: string;
  error?: ErrorSummary & { attempt?: number; maxAttempts?: number };
  duration_ms?: number;
  [field: string]: unknown;
}

/** @internal The severity recourse gives an event. */
export function levelOf(event: RecourseEvent): LogLevel {
  switch (event.type) {
    case 'call':
      return event.outcome === 'failure'
        ? 'error'
        : event.outcome === 'cancelled'
          ? 'info'
          : 'debug';
    case 'attempt':
      return event.outcome === 'failure' ? 'warn' : 'debug';
    case 'giveup':
      return 'error';
    case 'state':
      return event.to === 'open' || event.to === 'isolated' ? 'error' : 'info';
    case 'served':
      return event.degraded === true ? 'warn' : 'debug';
    case 'degradation':
      return event.direction === 'escalate' ? 'warn' : 'info';
    case 'alert':
    case 'alert_failed':
    case 'stop':
      return 'error';
    case 'route':
      return event.route === 'policy' ? 'info' : 'warn';
    case 'escalation':
      return event.state === 'pending' || event.state === 'approved' ? 'warn' : 'error';
    case 'replan':
    case 'spend_rate_exceeded':
    case 'retry':
    case 'reject':
    case 'probe_late':
    case 'store_unavailable':
    case 'fallback':
    case 'timeout':
    case 'stall':
    case 'invalid':
      return 'warn';
    default:
      return 'info';
  }
}

const OWN = new Set([
  'type',
  'policy',
  'name',
  'at',
  'error',
  'attempt',
  'attempts',
  'maxAttempts',
  'durationMs',
]);

function snake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function describe(
  e: RecourseEvent,
  dependency: string | undefined,
  error: ErrorSummary | undefined,
): string {
  const dep = dependency === undefined ? '' : ` ${dependency}`;
  const why = error === undefined ? '' : `: ${error.type}: ${error.message}`;
  switch (e.type) {
    case 'retry':
      return `retry${dep}: attempt ${textOf(e.attempt)} of ${textOf(e.maxAttempts)} failed, next in ${wholeMs(e.delayMs)} ms${why}`;
    case 'giveup':
      return `giveup${dep} after ${textOf(e.attempts)} attempt(s) (${textOf(e.reason)})${why}`;
    case 'state':
      return `circuit${dep} ${textOf(e.from)} → ${textOf(e.to)}${e.reason === 'spend_rate' ? ' (spend rate over its limit)' : ''}`;
    case 'spend_rate_exceeded':
      return `spend rate${dep}: ${textOf(e.rate)} ${textOf(e.unit)} in ${wholeMs(e.perMs)} ms is over ${textOf(e.limit)}; circuit ${textOf(e.breaker)} opens`;
    case 'reject':
      return `circuit${dep} rejected a call; next probe in ${wholeMs(e.retryAfterMs, Math.ceil)} ms`;
    case 'fallback':
      return `fallback ${textOf(e.from)} → ${textOf(e.to)}${why}`;
    case 'served':
      return `served by ${textOf(e.servedBy)}${e.degraded === true ? ' (degraded)' : ''}`;
    case 'timeout':
      return `timeout${dep} after ${wholeMs(e.timeoutMs)} ms${e.probe === true ? ' (probe)' : ''}`;
    case 'stall':
      return `stall${dep}: ${textOf(e.phase)} limit ${wholeMs(e.limitMs)} ms after ${textOf(e.items)} item(s)`;
    case 'invalid':
      return `invalid result${dep}: ${textOf(e.reason)}`;
    case 'hedge':
      return `hedge${dep}: ${textOf(e.attempts)} requests (hedged after ${wholeMs(e.afterMs)} ms); ${
        typeof e.winner === 'number'
          ? `request ${e.winner + 1} (${textOf(e.path)}) produced the first item in ${wholeMs(e.firstItemMs)} ms, ${typeof e.attempts === 'number' && e.attempts > 2 ? 'the others were' : 'the other was'} aborted`
          : 'every request failed'
      }`;
    case 'call':
    case 'attempt':
      return `${e.type}${dep} ${textOf(e.outcome)} in ${wholeMs(e.durationMs)} ms${why}`;
    case 'bulkhead_queued':
    case 'bulkhead_rejected':
      return `bulkhead${dep}: ${textOf(e.active)} of ${textOf(e.maxConcurrent)} slots taken, ${textOf(e.queued)} waiting; the call ${e.type === 'bulkhead_queued' ? 'waits in the queue' : 'is refused (the queue is full)'}`;
    case 'degradation':
      return `degradation${dep} ${textOf(e.from)} → ${textOf(e.to)} at error rate ${Number(e.errorRate).toFixed(3)}`;
    default:
      return `${e.type}${dep}${why}`;
  }
}

/** @internal Builds the log line of one event (exported for the tests and other sinks). */
export function toLogLine(e: RecourseEvent, fields?: Record<string, unknown>): LogLine {
  const dependency =
    e.type === 'fallback' ? (typeof e.from === 'string' ? e.from : undefined) : dependencyOf(e);
  const summary = e.error === undefined ? undefined : summarizeError(e.error);
  const callId = callIdOf(e);
  const line: LogLine = {
    timestamp: new Date(typeof e.at === 'number' ? e.at : Date.now()).toISOString(),
    level: levelOf(e),
    event: e.type,
    operation: e.policy,
    ...(dependency === undefined ? {} : { dependency }),
    ...(callId === undefined ? {} : { call_id: callId }),
    // Event fields such as an invalid result's reason come from user code: redact the sentence too.
    msg: redactText(describe(e, dependency, summary)),
  };
  // A call that ended in RetriesExhaustedError made `attempts` attempts, whatever its own scope says.
  const errorAttempts = safeRead(e.error, 'attempts');
  const attempt =
    e.type === 'call' && typeof errorAttempts === 'number'
      ? errorAttempts
      : typeof e.attempt === 'number'
        ? e.attempt
        : typeof e.attempts === 'number'
          ? e.attempts
          : undefined;
  if (summary !== undefined) {
    line.error = {
      ...summary,
      ...(attempt === undefined ? {} : { attempt }),
      ...(typeof e.maxAttempts === 'number' ? { maxAttempts: e.maxAttempts } : {}),
    };
  } else if (attempt !== undefined) {
    line.attempt = attempt;
    if (typeof e.maxAttempts === 'number') line.max_attempts = e.maxAttempts;
  }
  // Microseconds are noise in a log line (and performance.now() differences carry float dust).
  if (typeof e.durationMs === 'number') line.duration_ms = Math.round(e.durationMs * 1000) / 1000;
  for (const key of Object.keys(e)) {
    if (OWN.has(key)) continue;
    const raw = e[key];
    // Times and limits in whole milliseconds (a measured duration keeps its microseconds above).
    // A wait is rounded up, as CircuitOpenError.retryAfterMs is: who waits that long is never early.
    const value =
      typeof raw === 'number' && key.endsWith('Ms') && Number.isFinite(raw)
        ? key === 'retryAfterMs'
          ? Math.ceil(raw)
          : Math.round(raw)
        : redact(raw);
    if (value === undefined) continue;
    // A field named like one of the line's own (a degradation's `level`) must not replace it.
    const name = snake(key);
    line[Object.hasOwn(line, name) ? `${snake(e.type)}_${name}` : name] = value;
  }
  // A failed call's whole causal chain (attempts, paths, causes), for `recourse report` and readers.
  if (e.type === 'call' && e.outcome === 'failure' && e.error !== undefined)
    line.explain = explainJSON(e.error);
  if (fields !== undefined) {
    const extra = redact(fields) as Record<string, unknown>;
    for (const key of Object.keys(extra)) if (!(key in line)) line[key] = extra[key];
  }
  return line;
}

/**
 * A sink that writes one JSON line per event to `out` (anything with `write(string)`: a stream,
 * `process.stderr`, a pino destination such as `pino.destination(2)`). Line shape: `timestamp`
 * (ISO), `level`, `event`, `operation` (the policy kind), `dependency` (the policy's name, or the
 * instrumented call it ran inside), `call_id` (the same for every event of one logical call — its
 * outermost call — when the call started while a sink was attached), `msg`, `error` {type, message, kind, reason, retryable, status?,
 * code?, attempt?, maxAttempts?}, `duration_ms`, and the event's other fields in snake_case.
 * Secrets are redacted (see `redact`); headers, bodies and stacks of errors are never written.
 * Defaults: level 'debug' (every event).
 *
 * @example
 * const stop = subscribe(jsonLogger(process.stderr, { level: 'info', fields: { service: 'orchestrator' } }))
 */
export function jsonLogger(
  out: { write(line: string): unknown },
  options?: JsonLoggerOptions,
): (event: RecourseEvent) => void {
  if (typeof safeRead(out, 'write') !== 'function')
    throw new TypeError(
      `out must be an object with a write(line) method, e.g. process.stderr, got ${showValue(out)}`,
    );
  const o = checkOptions('jsonLogger', options, JSON_LOGGER_KEYS);
  const min = RANK[o.level === undefined ? 'debug' : checkOneOf('level', o.level, LEVELS)];
  const fields = o.fields;
  if (
    fields !== undefined &&
    (typeof fields !== 'object' || fields === null || Array.isArray(fields))
  )
    throw new TypeError(`fields must be an object, got ${showValue(fields)}`);
  return (event: RecourseEvent): void => {
    const level = levelOf(event);
    if (RANK[level] < min) return;
    out.write(`${lineOf(event, level, fields)}\n`);
  };
}

/** The JSON line of an event; an event that cannot be turned into one still leaves a line saying so. */
function lineOf(
  event: RecourseEvent,
  level: LogLevel,
  fields: Record<string, unknown> | undefined,
): string {
  try {
    return JSON.stringify(toLogLine(event, fields));
  } catch (error) {
    return JSON.stringify({
      timestamp: new Date().toISOString(),
      level,
      event: textOf(event.type),
      operation: textOf(event.policy),
      msg: redactText(`${textOf(event.type)}: this event could not be logged: ${textOf(error)}`),
    });
  }
}
