import {
  type Options,
  type SDKMessage,
  type SDKResultMessage,
  type SDKResultSuccess,
  type SDKUserMessage,
  query as sdkQuery,
} from '@anthropic-ai/claude-agent-sdk';
import type { Clock } from '../clock/clock.js';
import { abortReason } from '../errors/abort-error.js';
import { InvalidResultError } from '../errors/invalid-result-error.js';
import { isStallError } from '../errors/stall-error.js';
import { checkClock, checkFunction, checkMs, checkOptions, checkSignal, type OptionKeys } from '../options/validate-options.js';
import { type WatchOptions, watch } from '../watch/watch.js';
import { emitModelFallback, isModelFallbackMessage } from './agent-events.js';
import { agentResultError, noResultError } from './agent-outcome.js';
import { type CliProcessGuard, cliProcessGuard } from './cli-process-guard.js';

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
export type QueryFunction = (params: { prompt: string | AsyncIterable<SDKUserMessage>; options?: Options }) => QueryLike;

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
 * Options of {@link runQuery}. Defaults: no time limit (set at least `idleMs`), no validation.
 *
 * @example
 * const o: RunQueryOptions = { idleMs: 20_000, totalMs: 600_000, validate: (r) => r.result.trim() !== '' || 'empty answer' }
 */
export interface RunQueryOptions {
  /**
   * Longest wait for the first SDK message, ms; includes the CLI's start-up (0.5–1.8 s measured here).
   * Default: `idleMs`, but at least 30 000 when `idleMs` is set.
   */
  firstMessageMs?: number;
  /**
   * Longest silence between SDK messages, ms. Default: no limit (the CLI's own watchdog waits
   * 300 s, then retries without streaming; its API timeout ends the turn after 600 s).
   */
  idleMs?: number;
  /** Longest whole query, ms; exceeded → `StallError` phase `total`. Default: no limit. */
  totalMs?: number;
  /** Caller cancellation: rejects at once with the signal's reason (an `AbortError`) and stops the CLI. */
  signal?: AbortSignal;
  /** Rejects a success result as `InvalidResultError` when it returns false or a reason string. */
  validate?: (result: SDKResultSuccess) => boolean | string;
  /**
   * Which messages reset the idle clock. Default: every SDK message except keep-alive pings
   * (`stream_event` `ping`, which the CLI sends every 30 s while it waits on a request).
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
  clock?: Clock;
}

const RUN_QUERY_KEYS: OptionKeys<RunQueryOptions> = { firstMessageMs: true, idleMs: true, totalMs: true, signal: true, validate: true, isProgress: true, onMessage: true, query: true, killGraceMs: true, exitGraceMs: true, clock: true };

const MIN_FIRST_MESSAGE_MS = 30_000;
// watch() needs one limit; with none asked for, a total no query reaches (the longest timer Node allows).
const NO_LIMIT_MS = 2_147_483_647;
const noop = (): void => {};
// After its own 300 s watchdog the CLI retries without streaming and emits a synthetic ping every
// 30 s meanwhile: counting those as progress would hide a stall from any idleMs above 30 s.
const notPing = (m: SDKMessage): boolean => !(m.type === 'stream_event' && (m.event as { type: string }).type === 'ping');

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
export async function runQuery(params: RunQueryParams, options?: RunQueryOptions): Promise<SDKResultSuccess> {
  if (typeof params !== 'object' || params === null) throw new TypeError('runQuery(params) needs { prompt, options? }');
  const o = checkOptions('runQuery', options, RUN_QUERY_KEYS);
  const signal = checkSignal('signal', o.signal);
  const queryFn = o.query === undefined ? (sdkQuery as QueryFunction) : checkFunction<QueryFunction>('query', o.query);
  const watchOptions = watchOptionsOf(o);
  const onMessage = o.onMessage === undefined ? undefined : checkFunction<(m: SDKMessage) => void>('onMessage', o.onMessage);
  const validate = o.validate === undefined ? undefined : checkFunction<(r: SDKResultSuccess) => boolean | string>('validate', o.validate);
  const exitGraceMs = o.exitGraceMs === undefined ? 5000 : checkMs('exitGraceMs', o.exitGraceMs);
  if (signal?.aborted) throw abortReason(signal);

  const sdkOptions: Options = { ...params.options };
  const userController = sdkOptions.abortController;
  const controller = new AbortController();
  // The caller's own abortController (if any) cancels like `signal` does.
  const caller = linkSignals(signal, userController?.signal);
  if (caller.signal !== undefined) watchOptions.signal = caller.signal;
  const guard = cliProcessGuard({
    ...(sdkOptions.spawnClaudeCodeProcess === undefined ? {} : { spawn: sdkOptions.spawnClaudeCodeProcess }),
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
      for await (const message of watch<SDKMessage>(q, watchOptions)) {
        if (onMessage !== undefined) {
          try {
            onMessage(message);
          } catch (error) {
            callbackFailed = true;
            throw error;
          }
        }
        if (isModelFallbackMessage(message)) emitModelFallback(message as unknown as Record<string, unknown>);
        if (message.type === 'result') {
          result = message;
          // A single prompt has one turn: its result decides, whatever the CLI does while exiting.
          if (singleTurn) break;
        }
      }
    } catch (error) {
      if (callbackFailed || isStallError(error) || caller.signal?.aborted) {
        // Prompt: reject now; the CLI is stopped in the background and gone within ~100 ms.
        stop();
        throw error;
      }
      // Usually "Claude Code returned an error result", right after that result: the result has
      // the status and the subtype, the exception does not.
      sdkError = { error };
    }
    // The turn is over: wait (briefly) for the CLI to exit by itself, so none outlives the call.
    await settleCli(guard, exitGraceMs, caller.signal);
  } finally {
    caller.dispose();
  }

  const failure =
    result === undefined ? noResultError(sdkError?.error) : (agentResultError(result, sdkError?.error) ?? (sdkError && noResultError(sdkError.error)));
  if (failure !== undefined) throw failure;
  const success = result as SDKResultSuccess;
  if (validate !== undefined) {
    const verdict = validate(success);
    if (verdict === false || typeof verdict === 'string') {
      throw new InvalidResultError(success, [{ message: typeof verdict === 'string' && verdict !== '' ? verdict : 'rejected by validator' }]);
    }
  }
  return success;
}

/** Waits for the CLI to exit (terminating it after `ms`); a caller abort cuts the wait short. */
async function settleCli(guard: CliProcessGuard, ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (!guard.alive) return;
  if (signal === undefined) return guard.stopAfter(ms);
  let onAbort = noop;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(abortReason(signal));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([guard.stopAfter(ms), aborted]);
  } catch (error) {
    guard.terminate().catch(noop);
    throw error;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

function watchOptionsOf(o: Partial<RunQueryOptions>): WatchOptions<SDKMessage> {
  const w: WatchOptions<SDKMessage> = {};
  const idleMs = o.idleMs === undefined ? undefined : checkMs('idleMs', o.idleMs, 1);
  const firstMs = o.firstMessageMs === undefined ? undefined : checkMs('firstMessageMs', o.firstMessageMs, 1);
  const totalMs = o.totalMs === undefined ? undefined : checkMs('totalMs', o.totalMs, 1);
  if (idleMs !== undefined) w.idleMs = idleMs;
  if (firstMs !== undefined) w.firstItemMs = firstMs;
  else if (idleMs !== undefined) w.firstItemMs = Math.max(idleMs, MIN_FIRST_MESSAGE_MS);
  if (totalMs !== undefined) w.totalMs = totalMs;
  else if (idleMs === undefined && firstMs === undefined) w.totalMs = NO_LIMIT_MS;
  w.isProgress = o.isProgress === undefined ? notPing : checkFunction('isProgress', o.isProgress);
  // Checked here, before any request is sent, not on the watch's first use.
  if (o.clock !== undefined) w.clock = checkClock<Clock>('clock', o.clock);
  return w;
}

/** One signal that aborts when either does; `dispose` drops the listeners. */
function linkSignals(a: AbortSignal | undefined, b: AbortSignal | undefined): { signal: AbortSignal | undefined; dispose(): void } {
  if (a === undefined || b === undefined) return { signal: a ?? b, dispose: () => {} };
  const linked = new AbortController();
  const onA = (): void => linked.abort(a.reason);
  const onB = (): void => linked.abort(b.reason);
  if (a.aborted) onA();
  else if (b.aborted) onB();
  a.addEventListener('abort', onA, { once: true });
  b.addEventListener('abort', onB, { once: true });
  return {
    signal: linked.signal,
    dispose: () => {
      a.removeEventListener('abort', onA);
      b.removeEventListener('abort', onB);
    },
  };
}
