import type { ModelRequest, ModelResponse, StreamEvent } from '@openai/agents';
import type { RateLimiter } from '../governor/rate-limiter.js';
import type { SpendLimit } from '../governor/spend-limit.js';
import { governedCall, governRequest } from '../model-stream/governed-call.js';
import { type OpenedLimits, OpenedStream } from '../model-stream/opened-stream.js';
import type { Policy } from '../policy/policy.js';
import { agentsWire, type ModelSource, responseFacts, type SourceCall } from './agents-wire.js';

/** @internal How one path's requests run: stall limits of streams, the bound of `getResponse`, the governor. */
export interface PathLimits {
  readonly stream: OpenedLimits<StreamEvent>;
  readonly respond: Policy | undefined;
  readonly limiter: RateLimiter | undefined;
  readonly spendLimit: SpendLimit | undefined;
}

/** @internal One `getResponse` request, under the governor, bounded by `limits.respond` (a `timeout`). */
export function respondOnce(
  source: ModelSource,
  request: ModelRequest,
  limits: PathLimits,
  policySignal: AbortSignal | undefined,
): Promise<ModelResponse> {
  const signal = policySignal ?? request.signal;
  return governedCall(
    { facts: responseFacts },
    { source, onHeaders: undefined },
    request,
    { signal, limiter: limits.limiter, spendLimit: limits.spendLimit },
    (onHeaders) => {
      const model = source.make(onHeaders);
      const send = (s: AbortSignal | undefined) =>
        Promise.resolve(model.getResponse(s === undefined ? request : { ...request, signal: s }));
      if (limits.respond === undefined) return send(signal);
      return limits.respond.execute(
        (ctx) => send(ctx.signal),
        signal === undefined ? undefined : { signal },
      );
    },
  );
}

/** @internal A stream request read up to its first part of output, and the end of its governance. */
export interface StreamAttempt {
  readonly stream: OpenedStream<SourceCall, ModelRequest, StreamEvent, undefined>;
  /** The stream ended: with its `response_done` event's response, or `undefined` when the reader stopped early. */
  ended(response: unknown): void;
  failed(error: unknown): void;
}

/**
 * @internal One stream request, under the governor for its whole life (the limiter's permit and
 * the spend limit hear its end), read up to its first part of output (see {@link OpenedStream}).
 */
export async function openStream(
  source: ModelSource,
  request: ModelRequest,
  limits: PathLimits,
  policySignal: AbortSignal | undefined,
): Promise<StreamAttempt> {
  const governed = await governRequest({ facts: agentsWire.facts }, request, {
    signal: policySignal ?? request.signal,
    limiter: limits.limiter,
    spendLimit: limits.spendLimit,
  });
  let stream: StreamAttempt['stream'];
  try {
    stream = await new OpenedStream(
      agentsWire,
      { source, onHeaders: governed.onHeaders },
      request,
      limits.stream,
      request.signal,
    ).open(policySignal);
  } catch (error) {
    governed.failed(error);
    throw error;
  }
  let settled = false;
  return {
    stream,
    ended(response) {
      if (settled) return;
      settled = true;
      governed.done(response, responseFacts.outcome(response as ModelResponse));
    },
    failed(error) {
      if (settled) return;
      settled = true;
      governed.failed(error);
    },
  };
}

/**
 * @internal The events of an opened stream for the SDK's runner: a stall, an in-stream error or
 * an early end throws from the iteration (the runner's turn fails instead of using a partial
 * answer); `decorate` may replace an event (fallback ladders add their report to `response_done`).
 */
export async function* streamEvents(
  attempt: StreamAttempt,
  decorate?: (event: StreamEvent) => StreamEvent,
): AsyncGenerator<StreamEvent> {
  const reader = attempt.stream.readable(decorate).getReader();
  let response: unknown;
  try {
    for (;;) {
      let next: IteratorResult<StreamEvent, undefined>;
      try {
        next = (await reader.read()) as IteratorResult<StreamEvent, undefined>;
      } catch (error) {
        attempt.failed(error);
        throw error;
      }
      if (next.done) break;
      if (next.value.type === 'response_done') response = next.value.response;
      yield next.value;
    }
  } finally {
    attempt.ended(response);
    reader.cancel().catch(() => {});
  }
}
