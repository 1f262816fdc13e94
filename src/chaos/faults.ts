import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Clock } from '../clock/clock.js';
import type { Fault } from './scenario.js';

/** @internal What the fault code needs to know about an SSE dialect. */
export interface StreamDialect {
  readonly ping: string;
  isTerminal(frame: string): boolean;
}

/** @internal Status line and headers of an answer about to be written. */
export interface ResponseHead {
  readonly status: number;
  readonly headers: OutgoingHttpHeaders;
}

/** @internal How one answer is written: its fault, its timing and its connection. */
export interface WritePlan {
  readonly fault: Fault | undefined;
  readonly clock: Clock;
  /** Aborts when the client's connection closes. */
  readonly signal: AbortSignal;
  /** A wait between the headers and the first byte of the body (a `latency` with `headersFirst`). */
  readonly afterHeadersMs?: number;
  /** The pacing gap before the `n`th event (0-based), on top of a `slow` fault's wait. */
  readonly gap?: (n: number) => number;
  /** The in-stream error frame a `stream-error` fault sends after `sent` events. */
  readonly errorFrame?: (sent: number) => string;
  /** Events a `stall`, `keepalive`, `truncate`, `stream-error` or `reset` fault lets through (drawn already). */
  readonly afterEvents?: number;
}

const JSON_SLOW_PIECES = 4;
const STOPS_EARLY = new Set<Fault['kind']>([
  'stall',
  'keepalive',
  'truncate',
  'stream-error',
  'reset',
]);

/**
 * @internal Writes an SSE answer frame by frame, shaped by a `stall`, `keepalive`, `truncate`,
 * `stream-error` or `slow` fault (any other fault is the caller's business and is ignored
 * here) and paced by `plan.gap`. Resolves when the answer is over: ended, or the connection
 * closed (`signal` aborted) for the faults that never end by themselves. Frames may come from
 * an upstream: stopping early returns the iterator, which lets a proxied upstream request go.
 */
export async function writeStream(
  res: ServerResponse,
  head: ResponseHead,
  frames: Iterable<string> | AsyncIterable<string>,
  dialect: StreamDialect,
  plan: WritePlan,
): Promise<void> {
  const { fault, signal, clock } = plan;
  const stopsEarly = fault !== undefined && STOPS_EARLY.has(fault.kind);
  const limit = stopsEarly ? (plan.afterEvents ?? 0) : Number.POSITIVE_INFINITY;
  const perEventMs = fault?.kind === 'slow' ? fault.perEventMs : 0;
  res.writeHead(head.status, head.headers);
  res.flushHeaders();
  if (!(await pause(clock, plan.afterHeadersMs ?? 0, signal))) return;
  let sent = 0;
  let stopped = false;
  for await (const frame of frames) {
    if (signal.aborted) return;
    // The final event is held back even when afterEvents is larger than the stream, so a
    // stall / keepalive / truncate / stream-error fault always shows.
    if (stopsEarly && (sent >= limit || dialect.isTerminal(frame))) {
      stopped = true;
      break;
    }
    if (!(await pause(clock, perEventMs + (plan.gap?.(sent) ?? 0), signal))) return;
    res.write(frame);
    sent++;
  }
  if (signal.aborted) return;
  if (!stopped) {
    res.end();
    return;
  }
  await holdOpen(res, plan, dialect.ping, sent);
}

/**
 * @internal Writes a JSON answer, shaped by the same faults as {@link writeStream}: `stall`
 * sends the headers only, `keepalive` sends a space (valid JSON whitespace) every `intervalMs`,
 * `truncate` sends the first half of the body and ends, `slow` sends the body in pieces.
 */
export async function writeJson(
  res: ServerResponse,
  head: ResponseHead,
  body: string,
  plan: WritePlan,
): Promise<void> {
  const { fault, signal, clock } = plan;
  const length = String(Buffer.byteLength(body));
  const afterHeaders = plan.afterHeadersMs ?? 0;
  const open = async (headers: OutgoingHttpHeaders): Promise<boolean> => {
    res.writeHead(head.status, headers);
    if (afterHeaders <= 0) return true;
    res.flushHeaders();
    return pause(clock, afterHeaders, signal);
  };
  switch (fault?.kind) {
    case 'stall':
      res.writeHead(head.status, { ...head.headers, 'content-length': length });
      res.flushHeaders();
      return waitForAbort(signal);
    case 'keepalive':
      // No content-length: the body never completes, so the client must not expect a size.
      res.writeHead(head.status, head.headers);
      res.flushHeaders();
      return holdOpen(res, plan, ' ', 0);
    case 'truncate':
      // Chunked, so the body ends cleanly and the client sees half a JSON document, not a
      // connection error.
      if (await open(head.headers)) res.end(body.slice(0, Math.floor(body.length / 2)));
      return;
    case 'slow': {
      if (!(await open({ ...head.headers, 'content-length': length }))) return;
      const size = Math.max(1, Math.ceil(body.length / JSON_SLOW_PIECES));
      for (let i = 0; i < body.length; i += size) {
        if (!(await pause(clock, fault.perEventMs, signal))) return;
        res.write(body.slice(i, i + size));
      }
      res.end();
      return;
    }
    default:
      if (await open({ ...head.headers, 'content-length': length })) res.end(body);
  }
}

/** @internal A JSON body made invalid while keeping its look: a key with no value at the end. */
export function malformJson(body: string): string {
  return `${body.slice(0, -1)},"chaos":}`;
}

/**
 * @internal Broken SSE: the first frame intact, then the second frame's data cut in half; the
 * stream then ends.
 */
export function malformFrames(frames: readonly string[]): string[] {
  const [first, second] = frames;
  if (first === undefined) return [];
  const victim = second ?? first;
  const at = victim.indexOf('data:');
  const json = victim.slice(at + 5).trimEnd();
  const broken = `${victim.slice(0, at + 5)}${json.slice(0, Math.max(1, Math.floor(json.length / 2)))}\n\n`;
  return second === undefined ? [broken] : [first, broken];
}

/**
 * @internal Waits `ms` on `clock` unless `signal` aborts first. Resolves `true` when the time
 * passed, `false` when aborted, so callers can stop writing to a closed connection. No wait at
 * all (no timer) for 0 ms.
 */
export function pause(clock: Clock, ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return clock.sleep(ms, signal).then(
    () => !signal.aborted,
    () => false,
  );
}

/** @internal Resolves when `signal` aborts: a stalled answer lasts as long as its connection. */
export function waitForAbort(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    signal.addEventListener('abort', () => resolve(), { once: true }),
  );
}

async function holdOpen(
  res: ServerResponse,
  plan: WritePlan,
  ping: string,
  sent: number,
): Promise<void> {
  const { fault, signal, clock } = plan;
  if (fault?.kind === 'truncate') {
    res.end();
    return;
  }
  if (fault?.kind === 'reset') {
    // A connection reset mid-stream: no clean end of the chunked body, the socket goes once the
    // events written so far are flushed (a plain destroy would drop them). Node 24 keeps the
    // latest writes in the response until the next tick, so the socket ends only after a write's
    // callback says they reached it (ending it at once sent nothing, not even the headers).
    const socket = res.socket;
    if (socket === null || res.destroyed) {
      res.destroy();
      return;
    }
    await new Promise<void>((resolve) => res.write('', () => resolve()));
    socket.destroySoon();
    return;
  }
  if (fault?.kind === 'stream-error') {
    // The real APIs close the stream after the error event; the HTTP status stays 200.
    res.end(plan.errorFrame?.(sent) ?? '');
    return;
  }
  if (fault?.kind !== 'keepalive') return waitForAbort(signal);
  const interval = fault.intervalMs ?? 1000;
  while (await pause(clock, interval, signal)) res.write(ping);
}
