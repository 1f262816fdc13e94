import { reportRequestTokens } from '../governor/attempt-signals.js';
import { type WatchLimits, watchWith } from '../watch/watcher.js';
import { IncompleteStreamError } from './incomplete-stream-error.js';
import type { ModelWire } from './model-wire.js';

/** @internal What one request of a call needs besides the wire: its SDK options and who hears its headers. */
export interface RequestHooks<I> {
  readonly requestOptions: Readonly<Record<string, unknown>> | undefined;
  readonly onHeaders: ((headers: unknown) => void) | undefined;
  /** Sees every item, after the wire's end did. */
  readonly handle: (item: I) => void;
}

/**
 * @internal One request of `wire` under `watch`, read to its end: resolves with the wire's result
 * once its end says the call finished, else rejects (`IncompleteStreamError` for a stream that
 * ended early, the failure a finished stream reported, a stall, the caller's abort, an SDK error,
 * a throw from `handle`). On any failure the request is aborted and stopped first: it must not
 * live on, whatever happened (§P7).
 */
export async function readRequest<C, Q, I, R>(
  wire: ModelWire<C, Q, I, R>,
  client: C,
  request: Q,
  limits: WatchLimits<I>,
  hooks: RequestHooks<I>,
): Promise<R> {
  const controller = new AbortController();
  // A hedged attempt that loses is aborted: what its request may still cost is reported.
  if (wire.facts.estimate !== undefined) reportRequestTokens(wire.facts.estimate(request).input);
  const { onHeaders, handle } = hooks;
  const sent = wire.start(client, request, {
    signal: controller.signal,
    onHeaders,
    requestOptions: hooks.requestOptions,
  });
  const end = wire.end(client, request);
  let items = 0;
  let last: string | undefined;
  let partial: unknown;
  const incomplete = (cause?: unknown): IncompleteStreamError =>
    new IncompleteStreamError(
      items,
      last,
      partial,
      wire.expectedEnd,
      cause === undefined ? undefined : { cause },
    );
  const stop = (): void => {
    controller.abort();
    sent.stop?.();
  };
  try {
    for await (const item of watchWith(sent.items, limits)) {
      if (items === 0 && onHeaders !== undefined && sent.headers !== undefined)
        onHeaders(sent.headers());
      items++;
      last = wire.itemType(item);
      // Kept per item: the SDKs drop their snapshot when the stream ends, complete or not.
      if (sent.snapshot !== undefined) partial = sent.snapshot(item) ?? partial;
      const verdict = end.see(item);
      if (verdict === 'cut') throw incomplete();
      handle(item);
      if (verdict === 'done') break;
    }
  } catch (error) {
    stop();
    // The SDK's helper ends an unfinished stream with a complaint of its own.
    if (!end.finished && wire.cutShort?.(error) === true) throw incomplete(error);
    throw error;
  }
  if (end.failure !== undefined) throw end.failure;
  if (!end.finished) {
    stop();
    throw incomplete();
  }
  return sent.result();
}
