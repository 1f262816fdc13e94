import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { classifiedAs } from '../classify/declared.js';
import { StallError } from '../errors/stall-error.js';
import { TimeoutError } from '../errors/timeout-error.js';
import type { Emitter } from '../events/emitter.js';
import { safeRead } from '../text/safe-text.js';
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

/** The largest delay a Node timer holds (ARCHITECTURE.md §timers.long). */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** The SDK's `ErrorCode.RequestTimeout`: its own request timer fired (and it sent the cancellation). */
const SDK_REQUEST_TIMEOUT = -32001;

const UNKNOWN =
  ': outcome unknown (the tool may have run), not retried because it is not marked readOnlyHint or idempotentHint';

/**
 * @internal One request in flight, made only when something can end it early besides the SDK's own
 * timer: a caller's signal, or a total cap that progress could outlast. It holds the
 * AbortController the SDK listens to (aborting it makes the SDK send `notifications/cancelled`).
 */
export class Watch {
  readonly controller = new AbortController();
  readonly limits: RequestLimits;
  readonly label: RequestLabel;
  readonly events: Emitter;
  readonly options: RequestOptions;
  readonly endsAt: number;
  readonly #idleFirst: boolean;
  readonly #signal: AbortSignal | undefined;
  readonly #onAbort: (() => void) | undefined;
  progress = 0;
  timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    limits: RequestLimits,
    label: RequestLabel,
    events: Emitter,
    signal: AbortSignal | undefined,
    idleFirst: boolean,
  ) {
    this.limits = limits;
    this.label = label;
    this.events = events;
    this.#idleFirst = idleFirst;
    this.endsAt = idleFirst ? performance.now() + limits.timeoutMs : 0;
    this.options = idleFirst
      ? {
          signal: this.controller.signal,
          timeout: limits.idleMs,
          resetTimeoutOnProgress: true,
          onprogress: () => {
            this.progress++;
            if (this.timer !== undefined) return;
            // The SDK has just re-armed its idle timer for idleMs from now: the total cap matters
            // only when it comes first, so its timer is set here, for the few calls whose
            // progress runs long.
            const left = this.endsAt - performance.now();
            if (left < this.limits.idleMs) this.timer = setTimeout(expire, Math.max(0, left), this);
          },
        }
      : { signal: this.controller.signal, timeout: limits.timeoutMs };
    this.#signal = signal;
    if (signal !== undefined) {
      const controller = this.controller;
      if (signal.aborted) controller.abort(signal.reason);
      else {
        this.#onAbort = () => controller.abort(signal.reason);
        signal.addEventListener('abort', this.#onAbort, { once: true });
      }
    }
  }

  /** What the request rejects with: the abort's reason, our limit's error, or the SDK's as is. */
  failure(error: unknown): unknown {
    const signal = this.controller.signal;
    // The SDK rejects an aborted request with its own wrapper: the reason is the real error.
    if (signal.aborted) return signal.reason;
    const { limits, label, events } = this;
    if (!isSdkTimeout(error, this.#idleFirst ? limits.idleMs : limits.timeoutMs)) return error;
    // A tie goes to the total cap, as when both limits end at once.
    if (this.#idleFirst && performance.now() < this.endsAt)
      return idleError(limits, label, events, this.progress);
    return totalError(limits, label, events);
  }

  /** The request settled: our timer and our listener on the caller's signal go. */
  end(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.#onAbort !== undefined) this.#signal!.removeEventListener('abort', this.#onAbort);
  }
}

function expire(w: Watch): void {
  w.controller.abort(totalError(w.limits, w.label, w.events));
}

function marked(error: Error, label: RequestLabel): Error {
  if (label.unsafe) {
    error.message += UNKNOWN;
    Object.defineProperty(error, classifiedAs, { value: OUTCOME_UNKNOWN });
  }
  return error;
}

function idleError(
  limits: RequestLimits,
  label: RequestLabel,
  events: Emitter,
  progress: number,
): Error {
  if (events.wants('stall'))
    events.emit('stall', {
      phase: 'idle',
      limitMs: limits.idleMs,
      items: progress,
      name: label.name,
    });
  const error = new StallError('idle', limits.idleMs, progress);
  error.message = `MCP ${label.what}: no result and no progress notification for ${wholeMs(limits.idleMs)} ms (${progress} notification(s) before)`;
  return marked(error, label);
}

function totalError(limits: RequestLimits, label: RequestLabel, events: Emitter): Error {
  if (events.wants('timeout'))
    events.emit('timeout', { timeoutMs: limits.timeoutMs, probe: false, name: label.name });
  return marked(
    new TimeoutError(
      limits.timeoutMs,
      `MCP ${label.what}: no result within ${wholeMs(limits.timeoutMs)} ms`,
    ),
    label,
  );
}

/**
 * The SDK's own timer for this request fired: its RequestTimeout error carrying our limit as
 * `data.timeout` (`McpError` code -32001 in SDK 1.x; a later SDK's error may carry another code,
 * hence the message as the other witness).
 */
function isSdkTimeout(error: unknown, timeout: number): boolean {
  if (safeRead(safeRead(error, 'data'), 'timeout') !== timeout) return false;
  const message = safeRead(error, 'message');
  return (
    safeRead(error, 'code') === SDK_REQUEST_TIMEOUT ||
    (typeof message === 'string' && message.includes('Request timed out'))
  );
}

/**
 * @internal One MCP request under an idle limit that each progress notification resets and a
 * total cap: `options` go to the SDK's request, `failure` turns its rejection into ours, `end`
 * runs when it settled. The SDK's own request timer, which it arms for every request anyway, is
 * the idle limit (`resetTimeoutOnProgress`), or the total cap when that comes first: when it
 * fires, the SDK sends `notifications/cancelled` and drops the response, and the rejection becomes
 * `StallError` (phase `idle`, `items` = progress notifications seen) or `TimeoutError`, emitting
 * `stall` / `timeout` named after the tool (ARCHITECTURE.md §P7: the work underneath is stopped).
 * An AbortController, a progress token and a timer of our own exist only where needed
 * (ARCHITECTURE.md §P10): the controller for a caller's `signal` (when anything can abort it) or
 * a total cap that progress may outlast, the token when progress can reset a limit, the timer
 * once a call's progress runs near its total cap. A call with neither gets one shared options
 * object and nothing else.
 */
export class WatchedRequest {
  readonly limits: RequestLimits;
  readonly #plain: RequestOptions;
  readonly #idleFirst: boolean;
  readonly #long: boolean;

  constructor(limits: RequestLimits) {
    this.limits = limits;
    this.#idleFirst = limits.idleMs < limits.timeoutMs;
    // The SDK's timer cannot sleep past a platform timer (§timers.long): such limits are ours.
    this.#long = (this.#idleFirst ? limits.idleMs : limits.timeoutMs) > MAX_TIMER_MS;
    this.#plain = { timeout: limits.timeoutMs };
  }

  /** The request state of one call: undefined when the shared options do (see the class). */
  begin(signal: AbortSignal | undefined, label: RequestLabel, events: Emitter): Watch | undefined {
    if (this.#long) return new LongWatch(this.limits, label, events, signal);
    if (!this.#idleFirst && signal === undefined) return undefined;
    return new Watch(this.limits, label, events, signal, this.#idleFirst);
  }

  /** The SDK's `RequestOptions` for a call that `begin` gave no state. */
  get plain(): RequestOptions {
    return this.#plain;
  }

  /** What a call without state rejects with: our `TimeoutError` for the SDK's timer, else as is. */
  failure(error: unknown, label: RequestLabel, events: Emitter): unknown {
    return isSdkTimeout(error, this.limits.timeoutMs)
      ? totalError(this.limits, label, events)
      : error;
  }
}

/**
 * @internal Runs one MCP request with {@link WatchedRequest}'s limits (`tools/list`; `callTool`
 * inlines the same steps to spare an async frame).
 */
export async function watchedRequest<T>(
  run: (options: RequestOptions) => Promise<T>,
  watched: WatchedRequest,
  signal: AbortSignal | undefined,
  label: RequestLabel,
  events: Emitter,
): Promise<T> {
  const w = watched.begin(signal, label, events);
  if (w === undefined) {
    try {
      return await run(watched.plain);
    } catch (error) {
      throw watched.failure(error, label, events);
    }
  }
  try {
    return await run(w.options);
  } catch (error) {
    throw w.failure(error);
  } finally {
    w.end();
  }
}

/**
 * Limits beyond a platform timer: one timer of ours that sleeps in steps (§timers.long) and aborts
 * the request; the SDK's timer is set as long as it goes.
 */
class LongWatch extends Watch {
  #last = performance.now();
  readonly #until: number;

  constructor(
    limits: RequestLimits,
    label: RequestLabel,
    events: Emitter,
    signal: AbortSignal | undefined,
  ) {
    super(limits, label, events, signal, false);
    this.#until = this.#last + limits.timeoutMs;
    Object.assign(this.options, {
      timeout: MAX_TIMER_MS,
      onprogress: () => {
        this.progress++;
        this.#last = performance.now();
      },
    });
    this.timer = setTimeout(() => this.#check(), MAX_TIMER_MS);
  }

  #check(): void {
    const { limits, label, events } = this;
    const now = performance.now();
    const idleLeft = this.#last + limits.idleMs - now;
    const totalLeft = this.#until - now;
    if (totalLeft <= 0 && totalLeft <= idleLeft)
      this.controller.abort(totalError(limits, label, events));
    else if (idleLeft <= 0) this.controller.abort(idleError(limits, label, events, this.progress));
    else this.timer = setTimeout(() => this.#check(), Math.min(idleLeft, totalLeft, MAX_TIMER_MS));
  }

  override failure(error: unknown): unknown {
    return this.controller.signal.aborted ? this.controller.signal.reason : error;
  }
}
