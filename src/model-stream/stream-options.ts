import { type Clock, systemClock } from '../clock/clock.js';
import type { RateLimiter } from '../governor/rate-limiter.js';
import { checkRateLimiter } from '../governor/request-permit.js';
import { checkSpendLimit, type SpendLimit } from '../governor/spend-limit.js';
import {
  checkStallOptions,
  STALL_OPTION_KEYS,
  type StallOptions,
  type StallSettings,
} from '../options/stall-options.js';
import {
  checkClock,
  checkFunction,
  checkOptions,
  checkSignal,
  type OptionKeys,
} from '../options/validate-options.js';
import { checkValidator, type ResultValidator } from '../validate/check-result.js';
import { QUIET_IDLE_MS, WRITING_IDLE_MS } from '../watch/stall-defaults.js';
import { resolveStallLimits, type StallDefaults } from '../watch/stream-limits.js';
import type { WatchLimits } from '../watch/watcher.js';
import type { ModelWire } from './model-wire.js';
import { checkPredicate } from '../options/predicate.js';

/**
 * Options of a model stream call (`streamMessage`, `streamChat`, `streamResponse`). Stall
 * detection is on by default ({@link StallOptions}): `firstItemMs` 300 s (response headers
 * included; `idleMs` when only that is set), and `idleMs` 60 s while text streams, 300 s while
 * the model is quiet for a reason (thinking, building a tool call, before its first event;
 * keep-alives do not count); `totalMs` none. Every limit takes `Infinity` to turn it off;
 * `'adaptive'` limits learn under `adaptive` (its `model` defaults to the request's). Once
 * response headers arrive the SDKs themselves have no limit.
 *
 * @example
 * const o: ModelStreamOptions<OpenAI.Chat.ChatCompletionChunk, OpenAI.Chat.ChatCompletion> = { idleMs: 15_000, totalMs: 300_000 }
 */
export interface ModelStreamOptions<E, R, O = Record<string, unknown>> extends StallOptions {
  /** Caller cancellation: rejects at once with the signal's reason and aborts the HTTP request. */
  signal?: AbortSignal;
  /** Which events reset the idle clock. Default: every event but the SDK's keep-alives (`ping`, `keepalive`). */
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
   * limit) and teach it the response's rate-limit headers. Inside a call of a limiter policy,
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

/** @internal The keys of {@link ModelStreamOptions}, for an adapter's own option list. */
export const MODEL_STREAM_KEYS: OptionKeys<ModelStreamOptions<unknown, unknown>> = {
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

/** @internal A model stream call's options, checked. */
export interface StreamSettings<E, R> {
  readonly signal: AbortSignal | undefined;
  readonly onEvent: ((event: E) => void) | undefined;
  readonly validator: ResultValidator<R> | undefined;
  readonly limits: WatchLimits<E>;
  readonly requestOptions: Readonly<Record<string, unknown>> | undefined;
  readonly limiter: RateLimiter | undefined;
  readonly spendLimit: SpendLimit | undefined;
}

/** @internal A wire's stall defaults: a short idle limit while text is written, a long one otherwise. */
export function wireStallDefaults<C, Q, I, R>(wire: ModelWire<C, Q, I, R>): StallDefaults<I> {
  return {
    firstItemMs: wire.firstItem?.ms ?? QUIET_IDLE_MS,
    idleMs: (item) => (wire.isWriting(item) ? WRITING_IDLE_MS : QUIET_IDLE_MS),
    ...(wire.firstItem === undefined ? {} : { firstFromIdle: wire.firstItem.fromIdle }),
  };
}

/**
 * @internal The watcher limits of one call of `wire`: the checked stall options over the wire's
 * defaults, adaptive limits learning under the request's model; progress as `isProgress` says,
 * else as the wire says.
 */
export function wireLimits<C, Q, I, R>(
  wire: ModelWire<C, Q, I, R>,
  stall: StallSettings,
  model: string | undefined,
  o: { signal: AbortSignal | undefined; isProgress: unknown; clock: unknown },
): WatchLimits<I> {
  return {
    ...resolveStallLimits(stall, wireStallDefaults(wire), { model }),
    signal: o.signal,
    isProgress:
      o.isProgress === undefined
        ? (item) => wire.isProgress(item)
        : checkPredicate<(item: I) => boolean>('isProgress', o.isProgress),
    clock: checkClock<Clock>('clock', o.clock ?? systemClock),
    name: undefined,
  };
}

/**
 * @internal Checks the options of a call of `wire` by `owner` (its `keys`: the model stream keys
 * and the adapter's own) and resolves its stall limits for `client` and `request`.
 */
export function checkStreamOptions<C, Q, I, R, O extends ModelStreamOptions<I, R, unknown>>(
  owner: string,
  options: O | undefined,
  keys: OptionKeys<O>,
  wire: ModelWire<C, Q, I, R>,
  client: C,
  request: Q,
): { settings: StreamSettings<I, R>; options: Partial<O> } {
  const o = checkOptions(owner, options, keys);
  const signal = checkSignal('signal', o.signal);
  const settings: StreamSettings<I, R> = {
    signal,
    onEvent:
      o.onEvent === undefined ? undefined : checkFunction<(e: I) => void>('onEvent', o.onEvent),
    validator: o.validate === undefined ? undefined : checkValidator<R>('validate', o.validate),
    limits: wireLimits(
      wire,
      checkStallOptions(owner, o as StallOptions),
      wire.facts.model(client, request),
      {
        signal,
        isProgress: o.isProgress,
        clock: o.clock,
      },
    ),
    requestOptions: o.requestOptions as Readonly<Record<string, unknown>> | undefined,
    limiter: checkRateLimiter('rateLimiter', o.rateLimiter),
    spendLimit: checkSpendLimit('spendLimit', o.spendLimit),
  };
  return { settings, options: o };
}
