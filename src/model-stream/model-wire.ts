import type { RateLimitReadings, TokenUsage } from '../dialects/dialect.js';

// A model SDK's stream, described once per SDK: how a call starts, what counts as progress, how
// it ends, what it says about itself (usage, models, rate limits) and how it continues after a
// break. One object of small hooks, the way an AI SDK middleware is one object with a few hooks,
// or a kysely dialect a driver plus an adapter. The kernel (this folder) writes the rest once
// over it: option checks, stall limits, the governor's envelope, validation, resumption and the
// facts telemetry reads (§adapters.kernel).

/** @internal What the kernel hands a wire to start one request. */
export interface WireCall {
  /** Aborts the request, closing its socket: the kernel aborts it on a stall, the caller's abort or any failure. */
  readonly signal: AbortSignal;
  /** Where the response headers go, when the wire can see them (rate limits); `undefined` when nobody listens. */
  readonly onHeaders: ((headers: unknown) => void) | undefined;
  /** The caller's per-request SDK options (headers, …), passed on as they are. */
  readonly requestOptions: Readonly<Record<string, unknown>> | undefined;
}

/** @internal One request in flight, as a wire started it. */
export interface WireRequest<Item, Result> {
  /** The items as they arrive (SSE events, chunks, parts, messages). */
  readonly items: AsyncIterable<Item>;
  /** The result, once the items ran out and the wire's end said the call finished. */
  result(): Promise<Result>;
  /** What the SDK accumulated up to `item`: the partial answer of a stream cut short. */
  snapshot?(item: Item): unknown;
  /** The response headers, once the first item came, for SDKs that keep them on the stream. */
  headers?(): unknown;
  /** Stops what aborting the signal does not (a child process); called on every failure. */
  stop?(): void;
}

/**
 * @internal How a stream ends, followed item by item: a fresh one per request. `see` may throw
 * what an item carries (an in-stream error part); it returns `'cut'` when an end marker says the
 * stream was cut (the kernel throws `IncompleteStreamError`), `'done'` when the call is over and
 * nothing more is to be read.
 */
export interface WireEnd<Item> {
  see(item: Item): undefined | 'cut' | 'done';
  /** The stream said it finished (`message_stop`, a `finish_reason` for every choice, …). */
  readonly finished: boolean;
  /** A failure a finished stream reported (`response.failed`): thrown once the items ran out. */
  readonly failure?: unknown;
}

/** @internal What a result (or an item of a stream handed on as it comes) says about its call. */
export interface CallOutcome {
  /** The model that answered (`gen_ai.response.model`). */
  model?: string | undefined;
  usage?: TokenUsage | undefined;
}

/** @internal The facts of a call: what the governor and telemetry read, in their own terms. */
export interface WireFacts<Client, Request, Item, Result> {
  /** `gen_ai.operation.name`: `'chat'`, `'invoke_agent'`, … */
  readonly operation: string;
  /** `gen_ai.provider.name`: `'anthropic'`, `'openai'`, … */
  provider(client: Client, request: Request): string;
  /** The model asked for (`gen_ai.request.model`); adaptive stall limits learn under it. */
  model(client: Client, request: Request): string | undefined;
  /**
   * The tokens the request will be charged, before it is sent: what a hedged loser may still
   * cost. Absent where the request's size says nothing (an agent's prompt starts many requests).
   */
  estimate?(request: Request): TokenUsage;
  /** What the result says. */
  outcome(result: Result): CallOutcome;
  /** What one item says, for a stream handed on as it comes (the result is never seen whole). */
  itemOutcome?(item: Item): CallOutcome | undefined;
  /** The rate limits the response headers report, in the provider's dialect. */
  rateLimits?(headers: unknown): RateLimitReadings | undefined;
}

/**
 * @internal Joins the items of several requests (the first, then continuations) into one
 * consistent sequence, handed to `emit`; `finish` and `finishAtBudget` are needed only where a
 * call resolves with one result.
 */
export interface WireSplice<Item, Result, Kept> {
  /** Content began: a later break is continued rather than failed. */
  readonly began: boolean;
  accept(item: Item): void;
  /** The current request broke: what is kept (for the next request) and what it cost. */
  broken(): Kept;
  /** The result an unbroken stream would have given, from the last request's. */
  finish?(result: Result): Result;
  /** The kept text spends the whole output budget: the result, ended here. */
  finishAtBudget?(): Result;
}

/** @internal How a wire continues a stream that broke after content began. */
export interface WireResume<
  Client,
  Request,
  Item,
  Result,
  Kept extends { readonly chars: number },
> {
  /**
   * `'continue'`: the request is sent again with what was kept as a prefill; `'restart'`: the API
   * takes no prefill for this request (a call that resolves once starts over; a stream already
   * handed on passes the break on).
   */
  mode(client: Client, request: Request): 'continue' | 'restart';
  splice(emit: (item: Item) => void, mode: 'continue' | 'restart'): WireSplice<Item, Result, Kept>;
  /** The request that continues after `kept`; `undefined` when `kept` spends the whole output budget. */
  continuation(request: Request, kept: Kept): Request | undefined;
}

/**
 * @internal A model SDK's stream, for the kernel. `Client` is what a request is sent with (an SDK
 * client, an AI SDK model, a `query` function), `Request` its body, `Item` one streamed item,
 * `Result` what a finished call resolves with.
 */
export interface ModelWire<
  Client,
  Request,
  Item,
  Result,
  Kept extends { readonly chars: number } = { chars: number },
> {
  /** How a call starts: sends `request` with `client`, aborted by `call.signal`. */
  start(client: Client, request: Request, call: WireCall): WireRequest<Item, Result>;
  /** What resets the idle clock by default: keep-alives do not. */
  isProgress(item: Item): boolean;
  /** The model is writing text: the next item is due within moments (the shorter idle default). */
  isWriting(item: Item): boolean;
  /** The first item of output proper, for a stream handed on as it comes: before it, a failure can be retried unseen. */
  startsOutput?(item: Item): boolean;
  /** How it ends: a fresh tracker per request. */
  end(client: Client, request: Request): WireEnd<Item>;
  /** The SDK's own way of saying the stream ended early (its helper's complaint): an incomplete stream. */
  cutShort?(error: unknown): boolean;
  /** The item's type, named in `IncompleteStreamError.lastEvent`. */
  itemType(item: Item): string | undefined;
  /** What a complete stream ends with, named in `IncompleteStreamError`. */
  readonly expectedEnd: string;
  /**
   * The first-item default, ms, when not the adapters' common 300 s (the Agent SDK's 60 s, from
   * the start of its CLI), and the first-item limit when only `idleMs` is set (default: `idleMs`).
   */
  readonly firstItem?: { readonly ms: number; fromIdle(idleMs: number): number };
  readonly facts: WireFacts<Client, Request, Item, Result>;
  /** How it continues after a break; absent: it cannot. */
  readonly resume?: WireResume<Client, Request, Item, Result, Kept>;
}

/** @internal The end of a stream whose end is one marker item (`message_stop`, `response_done`, …). */
export function endsWith<I>(isEnd: (item: I) => boolean): () => WireEnd<I> {
  return () => {
    let finished = false;
    return {
      see(item) {
        if (isEnd(item)) finished = true;
        return undefined;
      },
      get finished() {
        return finished;
      },
    };
  };
}
