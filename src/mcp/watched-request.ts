import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { classifiedAs } from '../classify/declared.js';
import { StallError } from '../errors/stall-error.js';
import { TimeoutError } from '../errors/timeout-error.js';
import type { Emitter } from '../events/emitter.js';
import { wholeMs } from '../text/whole-ms.js';
import { OUTCOME_UNKNOWN } from './tool-outcome-unknown-error.js';

/** @internal The limits of one request: silence and total time, ms. */
export interface RequestLimits {
  readonly idleMs: number;
  readonly timeoutMs: number;
}

/** @internal What a request is, for its errors and events. */
export interface RequestLabel {
  /** `server/tool`: the dependency in events. */
  readonly name: string;
  /** `tool x on server y` (or `tools/list on …`), for messages. */
  readonly what: string;
  /** The request may have had an effect and will not be repeated: errors say the outcome is unknown. */
  readonly unsafe: boolean;
}

/** The SDK's own request timer must never fire first: ours decide (the largest timer Node holds). */
const SDK_TIMEOUT_MS = 2 ** 31 - 1;

const UNKNOWN =
  ': outcome unknown (the tool may have run), not retried because it is not marked readOnlyHint or idempotentHint';

/** One request in flight: its limits, its progress and the one timer that watches both. */
class Watch {
  readonly controller = new AbortController();
  readonly limits: RequestLimits;
  readonly label: RequestLabel;
  readonly events: Emitter;
  readonly endsAt: number;
  progress = 0;
  lastProgress: number;
  timer: ReturnType<typeof setTimeout> | undefined;

  constructor(limits: RequestLimits, label: RequestLabel, events: Emitter) {
    this.limits = limits;
    this.label = label;
    this.events = events;
    this.lastProgress = performance.now();
    this.endsAt = this.lastProgress + limits.timeoutMs;
    const first = Math.min(limits.idleMs, limits.timeoutMs);
    if (Number.isFinite(first)) this.timer = setTimeout(check, first, this);
  }

  fail(error: Error): void {
    if (this.label.unsafe) {
      error.message += UNKNOWN;
      Object.defineProperty(error, classifiedAs, { value: OUTCOME_UNKNOWN });
    }
    this.controller.abort(error);
  }

  idle(): void {
    const { limits, label } = this;
    if (this.events.wants('stall'))
      this.events.emit('stall', {
        phase: 'idle',
        limitMs: limits.idleMs,
        items: this.progress,
        name: label.name,
      });
    const error = new StallError('idle', limits.idleMs, this.progress);
    error.message = `MCP ${label.what}: no result and no progress notification for ${wholeMs(limits.idleMs)} ms (${this.progress} notification(s) before)`;
    this.fail(error);
  }

  total(): void {
    const { limits, label } = this;
    if (this.events.wants('timeout'))
      this.events.emit('timeout', { timeoutMs: limits.timeoutMs, probe: false, name: label.name });
    this.fail(
      new TimeoutError(
        limits.timeoutMs,
        `MCP ${label.what}: no result within ${wholeMs(limits.timeoutMs)} ms`,
      ),
    );
  }
}

/**
 * One timer per request, whatever the progress: a notification only notes its time, and the
 * timer, when it fires, sleeps on for the rest of the idle limit (ARCHITECTURE.md §P10).
 */
function check(w: Watch): void {
  const now = performance.now();
  const idleLeft = w.lastProgress + w.limits.idleMs - now;
  const totalLeft = w.endsAt - now;
  if (totalLeft <= 0 && totalLeft <= idleLeft) w.total();
  else if (idleLeft <= 0) w.idle();
  else w.timer = setTimeout(check, Math.min(idleLeft, totalLeft), w);
}

/**
 * @internal Runs one MCP request under an idle limit that each progress notification resets and a
 * total cap. On a stall, a timeout or the caller's abort it aborts the SDK's request (the SDK then
 * sends `notifications/cancelled` to the server and drops the response) and rejects with
 * `StallError` (phase `idle`, `items` = progress notifications seen) or `TimeoutError`, emitting
 * `stall` / `timeout` named after the tool (ARCHITECTURE.md §P7: the work underneath is stopped).
 * `signal` is the caller's, when anything can abort it.
 */
export async function watchedRequest<T>(
  run: (options: RequestOptions) => Promise<T>,
  limits: RequestLimits,
  signal: AbortSignal | undefined,
  label: RequestLabel,
  events: Emitter,
): Promise<T> {
  const w = new Watch(limits, label, events);
  const controller = w.controller;
  const onAbort = signal === undefined ? undefined : (): void => controller.abort(signal.reason);
  if (signal !== undefined) {
    if (signal.aborted) controller.abort(signal.reason);
    else signal.addEventListener('abort', onAbort!, { once: true });
  }
  try {
    return await run({
      signal: controller.signal,
      timeout: SDK_TIMEOUT_MS,
      onprogress: () => {
        w.progress++;
        w.lastProgress = performance.now();
      },
    });
  } catch (error) {
    // The SDK rejects an aborted request with its own wrapper: the reason is the real error.
    throw controller.signal.aborted ? controller.signal.reason : error;
  } finally {
    clearTimeout(w.timer);
    if (onAbort !== undefined) signal!.removeEventListener('abort', onAbort);
  }
}
