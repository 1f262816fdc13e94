import type { Backoff } from '../backoff/backoff.js';
import { exponential } from '../backoff/exponential.js';
import type { Classification } from '../classify/classification.js';
import { classify } from '../classify/classify.js';
import { type Clock, systemClock } from '../clock/clock.js';
import type { Work } from '../context/call-context.js';
import type { Scope } from '../context/scope.js';
import {
  isRetriesExhaustedError,
  RetriesExhaustedError,
} from '../errors/retries-exhausted-error.js';
import type { GiveUpReason } from '../errors/retries-exhausted-error.js';
import {
  checkBackoff,
  checkClock,
  checkFunction,
  checkInteger,
  checkMs,
  checkOptions,
  type OptionKeys,
} from '../options/validate-options.js';
import {
  asPromise,
  BaseLayer,
  COMPOSE,
  type Invoke,
  isThenable,
  RETRY_PARTS,
  type RetryParts,
} from '../policy/layer.js';
import type { EventedPolicy } from '../policy/policy.js';
import { wholeMs } from '../text/whole-ms.js';
import type { RetryBudget } from './retry-budget.js';
import { checkPredicate, predicateAnswer } from '../options/predicate.js';

/** Options of {@link retry}. */
export interface RetryOptions {
  /** Reported in events (e.g. the dependency), so sinks can tell retry layers apart. */
  name?: string;
  /** Attempts in all, the first call included. Default 3. */
  maxAttempts?: number;
  /** Default `exponential()` (1 s base, ×2, 30 s cap, full jitter). */
  backoff?: Backoff;
  /** Which failures to retry. Default: `c.retryable`. Never asked about a `RetriesExhaustedError`. */
  retryOn?: (error: unknown, c: Classification) => boolean;
  /** A Retry-After hint longer than this gives up at once instead of sleeping. Default 60000. */
  maxRetryAfterMs?: number;
  /** Shared allowance of retries; when it says no, give up at once. Default: none. */
  budget?: RetryBudget;
  clock?: Clock;
  /** Source of jitter in [0, 1). Default `Math.random`. */
  random?: () => number;
}

const RETRY_KEYS: OptionKeys<RetryOptions> = {
  name: true,
  maxAttempts: true,
  backoff: true,
  retryOn: true,
  maxRetryAfterMs: true,
  budget: true,
  clock: true,
  random: true,
};

class RetryPolicy extends BaseLayer {
  readonly #maxAttempts: number;
  readonly #backoff: Backoff;
  readonly #retryOn: ((error: unknown, c: Classification) => boolean) | undefined;
  readonly #maxRetryAfterMs: number;
  readonly #budget: RetryBudget | undefined;
  readonly #clock: Clock;
  readonly #random: () => number;

  constructor(options: RetryOptions | undefined) {
    const o = checkOptions('retry', options, RETRY_KEYS);
    super('retry', o.name);
    this.#maxAttempts =
      o.maxAttempts === undefined ? 3 : checkInteger('maxAttempts', o.maxAttempts, 1);
    this.#backoff =
      o.backoff === undefined ? exponential() : checkBackoff<Backoff>('backoff', o.backoff);
    this.#retryOn = o.retryOn === undefined ? undefined : checkPredicate('retryOn', o.retryOn);
    this.#maxRetryAfterMs =
      o.maxRetryAfterMs === undefined ? 60_000 : checkMs('maxRetryAfterMs', o.maxRetryAfterMs);
    if (
      o.budget !== undefined &&
      (typeof o.budget?.tryRetry !== 'function' || typeof o.budget.recordRequest !== 'function')
    ) {
      throw new TypeError('budget must be a RetryBudget, e.g. retryBudget()');
    }
    this.#budget = o.budget;
    this.#clock = checkClock<Clock>('clock', o.clock ?? systemClock);
    this.#random = o.random === undefined ? Math.random : checkFunction('random', o.random);
  }

  readonly [RETRY_PARTS]: RetryParts = {
    begin: (scope) => {
      this.#budget?.recordRequest();
      return scope.attempt === 1 ? scope : scope.withAttempt(1);
    },
    first: (next, fn, scope) => {
      this.#budget?.recordRequest();
      return next(fn, scope.attempt === 1 ? scope : scope.withAttempt(1));
    },
    recover: (error, next, fn, scope) => this.#retryAfter(error, next, fn, scope),
  };

  [COMPOSE](next: Invoke): Invoke {
    // The first attempt runs without an async frame: the success path pays for one rejection
    // handler, and the loop below only starts once something failed.
    const { first } = this[RETRY_PARTS];
    return (fn: Work<unknown>, scope: Scope): unknown => {
      let result: unknown;
      try {
        result = first(next, fn, scope);
      } catch (error) {
        return this.#retryAfter(error, next, fn, scope);
      }
      if (!isThenable(result)) return result;
      return asPromise(result).then(undefined, (error: unknown) =>
        this.#retryAfter(error, next, fn, scope),
      );
    };
  }

  /** Decides on a failed attempt, sleeps, and runs the next attempts until one succeeds or it gives up. */
  async #retryAfter(
    firstError: unknown,
    next: Invoke,
    fn: Work<unknown>,
    scope: Scope,
  ): Promise<unknown> {
    let error = firstError;
    let errors: unknown[] | undefined;
    let previousDelay = 0;
    for (let attempt = 1; ; attempt++) {
      // The caller (or an enclosing timeout) gave up: nothing is retried after that.
      if (scope.aborted) throw error;
      // ARCHITECTURE.md §P2: an inner retry already owned this failure.
      if (isRetriesExhaustedError(error)) throw error;
      const c = classify(error);
      if (!(this.#retryOn ? predicateAnswer('retryOn', this.#retryOn(error, c)) : c.retryable))
        throw error;
      errors ??= [];
      errors.push(error);
      if (attempt >= this.#maxAttempts) throw this.#giveUp(attempt, errors, 'attempts', scope);
      let delay = this.#backoff.delay(attempt, previousDelay, this.#random);
      if (!(delay >= 0)) delay = 0;
      if (c.retryAfterMs !== undefined) {
        if (c.retryAfterMs > this.#maxRetryAfterMs) {
          throw this.#giveUp(
            attempt,
            errors,
            'retry-after',
            scope,
            `asked to wait ${wholeMs(c.retryAfterMs, Math.ceil)} ms, limit ${wholeMs(this.#maxRetryAfterMs)} ms`,
          );
        }
        delay = Math.max(delay, c.retryAfterMs);
      }
      // The time left is read on the deadline's own clock, whatever clock this retry sleeps on.
      const left = scope.timeLeft();
      if (left !== undefined && delay >= left) {
        throw this.#giveUp(attempt, errors, 'deadline', scope, `next delay ${wholeMs(delay)} ms`);
      }
      if (this.#budget !== undefined && !this.#budget.tryRetry())
        throw this.#giveUp(attempt, errors, 'budget', scope);
      if (this.wants('retry')) {
        this.events.emit(
          'retry',
          { attempt, maxAttempts: this.#maxAttempts, delayMs: delay, error },
          scope,
        );
      }
      if (delay > 0) await this.#clock.sleep(delay, scope.canAbort ? scope.signal : undefined);
      if (scope.aborted) throw scope.reason;
      previousDelay = delay;
      try {
        return await next(fn, scope.withAttempt(attempt + 1));
      } catch (failure) {
        error = failure;
      }
    }
  }

  #giveUp(
    attempts: number,
    errors: unknown[],
    reason: GiveUpReason,
    scope: Scope,
    detail?: string,
  ): RetriesExhaustedError {
    const error = new RetriesExhaustedError(attempts, errors, reason, detail);
    if (this.wants('giveup'))
      this.events.emit(
        'giveup',
        { attempts, maxAttempts: this.#maxAttempts, error: errors[errors.length - 1], reason },
        scope,
      );
    return error;
  }
}

/**
 * Retries transient failures with jittered backoff. The delay before retry n is
 * `max(backoff.delay(n), retryAfterMs ?? 0)`; it gives up at once when that reaches the time left
 * before the enclosing deadline, when a Retry-After hint exceeds `maxRetryAfterMs`, or when a retry
 * budget says no. Errors `retryOn` declines are rethrown unchanged; giving up rejects with
 * `RetriesExhaustedError` (cause = last error, `errors` = all), which no enclosing retry retries.
 * Defaults: maxAttempts 3, exponential() backoff, maxRetryAfterMs 60000.
 * Events: `retry` {attempt, delayMs, error}, `giveup` {attempts, error, reason}.
 *
 * @example
 * const policy = retry({ maxAttempts: 4, backoff: exponential({ baseMs: 500 }) })
 * const reply = await policy.execute((ctx) => client.messages.create(body, { signal: ctx.signal }))
 */
export function retry(options?: RetryOptions): EventedPolicy<'retry' | 'giveup'> {
  return new RetryPolicy(options);
}
