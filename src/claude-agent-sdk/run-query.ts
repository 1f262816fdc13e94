import {
  type SDKMessage,
  type SDKResultSuccess,
  query as sdkQuery,
} from '@anthropic-ai/claude-agent-sdk';
import type { Clock } from '../clock/clock.js';
import { abortReason } from '../errors/abort-error.js';
import { observedCall } from '../model-stream/governed-call.js';
import { readRequest } from '../model-stream/read-request.js';
import { wireLimits } from '../model-stream/stream-options.js';
import {
  checkStallOptions,
  STALL_OPTION_KEYS,
  type StallOptions,
} from '../options/stall-options.js';
import {
  checkFunction,
  checkMs,
  checkOptions,
  checkSignal,
  type OptionKeys,
} from '../options/validate-options.js';
import { checkResult, checkValidator, type ResultValidator } from '../validate/check-result.js';
import { emitModelFallback, isModelFallbackMessage } from './agent-events.js';
import {
  type AgentRunner,
  agentWire,
  type QueryFunction,
  type RunQueryParams,
} from './agent-wire.js';

/**
 * Options of {@link runQuery}. Stall detection is on by default ({@link StallOptions}):
 * `firstItemMs` 60 s, counted from the start of the CLI (0.3–1.8 s measured; `system/init` comes
 * before any API request), or `idleMs` when only that is set and larger; `idleMs` 60 s after a
 * streamed text delta, 300 s after any other message (the CLI sends nothing while it waits on the
 * API and one `tool_progress` heartbeat per 30 s while a tool runs, measured; a model that thinks
 * with its thinking omitted streams nothing for minutes; keep-alive pings do not count); `totalMs`
 * none. Every limit takes `Infinity` to turn it off; `'adaptive'` limits learn under `adaptive`
 * (its `model` defaults to `params.options.model`).
 *
 * @example
 * const o: RunQueryOptions = { idleMs: 120_000, totalMs: 600_000, validate: (r) => r.result.trim() !== '' || 'empty answer' }
 */
export interface RunQueryOptions extends StallOptions {
  /** Caller cancellation: rejects at once with the signal's reason (an `AbortError`) and stops the CLI. */
  signal?: AbortSignal;
  /**
   * Checks a success result: a Standard Schema, or a predicate returning false or a reason
   * string; a rejection is `InvalidResultError` (retried by `retry`, like the `validate` policy).
   */
  validate?: ResultValidator<SDKResultSuccess>;
  /**
   * Which messages reset the idle clock. Default: every SDK message except keep-alive pings
   * (`stream_event` `ping`, which the CLI forwards while it waits on a request).
   */
  isProgress?: (message: SDKMessage) => boolean;
  /** Sees every SDK message as it arrives (progress UI, logs). */
  onMessage?: (message: SDKMessage) => void;
  /** The `query` function to use. Default: the one imported from `@anthropic-ai/claude-agent-sdk`. */
  query?: QueryFunction;
  /** Time between SIGTERM and SIGKILL when the CLI must stop, ms. Default 1000. */
  killGraceMs?: number;
  /** After the result, how long the CLI may take to exit by itself (it needs ~150 ms) before it is stopped, ms. Default 5000. */
  exitGraceMs?: number;
  /** Default `systemClock`. */
  clock?: Clock;
}

/** @internal Every option of {@link runQuery}, listed once (subagentPath takes them too). */
export const RUN_QUERY_KEYS: OptionKeys<RunQueryOptions> = {
  ...STALL_OPTION_KEYS,
  signal: true,
  validate: true,
  isProgress: true,
  onMessage: true,
  query: true,
  killGraceMs: true,
  exitGraceMs: true,
  clock: true,
};

/**
 * Runs a Claude Agent SDK `query()` under `watch` and resolves with its final result, only when
 * it is a success (`subtype: 'success'` and `is_error: false`). Everything else rejects with an
 * error `classify` understands: `AgentResultError` for result error subtypes, `is_error` with
 * `api_error_status` (529 → transient), `terminal_reason`s, the SDK's habit of yielding a result
 * and then throwing (the result decides), and a stream that ends with no result; `StallError`
 * for silence (phase `first-item`, `idle`, `total`); the signal's reason for a caller abort.
 * On stall, total timeout or abort it rejects at once, aborts the query's `abortController`,
 * calls `close()` and sends the CLI SIGTERM itself (SIGKILL after `killGraceMs`): the CLI is gone
 * within ~100 ms, where the SDK alone waits 2 s, then 5 s more. After a result it settles once the
 * CLI has exited (~150 ms; stopped after `exitGraceMs`), so no CLI outlives the call.
 *
 * Unless `options` says otherwise it sets `includePartialMessages: true`, so each streamed
 * token counts as progress and `idleMs` can be short even while a long answer is written.
 *
 * @example
 * const policy = pipeline(retry({ maxAttempts: 3 }), timeout(120_000))
 * const result = await policy.execute((ctx) =>
 *   runQuery({ prompt: 'Summarise the diff', options: { env: agentEnv(), persistSession: false } },
 *            { signal: ctx.signal, idleMs: 20_000 }))
 * console.log(result.result)
 */
export async function runQuery(
  params: RunQueryParams,
  options?: RunQueryOptions,
): Promise<SDKResultSuccess> {
  if (typeof params !== 'object' || params === null)
    throw new TypeError('runQuery(params) needs { prompt, options? }');
  const o = checkOptions('runQuery', options, RUN_QUERY_KEYS);
  const signal = checkSignal('signal', o.signal);
  const query =
    o.query === undefined
      ? (sdkQuery as QueryFunction)
      : checkFunction<QueryFunction>('query', o.query);
  const stall = checkStallOptions('runQuery', o);
  const onMessage =
    o.onMessage === undefined
      ? undefined
      : checkFunction<(m: SDKMessage) => void>('onMessage', o.onMessage);
  const validator =
    o.validate === undefined ? undefined : checkValidator<SDKResultSuccess>('validate', o.validate);
  const exitGraceMs = o.exitGraceMs === undefined ? 5000 : checkMs('exitGraceMs', o.exitGraceMs);
  const killGraceMs =
    o.killGraceMs === undefined ? undefined : checkMs('killGraceMs', o.killGraceMs);
  // The caller's own abortController (if any) cancels like `signal` does.
  const callerSignals = [signal, params.options?.abortController?.signal].filter(
    (s): s is AbortSignal => s !== undefined,
  );
  const callerSignal = callerSignals.length > 1 ? AbortSignal.any(callerSignals) : callerSignals[0];
  const runner: AgentRunner = { query, killGraceMs, exitGraceMs, callerSignal };
  const limits = wireLimits(agentWire, stall, agentWire.facts.model(runner, params), {
    signal: callerSignal,
    isProgress: o.isProgress,
    clock: o.clock,
  });
  if (signal?.aborted) throw abortReason(signal);
  const success = await observedCall(agentWire.facts, runner, params, () =>
    readRequest(agentWire, runner, params, limits, {
      requestOptions: undefined,
      onHeaders: undefined,
      handle: (message) => {
        onMessage?.(message);
        if (isModelFallbackMessage(message))
          emitModelFallback(message as unknown as Record<string, unknown>);
      },
    }),
  );
  return validator === undefined ? success : checkResult(validator, success);
}
