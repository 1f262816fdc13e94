import { type Clock, systemClock } from '../clock/clock.js';
import {
  checkClock,
  checkFunction,
  checkOptions,
  checkSignal,
  type OptionKeys,
} from '../options/validate-options.js';
import type { RateLimiter, RateLimitPermit } from '../governor/rate-limiter.js';
import { checkRateLimiter } from '../governor/request-permit.js';
import { checkSpendLimit, type SpendLimit } from '../governor/spend-limit.js';
import { checkValidator, type ResultValidator } from '../validate/check-result.js';
import { resolveStallLimits, type StallDefaults } from '../watch/stream-limits.js';
import { type WatchLimits, watchWith } from '../watch/watcher.js';
import {
  checkStallOptions,
  STALL_OPTION_KEYS,
  type StallOptions,
} from '../options/stall-options.js';
import { modelOf } from '../dialects/read-facts.js';

/**
 * Options of `streamChat` and `streamResponse`. Stall detection is on by default
 * ({@link StallOptions}): `firstItemMs` 300 s (response headers included; `idleMs` when only that
 * is set), and `idleMs` 60 s while text streams, 300 s while the model is quiet for a reason
 * (reasoning, building a tool call, before its first event); `totalMs` none. Every limit takes
 * `Infinity` to turn it off; `'adaptive'` limits learn under `adaptive` (its `model` defaults to
 * the request's).
 *
 * @example
 * const o: OpenAIStreamOptions<OpenAI.Chat.ChatCompletionChunk, OpenAI.Chat.ChatCompletion> = { idleMs: 15_000, totalMs: 300_000 }
 */
export interface OpenAIStreamOptions<E, R, O = Record<string, unknown>> extends StallOptions {
  /** Caller cancellation: rejects at once with the signal's reason and aborts the HTTP request. */
  signal?: AbortSignal;
  /** Which events reset the idle clock. Default: every event (the SDK drops SSE comment keep-alives) but a `keepalive` one. */
  isProgress?: (event: E) => boolean;
  /** Sees every event as it arrives (to stream text to a UI). */
  onEvent?: (event: E) => void;
  /**
   * Checks the complete result: a Standard Schema, or a predicate returning false or a reason
   * string; a rejection is `InvalidResultError` (retried by `retry`, like the `validate` policy).
   */
  validate?: ResultValidator<R>;
  /** Per-request SDK options (headers, …); `signal` is recourse's. */
  requestOptions?: Omit<O, 'signal'>;
  /** Default `systemClock`. */
  clock?: Clock;
  /**
   * Wait for this limiter before sending (reserving 1 request, the input estimate and the output
   * limit) and teach it the response's `x-ratelimit-*` headers. Inside a call of a limiter policy,
   * the headers reach that limiter without this option. Default: none.
   */
  rateLimiter?: RateLimiter;
  /**
   * Count the result's usage against this budget, and refuse the request before sending
   * (`BudgetExceededError`) when its input estimate plus its output limit would pass the limit.
   * Inside a call of a spend limit policy, that one counts without this option. Default: none.
   */
  spendLimit?: SpendLimit;
}

const KEYS: OptionKeys<OpenAIStreamOptions<unknown, unknown>> = {
  ...STALL_OPTION_KEYS,
  signal: true,
  isProgress: true,
  onEvent: true,
  validate: true,
  requestOptions: true,
  clock: true,
  rateLimiter: true,
  spendLimit: true,
};

const notKeepalive = (event: unknown): boolean =>
  (event as { type?: unknown }).type !== 'keepalive';

/** @internal What a stream call runs with, checked. */
export interface StreamSetup<E, R> {
  signal: AbortSignal | undefined;
  onEvent: ((event: E) => void) | undefined;
  validator: ResultValidator<R> | undefined;
  limits: WatchLimits<E>;
  requestOptions: Record<string, unknown> | undefined;
  limiter: RateLimiter | undefined;
  spendLimit: SpendLimit | undefined;
}

/** @internal Checks `owner`'s options and resolves its stall limits against `defaults`. */
export function streamSetup<E, R>(
  owner: string,
  options: OpenAIStreamOptions<E, R> | undefined,
  defaults: StallDefaults<E>,
  body: unknown,
): StreamSetup<E, R> {
  const o = checkOptions(owner, options, KEYS as OptionKeys<OpenAIStreamOptions<E, R>>);
  const signal = checkSignal('signal', o.signal);
  return {
    signal,
    onEvent:
      o.onEvent === undefined ? undefined : checkFunction<(e: E) => void>('onEvent', o.onEvent),
    validator: o.validate === undefined ? undefined : checkValidator<R>('validate', o.validate),
    limits: {
      ...resolveStallLimits(checkStallOptions(owner, o), defaults, { model: modelOf(body) }),
      signal,
      isProgress:
        o.isProgress === undefined ? notKeepalive : checkFunction('isProgress', o.isProgress),
      clock: checkClock<Clock>('clock', o.clock ?? systemClock),
      name: undefined,
    },
    requestOptions: o.requestOptions as Record<string, unknown> | undefined,
    limiter: checkRateLimiter('rateLimiter', o.rateLimiter),
    spendLimit: checkSpendLimit('spendLimit', o.spendLimit),
  };
}

type FetchLike = (url: unknown, init?: unknown) => Promise<{ headers: unknown }>;

/**
 * @internal The client, made to report every response's headers to `permit`: the SDK's stream
 * helpers keep the HTTP response to themselves, so a copy of the client (`withOptions`, openai 5+)
 * gets a `fetch` that reads them on the way through. A client without `withOptions` is used as it
 * is (the limiter then learns only from errors).
 */
export function reportingHeaders<C>(client: C, permit: RateLimitPermit | undefined): C {
  if (permit === undefined) return client;
  const c = client as { withOptions?: (o: object) => C; fetch?: unknown };
  if (typeof c.withOptions !== 'function') return client;
  const inner = (typeof c.fetch === 'function' ? c.fetch : globalThis.fetch) as FetchLike;
  const fetch: FetchLike = async (url, init) => {
    const response = await inner(url, init);
    permit.observe(response.headers);
    return response;
  };
  return c.withOptions({ fetch });
}

/**
 * @internal Reads `stream` under `watch`, handing each event to `each`. On a stall, the caller's
 * abort, an SDK error or a throw from `each`, the request is aborted (its socket closed) before
 * the error is rethrown: it must not live on, whatever happened.
 */
export async function readWatched<E>(
  stream: AsyncIterable<E>,
  limits: WatchLimits<E>,
  controller: AbortController,
  each: (event: E) => void,
): Promise<void> {
  try {
    for await (const event of watchWith(stream, limits)) each(event);
  } catch (error) {
    controller.abort();
    throw error;
  }
}
