import { redact, redactText } from '../telemetry/redact.js';
import {
  DESCRIBED_TYPES,
  type ExplainNode,
  KNOWN_EVENT_TYPES,
  type LogEvent,
  type LoggedError,
} from './log-event.js';

/** What the reader left out, so the page can say so. */
export interface SkippedLines {
  /** Lines that are not JSON (1-based line numbers, the first 20). */
  malformed: number[];
  malformedCount: number;
  /** JSON lines without an `event` name or a readable `timestamp` (the first 20). */
  notEvents: number[];
  notEventsCount: number;
  /** Events of types the report does not draw: type, count and first line. */
  unknownTypes: Array<{ type: string; count: number; firstLine: number }>;
}

/** A log read into events, oldest first. */
export interface EventLog {
  events: LogEvent[];
  /** Non-empty lines read. */
  lines: number;
  skipped: SkippedLines;
  /** Places where the log goes back in time: events earlier than the event before them (all are sorted into place). */
  outOfOrder: number;
}

const MAX_LISTED = 20;
// Keys the reader turns into LogEvent fields; everything else goes to `extra`.
const CONSUMED = new Set([
  'timestamp',
  'at',
  'level',
  'event',
  'operation',
  'dependency',
  'call_id',
  'attempt',
  'max_attempts',
  'duration_ms',
  'delay_ms',
  'outcome',
  'from',
  'to',
  'served_by',
  'degraded',
  'phase',
  'reason',
  'error',
  'explain',
  'msg',
]);
const MAX_EXPLAIN_DEPTH = 16;
const MAX_EXPLAIN_CHILDREN = 50;

type Bag = Record<string, unknown>;

const isBag = (v: unknown): v is Bag => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : undefined;

/**
 * Redacts strings once each: a log repeats the same messages thousands of times, and the
 * redaction rules are a dozen regular expressions.
 */
class Redactor {
  readonly #cache = new Map<string, string>();

  text(value: unknown): string | undefined {
    if (typeof value !== 'string') return undefined;
    let out = this.#cache.get(value);
    if (out === undefined) {
      out = redactText(value.length > 4000 ? `${value.slice(0, 4000)}…` : value);
      if (this.#cache.size < 200_000) this.#cache.set(value, out);
    }
    return out;
  }
}

/** An error's type, message and classification as a log line holds them (in `error` or an explain node). */
function errorFields(value: Bag, r: Redactor): LoggedError {
  const out: LoggedError = {
    type: r.text(value.type) ?? 'Error',
    message: r.text(value.message) ?? '',
  };
  const kind = r.text(value.kind);
  const reason = r.text(value.reason);
  const code = r.text(value.code);
  const status = num(value.status);
  if (kind !== undefined) out.kind = kind;
  if (reason !== undefined) out.reason = reason;
  if (code !== undefined) out.code = code;
  if (status !== undefined) out.status = status;
  return out;
}

function loggedError(value: unknown, r: Redactor): LoggedError | undefined {
  if (!isBag(value))
    return typeof value === 'string' ? { type: 'Error', message: r.text(value)! } : undefined;
  return errorFields(value, r);
}

/** A flat record of a log line: strings redacted once each (cached), numbers and booleans as they are. */
function scalars(bag: Bag, r: Redactor): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(bag)) {
    const v = bag[key];
    out[key] =
      typeof v === 'string' ? r.text(v) : typeof v === 'object' && v !== null ? redact(v) : v;
  }
  return out;
}

function explainNode(value: unknown, r: Redactor, depth: number): ExplainNode | undefined {
  if (!isBag(value) || depth > MAX_EXPLAIN_DEPTH) return undefined;
  const node: ExplainNode = { ...errorFields(value, r), children: [] };
  const label = r.text(value.label);
  if (label !== undefined) node.label = label;
  if (isBag(value.details)) node.details = scalars(value.details, r);
  if (Array.isArray(value.issues)) {
    node.issues = value.issues.slice(0, MAX_EXPLAIN_CHILDREN).flatMap((i) => {
      if (!isBag(i)) return [];
      const path = r.text(i.path);
      return [{ message: r.text(i.message) ?? '', ...(path === undefined ? {} : { path }) }];
    });
  }
  if (Array.isArray(value.children)) {
    for (const child of value.children.slice(0, MAX_EXPLAIN_CHILDREN)) {
      const c = explainNode(child, r, depth + 1);
      if (c !== undefined) node.children.push(c);
    }
  }
  return node;
}

function timeOf(line: Bag): number | undefined {
  if (typeof line.timestamp === 'string') {
    const t = Date.parse(line.timestamp);
    return Number.isFinite(t) ? t : undefined;
  }
  return num(line.timestamp) ?? num(line.at);
}

function toEvent(line: Bag, lineNo: number, type: string, at: number, r: Redactor): LogEvent {
  const error = loggedError(line.error, r);
  const errorBag = isBag(line.error) ? line.error : undefined;
  const event: LogEvent = { line: lineNo, at, type };
  const dependency = r.text(line.dependency);
  if (dependency !== undefined) event.dependency = dependency;
  const call = typeof line.call_id === 'number' ? String(line.call_id) : r.text(line.call_id);
  if (call !== undefined && call !== '') event.callId = call;
  const attempt = num(line.attempt) ?? num(errorBag?.attempt);
  if (attempt !== undefined) event.attempt = attempt;
  const maxAttempts = num(line.max_attempts) ?? num(errorBag?.maxAttempts);
  if (maxAttempts !== undefined) event.maxAttempts = maxAttempts;
  const duration = num(line.duration_ms);
  if (duration !== undefined && duration >= 0) event.durationMs = duration;
  const delay = num(line.delay_ms);
  if (delay !== undefined && delay >= 0) event.delayMs = delay;
  for (const key of ['outcome', 'from', 'to', 'phase', 'reason'] as const) {
    const v = r.text(line[key]);
    if (v !== undefined) event[key] = v;
  }
  // The sentence is shown only for types the report has no words of its own for; it differs on
  // every line (delays, durations), so redacting it for every event would be most of the work.
  if (!DESCRIBED_TYPES.has(type)) {
    const msg = r.text(line.msg);
    if (msg !== undefined) event.msg = msg;
  }
  const servedBy = r.text(line.served_by);
  if (servedBy !== undefined) event.servedBy = servedBy;
  if (typeof line.degraded === 'boolean') event.degraded = line.degraded;
  // jsonLogger writes a degradation event's level index over the line's severity `level`.
  const level = num(line.degradation_level) ?? num(line.level);
  if (level !== undefined) event.level = level;
  if (error !== undefined) event.error = error;
  const explain = explainNode(line.explain, r, 0);
  if (explain !== undefined) event.explain = explain;
  for (const key of Object.keys(line)) {
    if (CONSUMED.has(key)) continue;
    const v = line[key];
    event.extra ??= {};
    event.extra[key] =
      typeof v === 'string' ? r.text(v) : typeof v === 'object' && v !== null ? redact(v) : v;
  }
  return event;
}

/**
 * @internal Reads an event log one line at a time, so a log of any size is read without holding
 * its text: {@link parseEventLog} feeds it a string, `readEventLogFile` a file in chunks.
 */
export class EventLogParser {
  readonly #r = new Redactor();
  readonly #events: LogEvent[] = [];
  readonly #skipped: SkippedLines = {
    malformed: [],
    malformedCount: 0,
    notEvents: [],
    notEventsCount: 0,
    unknownTypes: [],
  };
  readonly #unknown = new Map<string, { type: string; count: number; firstLine: number }>();
  #lines = 0;
  #outOfOrder = 0;
  #previous = Number.NEGATIVE_INFINITY;

  /** Line `lineNo` (from 1) of the log, without its line break. */
  line(text: string, lineNo: number): void {
    const raw = text.trim();
    if (raw === '') return;
    this.#lines++;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      this.#malformed(lineNo);
      return;
    }
    const skipped = this.#skipped;
    const at = isBag(parsed) ? timeOf(parsed) : undefined;
    if (
      !isBag(parsed) ||
      typeof parsed.event !== 'string' ||
      parsed.event === '' ||
      at === undefined
    ) {
      if (skipped.notEvents.length < MAX_LISTED) skipped.notEvents.push(lineNo);
      skipped.notEventsCount++;
      return;
    }
    const type = parsed.event;
    if (!KNOWN_EVENT_TYPES.has(type)) {
      const seen = this.#unknown.get(type);
      if (seen === undefined)
        this.#unknown.set(type, {
          type: this.#r.text(type.slice(0, 80))!,
          count: 1,
          firstLine: lineNo,
        });
      else seen.count++;
      return;
    }
    if (at < this.#previous) this.#outOfOrder++;
    this.#previous = at;
    this.#events.push(toEvent(parsed, lineNo, type, at, this.#r));
  }

  /** Counts line `lineNo` as not JSON without reading it (a line too long to hold). */
  tooLong(lineNo: number): void {
    this.#lines++;
    this.#malformed(lineNo);
  }

  #malformed(lineNo: number): void {
    const skipped = this.#skipped;
    if (skipped.malformed.length < MAX_LISTED) skipped.malformed.push(lineNo);
    skipped.malformedCount++;
  }

  /** The log read so far, sorted by time. */
  finish(): EventLog {
    const skipped = this.#skipped;
    skipped.unknownTypes = [...this.#unknown.values()];
    const events = this.#events;
    if (this.#outOfOrder > 0) events.sort((a, b) => a.at - b.at);
    return { events, lines: this.#lines, skipped, outOfOrder: this.#outOfOrder };
  }
}

/**
 * Reads a JSON-lines event log written by `jsonLogger`: one event per line. A line that is not
 * JSON, a JSON line that is not an event and an event of a type the report does not draw are
 * skipped and counted (with line numbers); events out of time order are sorted into place (the
 * sort is stable, so events of one millisecond keep their order). Every string is redacted.
 *
 * @example
 * const log = parseEventLog(readFileSync('run.jsonl', 'utf8'))
 * log.skipped.malformedCount // 0
 */
export function parseEventLog(text: string): EventLog {
  const parser = new EventLogParser();
  let lineNo = 0;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    parser.line(text.slice(start, end), ++lineNo);
    start = end + 1;
  }
  return parser.finish();
}
