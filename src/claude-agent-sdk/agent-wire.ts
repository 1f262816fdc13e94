import type {
  Options,
  SDKMessage,
  SDKResultMessage,
  SDKResultSuccess,
  SDKUserMessage,
} from '@anthropic-ai/claude-agent-sdk';
import { anthropicDialect } from '../dialects/anthropic.js';
import type { TokenUsage } from '../dialects/dialect.js';
import { usageIn } from '../dialects/read-facts.js';
import { untilAborted } from '../context/until-aborted.js';
import type { ModelWire } from '../model-stream/model-wire.js';
import { safeRead } from '../text/safe-text.js';
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

/** @internal How one `runQuery` call runs its query: the wire's client. */
export interface AgentRunner {
  readonly query: QueryFunction;
  readonly killGraceMs: number | undefined;
  readonly exitGraceMs: number;
  /** The caller's cancellation: the wait for the CLI to exit ends with it. */
  readonly callerSignal: AbortSignal | undefined;
}

// The CLI is up and has said so (system/init) within 1.8 s in every run measured.
const FIRST_MESSAGE_MS = 60_000;
const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });
const noop = (): void => {};

/** The model is writing text (with partial messages on): the next token is due within moments. */
function writing(m: SDKMessage): boolean {
  if (m.type !== 'stream_event' || m.event.type !== 'content_block_delta') return false;
  const type = (m.event.delta as { type: string }).type;
  return type === 'text_delta' || type === 'citations_delta';
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

/**
 * The query's messages, with the SDK's own throw turned into the end of the stream and kept in
 * `threw`: the SDK yields a result and then throws ("Claude Code returned an error result"), and
 * the result has the status and the subtype, the exception does not. `return()` reaches the
 * query's own at once (a stalled query never answers its `next()`).
 */
function messagesOf(
  q: QueryLike,
  seen: { result: SDKResultMessage | undefined; threw: { error: unknown } | undefined },
): AsyncIterable<SDKMessage> {
  return {
    [Symbol.asyncIterator]() {
      const it = q[Symbol.asyncIterator]();
      return {
        async next() {
          let next: IteratorResult<SDKMessage>;
          try {
            next = await it.next();
          } catch (error) {
            seen.threw = { error };
            return DONE;
          }
          if (!next.done && next.value.type === 'result') seen.result = next.value;
          return next;
        },
        return() {
          return it.return === undefined ? Promise.resolve(DONE) : it.return();
        },
      };
    },
  };
}

/** The tokens of a result: per model (what the SDK advises for accounting), else its main loop's. */
function agentUsage(result: SDKResultMessage): TokenUsage | undefined {
  const perModel = safeRead(result, 'modelUsage');
  if (typeof perModel === 'object' && perModel !== null) {
    let input = 0;
    let output = 0;
    let any = false;
    for (const u of Object.values(perModel as Record<string, unknown>)) {
      if (typeof u !== 'object' || u === null) continue;
      const n = (key: string): number => {
        const v = safeRead(u, key);
        return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0;
      };
      any = true;
      input += n('inputTokens') + n('cacheReadInputTokens') + n('cacheCreationInputTokens');
      output += n('outputTokens');
    }
    if (any) return { input, output };
  }
  return usageIn(safeRead(result, 'usage'), [anthropicDialect]);
}

/** The model that did most of the writing (a turn may use a small model on the side). */
function agentModel(result: SDKResultMessage): string | undefined {
  const perModel = safeRead(result, 'modelUsage');
  if (typeof perModel !== 'object' || perModel === null) return undefined;
  let best: string | undefined;
  let most = -1;
  for (const [model, u] of Object.entries(perModel as Record<string, unknown>)) {
    const out = safeRead(u, 'outputTokens');
    const n = typeof out === 'number' ? out : 0;
    if (n > most) {
      best = model;
      most = n;
    }
  }
  return best;
}

const requestedModel = (params: RunQueryParams): string | undefined =>
  typeof params.options?.model === 'string' && params.options.model !== ''
    ? params.options.model
    : undefined;

/**
 * @internal A Claude Agent SDK `query()`: its messages, `ping` stream events keep-alives (the
 * CLI forwards them while it waits on a request), the end a `result` message (a single prompt
 * stops reading there), stopped by aborting its controller, `close()` and signalling the CLI
 * itself; the result decides the outcome once the CLI has exited. It starts a CLI, so its first
 * message may take longer than a request's.
 */
export const agentWire: ModelWire<AgentRunner, RunQueryParams, SDKMessage, SDKResultSuccess> = {
  start(runner, params) {
    const sdkOptions: Options = { ...params.options };
    const controller = new AbortController();
    const guard = cliProcessGuard({
      ...(sdkOptions.spawnClaudeCodeProcess === undefined
        ? {}
        : { spawn: sdkOptions.spawnClaudeCodeProcess }),
      ...(sdkOptions.stderr === undefined ? {} : { stderr: sdkOptions.stderr }),
      ...(runner.killGraceMs === undefined ? {} : { graceMs: runner.killGraceMs }),
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
    try {
      q = runner.query({ prompt: params.prompt, options: sdkOptions });
    } catch (error) {
      // Bad options and the like: a bug to surface as it is, not an agent failure.
      stop();
      throw error;
    }
    const seen: { result: SDKResultMessage | undefined; threw: { error: unknown } | undefined } = {
      result: undefined,
      threw: undefined,
    };
    return {
      items: messagesOf(q, seen),
      stop,
      async result() {
        // The turn is over: wait (briefly) for the CLI to exit by itself, so none outlives the call.
        await settleCli(guard, runner.exitGraceMs, runner.callerSignal);
        const { result, threw } = seen;
        const failure =
          result === undefined
            ? noResultError(threw?.error)
            : (agentResultError(result, threw?.error) ?? (threw && noResultError(threw.error)));
        if (failure !== undefined) throw failure;
        return result as SDKResultSuccess;
      },
    };
  },
  // After its own stream watchdog the CLI retries without streaming and emits a synthetic ping
  // meanwhile: counting those as progress would hide a stall from any idleMs above their period.
  isProgress: (m) => !(m.type === 'stream_event' && (m.event as { type: string }).type === 'ping'),
  isWriting: writing,
  end(_, params) {
    // A single prompt has one turn: its result decides, whatever the CLI does while exiting.
    const singleTurn = typeof params.prompt === 'string';
    return {
      see: (m) => (singleTurn && m.type === 'result' ? 'done' : undefined),
      // The result (or its absence) decides once the CLI has exited.
      finished: true,
    };
  },
  itemType: (m) => m.type,
  expectedEnd: 'a result message',
  // CLI start-up counts toward the first message: never less than the default for it.
  firstItem: { ms: FIRST_MESSAGE_MS, fromIdle: (idleMs) => Math.max(idleMs, FIRST_MESSAGE_MS) },
  facts: {
    operation: 'invoke_agent',
    provider: () => 'anthropic',
    model: (_, params) => requestedModel(params),
    outcome: (result) => ({ model: agentModel(result), usage: agentUsage(result) }),
  },
};
