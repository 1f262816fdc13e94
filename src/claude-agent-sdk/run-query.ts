import {
  type Options,
  type SDKMessage,
  type SDKResultMessage,
  type SDKResultSuccess,
  type SDKUserMessage,
  query as sdkQuery,
} from '@anthropic-ai/claude-agent-sdk';
import type { Clock } from '../clock/clock.js';
import { systemClock } from '../clock/clock.js';
import { untilAborted } from '../context/until-aborted.js';
import { abortReason } from '../errors/abort-error.js';
import { isStallError } from '../errors/stall-error.js';
import {
  checkClock,
  checkFunction,
  checkMs,
  checkOptions,
  checkSignal,
  type OptionKeys,
} from '../options/validate-options.js';
import { checkResult, checkValidator, type ResultValidator } from '../validate/check-result.js';
import { QUIET_IDLE_MS, WRITING_IDLE_MS } from '../watch/stall-defaults.js';
import { resolveStallLimits, type StallDefaults } from '../watch/stream-limits.js';
import { type WatchLimits, watchWith } from '../watch/watcher.js';
import { emitModelFallback, isModelFallbackMessage } from './agent-events.js';
import { agentResultError, noResultError } from './agent-outcome.js';
import { type CliProcessGuard, cliProcessGuard } from './cli-process-guard.js';
import {
  checkStallOptions,
  STALL_OPTION_KEYS,
  type StallOptions,
} from '../options/stall-options.js';

/**
 * What `runQuery` needs of a running query: the SDK's `Query`, structurally.
 *
 * @example
 * const q: QueryLike = query({ prompt: 'hi' })
 */
export interface QueryLike extends AsyncIterable<SDKMessage> {
  close?(): void;
}

/**
 * The SDK's `query` function, or one injected in its place (another copy of the SDK).
 *
 * @example
 * import { query } from '@anthropic-ai/claude-agent-sdk' // resolved from your app, not from recourse
 * await runQuery(params, { query, idleMs: 20_000 })
 */
export type QueryFunction = (params: {
  prompt: string | AsyncIterable<SDKUserMessage>;
  options?: Options;
}) => QueryLike;

/**
 * The first argument of {@link runQuery}: exactly what the SDK's `query()` takes.
 *
 * @example
 * const params: RunQueryParams = { prompt: 'Fix the test', options: { env: agentEnv(), persistSession: false } }
 */
export interface RunQueryParams {
  prompt: string | AsyncIterable<SDKUserMessage>;
  options?: Options;
}

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

// The CLI is up and has said so (system/init) within 1.8 s in every run measured.
const FIRST_MESSAGE_MS = 60_000;
const noop = (): void => {};
// After its own stream watchdog the CLI retries without streaming and emits a synthetic ping
// meanwhile: counting those as progress would hide a stall from any idleMs above their period.
const notPing = (m: SDKMessage): boolean =>
  !(m.type === 'stream_event' && (m.event as { type: string }).type === 'ping');

/** The model is writing text (with partial messages on): the next token is due within moments. */
function writing(m: SDKMessage): boolean {
  if (m.type !== 'stream_event' || m.event.type !== 'content_block_delta') return false;
  const type = (m.event.delta as { type: string }).type;
  return type === 'text_delta' || type === 'citations_delta';
}

const DEFAULTS: StallDefaults<SDKMessage> = {
  firstItemMs: FIRST_MESSAGE_MS,
  idleMs: (m) => (writing(m) ? WRITING_IDLE_MS : QUIET_IDLE_MS),
  // CLI start-up counts toward the first message: never less than the default for it.
  firstFromIdle: (idleMs) => Math.max(idleMs, FIRST_MESSAGE_MS),
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
  const queryFn =
    o.query === undefined
      ? (sdkQuery as QueryFunction)
      : checkFunction<QueryFunction>('query', o.query);
  const limits: WatchLimits<SDKMessage> = {
    ...resolveStallLimits(checkStallOptions('runQuery', o), DEFAULTS, {
      model:
        typeof params.options?.model === 'string' && params.options.model !== ''
          ? params.options.model
          : undefined,
    }),
    signal: undefined,
    isProgress: o.isProgress === undefined ? notPing : checkFunction('isProgress', o.isProgress),
    clock: checkClock<Clock>('clock', o.clock ?? systemClock),
    name: undefined,
  };
  const onMessage =
    o.onMessage === undefined
      ? undefined
      : checkFunction<(m: SDKMessage) => void>('onMessage', o.onMessage);
  const validator =
    o.validate === undefined ? undefined : checkValidator<SDKResultSuccess>('validate', o.validate);
  const exitGraceMs = o.exitGraceMs === undefined ? 5000 : checkMs('exitGraceMs', o.exitGraceMs);
  if (signal?.aborted) throw abortReason(signal);

  const sdkOptions: Options = { ...params.options };
  const userController = sdkOptions.abortController;
  const controller = new AbortController();
  // The caller's own abortController (if any) cancels like `signal` does.
  const callerSignals = [signal, userController?.signal].filter(
    (s): s is AbortSignal => s !== undefined,
  );
  const callerSignal = callerSignals.length > 1 ? AbortSignal.any(callerSignals) : callerSignals[0];
  limits.signal = callerSignal;
  const guard = cliProcessGuard({
    ...(sdkOptions.spawnClaudeCodeProcess === undefined
      ? {}
      : { spawn: sdkOptions.spawnClaudeCodeProcess }),
    ...(sdkOptions.stderr === undefined ? {} : { stderr: sdkOptions.stderr }),
    ...(o.killGraceMs === undefined ? {} : { graceMs: checkMs('killGraceMs', o.killGraceMs) }),
  });
  sdkOptions.abortController = controller;
  sdkOptions.spawnClaudeCodeProcess = guard.spawn;
  sdkOptions.includePartialMessages ??= true;

  let q: QueryLike | undefined;
  let stopped = false;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    // The order the SDK documents: abort, then close; then make sure the CLI is really gone.
    controller.abort();
    try {
      q?.close?.();
    } catch {
      // close() on a query that already ended throws nothing useful to the caller.
    }
    guard.terminate().catch(noop);
  };

  let result: SDKResultMessage | undefined;
  let sdkError: { error: unknown } | undefined;
  try {
    q = queryFn({ prompt: params.prompt, options: sdkOptions });
  } catch (error) {
    // Bad options and the like: a bug to surface as it is, not an agent failure.
    stop();
    throw error;
  }
  const singleTurn = typeof params.prompt === 'string';
  let callbackFailed = false;
  try {
    for await (const message of watchWith<SDKMessage>(q, limits)) {
      if (onMessage !== undefined) {
        try {
          onMessage(message);
        } catch (error) {
          callbackFailed = true;
          throw error;
        }
      }
      if (isModelFallbackMessage(message))
        emitModelFallback(message as unknown as Record<string, unknown>);
      if (message.type === 'result') {
        result = message;
        // A single prompt has one turn: its result decides, whatever the CLI does while exiting.
        if (singleTurn) break;
      }
    }
  } catch (error) {
    if (callbackFailed || isStallError(error) || callerSignal?.aborted) {
      // Prompt: reject now; the CLI is stopped in the background and gone within ~100 ms.
      stop();
      throw error;
    }
    // Usually "Claude Code returned an error result", right after that result: the result has
    // the status and the subtype, the exception does not.
    sdkError = { error };
  }
  // The turn is over: wait (briefly) for the CLI to exit by itself, so none outlives the call.
  await settleCli(guard, exitGraceMs, callerSignal);

  const failure =
    result === undefined
      ? noResultError(sdkError?.error)
      : (agentResultError(result, sdkError?.error) ?? (sdkError && noResultError(sdkError.error)));
  if (failure !== undefined) throw failure;
  const success = result as SDKResultSuccess;
  return validator === undefined ? success : checkResult(validator, success);
}

/** Waits for the CLI to exit (terminating it after `ms`); a caller abort cuts the wait short. */
async function settleCli(
  guard: CliProcessGuard,
  ms: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  if (!guard.alive) return;
  try {
    await untilAborted(guard.stopAfter(ms), signal);
  } catch (error) {
    guard.terminate().catch(noop);
    throw error;
  }
}
