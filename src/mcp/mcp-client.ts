import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type {
  CallToolResult,
  ListToolsResult,
  Tool,
  ToolAnnotations,
} from '@modelcontextprotocol/sdk/types.js';
import { type Bulkhead, bulkhead } from '../bulkhead/bulkhead.js';
import type { BulkheadOptions } from '../bulkhead/bulkhead-options.js';
import type { BreakerOptions } from '../circuit-breaker/breaker-options.js';
import { type CircuitBreaker, circuitBreaker } from '../circuit-breaker/circuit-breaker.js';
import type { CallContext } from '../context/call-context.js';
import { Emitter } from '../events/emitter.js';
import type { IdempotencyLedger } from '../idempotency/idempotency-ledger.js';
import { checkStallLimit } from '../options/stall-options.js';
import {
  checkFunction,
  checkMs,
  checkName,
  checkOptions,
  checkSignal,
  checkString,
  type OptionKeys,
  showValue,
} from '../options/validate-options.js';
import { pipeline } from '../pipeline/pipeline.js';
import type { Policy } from '../policy/policy.js';
import { type RetryOptions, retry } from '../retry/retry.js';
import { instrument } from '../telemetry/instrument.js';
import { Connection, markedUnsent } from './connection.js';
import { declareSdkError, failedBeforeSending, isSessionExpired } from './mcp-failures.js';
import { ToolCallError } from './tool-call-error.js';
import { ToolOutcomeUnknownError } from './tool-outcome-unknown-error.js';
import { type RequestLabel, WatchedRequest, watchedRequest } from './watched-request.js';

/** Options of {@link mcpClient}. */
export interface McpClientOptions {
  /** The server: names its breaker, and with the tool (`server/tool`) every event and log line. */
  name: string;
  /**
   * Makes a connected SDK `Client` (`new Client(…)` then `await client.connect(transport)`): called
   * at first use, after the transport closed (a stdio server that exited) and when a Streamable
   * HTTP session expired. It must finish within `timeoutMs` (else `TimeoutError`, retried): a
   * stdio server may take seconds to start, so the idle limit does not apply to it.
   */
  connect: () => Promise<Client>;
  /** Total time one request may take, progress or not, ms. Default 120000. */
  timeoutMs?: number;
  /**
   * Longest time with neither a result nor a progress notification, ms (`Infinity`: none); then
   * `StallError`, and the server is sent `notifications/cancelled`. Default 30000.
   */
  idleMs?: number;
  /**
   * Retries of transient failures (default `retry()`: 3 attempts, exponential backoff), only where
   * repeating is safe (see {@link mcpClient}); `false`: none.
   */
  retry?: RetryOptions | false;
  /** The server's breaker (default `circuitBreaker({ name })`: 5 failures, 30 s cooldown). */
  breaker?: BreakerOptions;
  /**
   * A cap on the server's requests at once (`callTool` and `listTools`, every tool together): one
   * `bulkhead` per server, its name the server's unless given. A retried call keeps its slot
   * between attempts; a call refused by a full queue rejects with `BulkheadRejectedError` without
   * a request, and the breaker does not count it. Default: none.
   */
  bulkhead?: BulkheadOptions;
  /**
   * With an `idempotencyKey` per call: one execution per key (a second call returns the first
   * result without a request), and a tool that is not marked safe is retried too.
   */
  ledger?: IdempotencyLedger;
}

/** Per-call options of {@link McpClient.callTool}. */
export interface McpCallOptions {
  signal?: AbortSignal;
  /** With the client's `ledger`: the same key runs the tool once (see {@link McpClientOptions.ledger}). */
  idempotencyKey?: string;
}

/** The tool call of {@link McpClient.callTool}: the SDK's `tools/call` params. */
export interface McpToolCall {
  name: string;
  arguments?: Record<string, unknown>;
}

/** What {@link mcpClient} returns. */
export interface McpClient {
  /** The server's name. */
  readonly name: string;
  /** The server's breaker (its `state`, events, `isolate()`). */
  readonly breaker: CircuitBreaker;
  /** Calls a tool; resolves with its result, rejects with `ToolCallError` for an `isError` one. */
  callTool(params: McpToolCall, options?: McpCallOptions): Promise<CallToolResult>;
  /** Every tool of the server (all pages), under the same limits; refreshes the annotations used to decide retries. */
  listTools(): Promise<ListToolsResult>;
  /** Closes the current SDK client; later calls reject. */
  close(): Promise<void>;
}

const KEYS: OptionKeys<McpClientOptions> = {
  name: true,
  connect: true,
  timeoutMs: true,
  idleMs: true,
  retry: true,
  breaker: true,
  bulkhead: true,
  ledger: true,
};
const CALL_KEYS: OptionKeys<McpCallOptions> = { signal: true, idempotencyKey: true };

/** Tool names a model may invent: the per-tool policies are bounded like breaker names (ARCHITECTURE.md §state.bounded). */
const MAX_TOOL_POLICIES = 1000;
/** The policy key of `listTools` (no tool name starts with a NUL). */
const LIST_KEY = '\0tools/list';

/** The call's signal when something can abort it (a caller signal, a deadline); else none to listen to. */
const callerSignal = (ctx: CallContext): AbortSignal | undefined =>
  (ctx as { canAbort?: boolean }).canAbort === false ? undefined : ctx.signal;

/** A tool's chain and the labels of its requests, made once per tool. */
interface ToolEntry {
  readonly tool: string;
  readonly policy: Policy;
  readonly safe: RequestLabel;
  readonly unsafe: RequestLabel;
}

/** Safe to send again after it reached the server: the tool says it changes nothing, or nothing more. */
const safeToRepeat = (a: ToolAnnotations | undefined): boolean =>
  a?.readOnlyHint === true || a?.idempotentHint === true;

class McpClientImpl implements McpClient {
  readonly name: string;
  readonly breaker: CircuitBreaker;
  readonly #connection: Connection;
  readonly #watched: WatchedRequest;
  readonly #retry: RetryOptions | false;
  readonly #ledger: IdempotencyLedger | undefined;
  readonly #bulkhead: Bulkhead | undefined;
  readonly #events = new Emitter('mcp');
  readonly #policies = new Map<string, ToolEntry>();
  /** Annotations by tool, from the last full `tools/list`; undefined until one was read. */
  #annotations: Map<string, ToolAnnotations | undefined> | undefined;
  #listing: Promise<ListToolsResult> | undefined;
  #closed = false;

  constructor(o: McpClientOptions) {
    this.name = checkName('name', o.name);
    const connect = checkFunction<() => Promise<Client>>('connect', o.connect);
    const timeoutMs = o.timeoutMs === undefined ? 120_000 : checkMs('timeoutMs', o.timeoutMs, 1);
    const idleMs = checkStallLimit('idleMs', o.idleMs) ?? 30_000;
    this.#watched = new WatchedRequest({ idleMs, timeoutMs });
    if (
      o.retry !== undefined &&
      o.retry !== false &&
      (typeof o.retry !== 'object' || o.retry === null)
    )
      throw new TypeError(`retry must be RetryOptions or false, got ${showValue(o.retry)}`);
    this.#retry = o.retry ?? {};
    // Built once here so a bad option throws now (ARCHITECTURE.md §api.options).
    if (this.#retry !== false) retry(this.#retry);
    if (
      o.ledger !== undefined &&
      typeof (o.ledger as Partial<IdempotencyLedger>)?.run !== 'function'
    )
      throw new TypeError(`ledger must be an IdempotencyLedger, got ${showValue(o.ledger)}`);
    this.#ledger = o.ledger;
    this.breaker = circuitBreaker({ ...o.breaker, name: o.breaker?.name ?? this.name });
    if (o.bulkhead !== undefined && (typeof o.bulkhead !== 'object' || o.bulkhead === null))
      throw new TypeError(`bulkhead must be BulkheadOptions, got ${showValue(o.bulkhead)}`);
    this.#bulkhead =
      o.bulkhead === undefined
        ? undefined
        : bulkhead({ ...o.bulkhead, name: o.bulkhead.name ?? this.name });
    this.#connection = new Connection(this.name, connect, timeoutMs);
  }

  callTool(params: McpToolCall, options?: McpCallOptions): Promise<CallToolResult> {
    try {
      if (typeof params !== 'object' || params === null)
        throw new TypeError(
          `callTool(params) needs { name, arguments? }, got ${showValue(params)}`,
        );
      const tool = checkString('params.name', params.name);
      const args = params.arguments;
      if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args)))
        throw new TypeError(`params.arguments must be an object, got ${showValue(args)}`);
      // The common call (no options): no option objects, no ledger (ARCHITECTURE.md §P10).
      if (options === undefined) {
        this.#checkOpen();
        const entry = this.#tool(tool);
        return entry.policy.execute((ctx) => this.#callOnce(entry, args, false, ctx));
      }
      const o = checkOptions('callTool', options, CALL_KEYS);
      const signal = checkSignal('signal', o.signal);
      const key =
        o.idempotencyKey === undefined
          ? undefined
          : checkString('idempotencyKey', o.idempotencyKey);
      this.#checkOpen();
      const entry = this.#tool(tool);
      const keyed = key !== undefined && this.#ledger !== undefined;
      const execute = () =>
        entry.policy.execute(
          (ctx) => this.#callOnce(entry, args, keyed, ctx),
          signal === undefined && key === undefined
            ? undefined
            : {
                ...(signal === undefined ? {} : { signal }),
                ...(key === undefined ? {} : { idempotencyKey: key }),
              },
        );
      if (!keyed) return execute();
      return this.#ledger!.run(key!, execute, signal === undefined ? undefined : { signal });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async listTools(): Promise<ListToolsResult> {
    this.#checkOpen();
    return this.#tool(LIST_KEY, 'tools/list').policy.execute(async (ctx) => {
      const client = await this.#connection.client();
      return this.#listAll(client, callerSignal(ctx));
    });
  }

  close(): Promise<void> {
    this.#closed = true;
    return this.#connection.close();
  }

  #checkOpen(): void {
    if (this.#closed) throw new Error(`mcpClient ${this.name} is closed`);
  }

  /**
   * The tool's chain: measured as `server/tool`, the server's bulkhead, its breaker, then the
   * retries. The bulkhead is outside the retries, so a retried call keeps its slot and waits for
   * no one between attempts, and outside the breaker, so the breaker admits only calls that hold a
   * slot: a half-open probe's time is its request, not a wait in the queue (ARCHITECTURE.md §P4).
   * A refusal for local load is never counted as the server failing (`BulkheadRejectedError` does
   * not count for a breaker, §P1). Built once per tool with its labels, so a call allocates none.
   */
  #tool(key: string, tool = key): ToolEntry {
    let entry = this.#policies.get(key);
    if (entry !== undefined) return entry;
    if (this.#policies.size >= MAX_TOOL_POLICIES) this.#policies.clear();
    const name = `${this.name}/${tool}`;
    // The name goes on the pipeline: its calls share one named root scope (ARCHITECTURE.md §P10),
    // where a named instrument would make a scope per call to carry it.
    const layers: Policy[] = [instrument()];
    if (this.#bulkhead !== undefined) layers.push(this.#bulkhead);
    layers.push(this.breaker);
    if (this.#retry !== false) layers.push(retry(this.#retry));
    const what = key === LIST_KEY ? `tools/list on ${this.name}` : `tool ${tool} on ${this.name}`;
    entry = {
      tool,
      policy: pipeline({ name }, ...layers),
      safe: { name, what, unsafe: false },
      unsafe: { name, what, unsafe: true },
    };
    this.#policies.set(key, entry);
    return entry;
  }

  /** One attempt: a client, the tool's annotations, the call; a forgotten session renewed once. */
  async #callOnce(
    entry: ToolEntry,
    args: Record<string, unknown> | undefined,
    keyed: boolean,
    ctx: CallContext,
  ): Promise<CallToolResult> {
    const tool = entry.tool;
    // A live client and cached annotations are read without waiting a turn for either.
    let client = this.#connection.live() ?? (await this.#connection.client());
    const signal = callerSignal(ctx);
    const known = this.#annotations;
    const safe =
      keyed ||
      safeToRepeat(
        known !== undefined ? known.get(tool) : await this.#annotationsOf(tool, client, signal),
      );
    const label = safe ? entry.safe : entry.unsafe;
    const request = args === undefined ? { name: tool } : { name: tool, arguments: args };
    const watched = this.#watched;
    const events = this.#events;
    // watchedRequest's steps inline, so a call runs in no async frame more than this one.
    for (let renewed = false; ; renewed = true) {
      const w = watched.begin(signal, label, events);
      let result: CallToolResult;
      try {
        result = (await client.callTool(
          request,
          undefined,
          w === undefined ? watched.plain : w.options,
        )) as CallToolResult;
      } catch (error) {
        const failure = w === undefined ? watched.failure(error, label, events) : w.failure(error);
        // The server forgot the session and processed nothing: a new one, and the call once more.
        if (renewed || !isSessionExpired(failure)) throw this.#failure(failure, label, tool, ctx);
        this.#connection.drop(client);
        try {
          client = await this.#connection.client();
        } catch (error) {
          throw this.#failure(error, label, tool, ctx);
        }
        continue;
      } finally {
        w?.end();
      }
      if (result.isError === true) throw new ToolCallError(this.name, tool, result);
      return result;
    }
  }

  /**
   * What a failed attempt rejects with: as it is when the request cannot have been sent, was
   * cancelled by the caller, or may be repeated; else it says the outcome is unknown, and no
   * retry repeats it.
   */
  #failure(error: unknown, label: RequestLabel, tool: string, ctx: CallContext): unknown {
    declareSdkError(error);
    if (!label.unsafe || markedUnsent(error) || failedBeforeSending(error)) return error;
    if (ctx.signal.aborted && error === ctx.signal.reason) return error;
    // Our own stall and timeout errors already say it (watchedRequest): they keep their class.
    if (error instanceof Error && /outcome unknown/.test(error.message)) return error;
    return new ToolOutcomeUnknownError(this.name, tool, error);
  }

  /** The tool's annotations, from `tools/list` (read once, then cached). A failure here is before the call. */
  async #annotationsOf(
    tool: string,
    client: Client,
    signal: AbortSignal | undefined,
  ): Promise<ToolAnnotations | undefined> {
    if (this.#annotations === undefined) {
      // Concurrent first calls share one listing.
      this.#listing ??= this.#listAll(client, signal).finally(() => {
        this.#listing = undefined;
      });
      try {
        await this.#listing;
      } catch (error) {
        declareSdkError(error);
        throw error;
      }
    }
    return this.#annotations?.get(tool);
  }

  async #listAll(client: Client, signal: AbortSignal | undefined): Promise<ListToolsResult> {
    const label: RequestLabel = {
      name: `${this.name}/tools/list`,
      what: `tools/list on ${this.name}`,
      unsafe: false,
    };
    const tools: Tool[] = [];
    let cursor: string | undefined;
    let last: ListToolsResult;
    do {
      const params = cursor === undefined ? undefined : { cursor };
      last = (await watchedRequest(
        (options) => client.listTools(params, options),
        this.#watched,
        signal,
        label,
        this.#events,
      )) as ListToolsResult;
      tools.push(...last.tools);
      cursor = last.nextCursor;
    } while (cursor !== undefined && cursor !== '');
    this.#annotations = new Map(tools.map((t) => [t.name, t.annotations]));
    const { nextCursor: _, ...rest } = last;
    return { ...rest, tools };
  }
}

/**
 * A resilient client of one MCP server over the official SDK's `Client`. Each `callTool` runs as
 * `server/tool` under the server's breaker and a retry, with an idle limit that progress
 * notifications reset (`idleMs`, default 30 s) under a total cap (`timeoutMs`, default 120 s); a
 * stalled or timed-out call is cancelled (the server gets `notifications/cancelled`) and the client
 * stays usable. Retries follow the tool's annotations (from `tools/list`, cached): `readOnlyHint`
 * or `idempotentHint` tools are retried on transient failures; any other tool only when the
 * failure came before the request was sent (a failed `connect()`, a refused connection) or with a
 * `ledger` and an `idempotencyKey`; otherwise the rejection says the outcome is unknown
 * (`ToolOutcomeUnknownError`, or a `StallError` / `TimeoutError` whose message says so). A
 * Streamable HTTP session the server forgot (404) is renewed through `connect()` and the call sent
 * once more. `isError` results reject with `ToolCallError`: not retried, not counted by the
 * breaker. With `bulkhead`, at most `maxConcurrent` requests to the server run at once, the
 * others wait (up to `maxQueue`) or reject with `BulkheadRejectedError`. Events (`call`, `retry`,
 * `stall`, `timeout`, the breaker's `state` and `reject`) name `server/tool`, the breaker the
 * server. Defaults: timeoutMs 120000, idleMs 30000, retry `retry()`, breaker
 * `circuitBreaker({ name })`, no bulkhead.
 *
 * @example
 * const files = mcpClient({
 *   name: 'files',
 *   connect: async () => {
 *     const client = new Client({ name: 'agent', version: '1.0.0' })
 *     await client.connect(new StdioClientTransport({ command: 'node', args: ['files-server.js'] }))
 *     return client
 *   },
 *   idleMs: 10_000,
 * })
 * const result = await files.callTool({ name: 'read_file', arguments: { path: 'README.md' } })
 */
export function mcpClient(options: McpClientOptions): McpClient {
  const o = checkOptions('mcpClient', options, KEYS);
  if (options === undefined) throw new TypeError('mcpClient(options) needs { name, connect }');
  return new McpClientImpl(o as McpClientOptions);
}
