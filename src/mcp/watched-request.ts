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

/**
 * @internal Runs one MCP request under an idle limit that each progress notification resets and a
 * total cap. On a stall, a timeout or the caller's abort it aborts the SDK's request (the SDK then
 * sends `notifications/cancelled` to the server and drops the response) and rejects with
 * `StallError` (phase `idle`, `items` = progress notifications seen) or `TimeoutError`, emitting
 * `stall` / `timeout` named after the tool (ARCHITECTURE.md §P7: the work underneath is stopped).
 */
export function watchedRequest<T>(
  run: (options: RequestOptions) => Promise<T>,
  limits: RequestLimits,
  signal: AbortSignal | undefined,
  label: RequestLabel,
  events: Emitter,
): Promise<T> {
  const controller = new AbortController();
  let progress = 0;
  const fail = (error: Error): void => {
    if (label.unsafe) {
      error.message += UNKNOWN;
      Object.defineProperty(error, classifiedAs, { value: OUTCOME_UNKNOWN });
    }
    controller.abort(error);
  };
  const onIdle = (): void => {
    if (events.wants('stall'))
      events.emit('stall', {
        phase: 'idle',
        limitMs: limits.idleMs,
        items: progress,
        name: label.name,
      });
    const error = new StallError('idle', limits.idleMs, progress);
    error.message = `MCP ${label.what}: no result and no progress notification for ${wholeMs(limits.idleMs)} ms (${progress} notification(s) before)`;
    fail(error);
  };
  const onTotal = (): void => {
    if (events.wants('timeout'))
      events.emit('timeout', { timeoutMs: limits.timeoutMs, probe: false, name: label.name });
    fail(
      new TimeoutError(
        limits.timeoutMs,
        `MCP ${label.what}: no result within ${wholeMs(limits.timeoutMs)} ms`,
      ),
    );
  };
  const idleForever = !Number.isFinite(limits.idleMs);
  let idle = idleForever ? undefined : setTimeout(onIdle, limits.idleMs);
  const total = Number.isFinite(limits.timeoutMs)
    ? setTimeout(onTotal, limits.timeoutMs)
    : undefined;
  const onAbort = (): void => controller.abort(signal?.reason);
  if (signal !== undefined) {
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  }
  const options: RequestOptions = {
    signal: controller.signal,
    timeout: SDK_TIMEOUT_MS,
    onprogress: () => {
      progress++;
      if (idle === undefined || controller.signal.aborted) return;
      clearTimeout(idle);
      idle = setTimeout(onIdle, limits.idleMs);
    },
  };
  const settle = (): void => {
    clearTimeout(idle);
    clearTimeout(total);
    signal?.removeEventListener('abort', onAbort);
  };
  return run(options).then(
    (value) => {
      settle();
      return value;
    },
    (error: unknown) => {
      settle();
      // The SDK rejects an aborted request with its own wrapper: the reason is the real error.
      throw controller.signal.aborted ? controller.signal.reason : error;
    },
  );
}
