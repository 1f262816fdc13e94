import { classify } from '../classify/classify.js';
import { type Clock, systemClock } from '../clock/clock.js';
import { wallClock } from '../clock/wall-clock.js';
import type { Work } from '../context/call-context.js';
import { ambientScope, type Scope, ScopeSlot } from '../context/scope.js';
import { abortReason } from '../errors/abort-error.js';
import {
  checkClock,
  checkFunction,
  checkName,
  checkNumber,
  checkOptions,
  checkSignal,
  type OptionKeys,
  showValue,
} from '../options/validate-options.js';
import { BaseLayer, COMPOSE, type Invoke } from '../policy/layer.js';
import type { EventedPolicy } from '../policy/policy.js';
import type { RateLimitStore } from '../store/rate-limit-store.js';
import {
  newRateLimitRecord,
  RATE_LIMIT_WINDOW_MS,
  type RateLimitAnswer,
  type RateLimitCost,
  type RateLimitMarks,
  type RateLimitRecord,
  rateLimitTransition,
  type RateLimitUpdate,
} from '../transitions/rate-limit.js';
import type { TokenUsage } from '../dialects/dialect.js';
import {
  estimateTokens,
  headersOf,
  parseRateLimitHeaders,
  statusOf,
  usageOf,
} from '../dialects/read-facts.js';
import {
  RATE_LIMIT_DIMENSIONS,
  type RateLimitDimension,
  type RateLimitReadings,
} from './rate-limit-headers.js';
import { onAbort } from '../signal/on-abort.js';

/** Options of {@link rateLimiter}. */
export interface RateLimiterOptions {
  /** The limiter's name in events and in a store (processes using one name share one limiter). Default `'default'`. */
  name?: string;
  /** Default `systemClock`; with a store, `wallClock` (every process needs one time scale). */
  clock?: Clock;
  /** A first guess of the requests limit per minute, used until a response says. Default: none (learn first). */
  requestsPerMinute?: number;
  /** A first guess of the tokens limit per minute (input and output together), used until a response says. Default: none. */
  tokensPerMinute?: number;
  /**
   * The tokens a request will be charged, from its body (adapters pass it; a policy call has none).
   * Default {@link estimateTokens}: input ≈ characters / 4, output = `max_tokens`.
   */
  estimate?: (request: unknown) => TokenUsage;
  /** Share the limits and the queue with every process using this store and name (`redisStore`, `postgresStore`; `memoryStore()` in one process). Default: this process only. */
  store?: RateLimitStore;
}

const RATE_LIMITER_KEYS: OptionKeys<RateLimiterOptions> = {
  name: true,
  clock: true,
  requestsPerMinute: true,
  tokensPerMinute: true,
  estimate: true,
  store: true,
};

/**
 * One call's place in a limiter's queue, from `rateLimiter().acquire()`. Report what the provider
 * answered so the limiter learns: `observe(headers)` when the response headers arrive, then
 * `done(result)` or `fail(error)`. Each is safe to call more than once (the first report counts).
 *
 * @example
 * const permit = await limiter.acquire(body, { signal })
 * try { const r = await call(); permit.done(r); return r } catch (e) { permit.fail(e); throw e }
 */
export interface RateLimitPermit {
  /** The limiter that granted it. */
  readonly limiter: RateLimiter;
  /** The provider's response headers (a fetch `Headers` or a plain object): limits, remaining, resets. */
  observe(headers: unknown): void;
  /** The call succeeded: headers found on the result are learned (if not observed yet), and reserved output it did not use is given back. */
  done(result?: unknown): void;
  /** The call failed: its headers are learned, and a 429 pauses every call for its Retry-After. */
  fail(error: unknown): void;
}

/** What a limiter knows of one limit: the limit per minute and the level it expects now (negative: calls queued). */
export interface RateLimitView {
  limit: number;
  level: number;
}

/**
 * A client-side rate limiter (see {@link rateLimiter}): a policy, and a source of permits for code
 * that sends requests itself.
 */
export interface RateLimiter
  extends EventedPolicy<
    'rate_limit_wait' | 'rate_limit_learned' | 'store_unavailable' | 'store_recovered'
  > {
  readonly name: string;
  /**
   * Waits until a request with this body may be sent without a 429 and reserves its cost (1
   * request, its estimated tokens). Abortable: a cancelled wait gives its place back.
   */
  acquire(request?: unknown, options?: { signal?: AbortSignal }): Promise<RateLimitPermit>;
  /** The limits this process knows, as of now. */
  limits(): Partial<Record<RateLimitDimension, RateLimitView>>;
}

/** @internal The permit of the call in progress, for adapters nested in a limiter's policy call. */
export const RATE_PERMIT: ScopeSlot<RateLimitPermit> = new ScopeSlot<RateLimitPermit>(
  'recourse.rateLimitPermit',
);

/** @internal The permit an enclosing limiter's policy holds for the current call, if any. */
export function ambientPermit(): RateLimitPermit | undefined {
  return ambientScope()?.get(RATE_PERMIT);
}

/** A probe that has not reported after this long lets another call learn the limits. */
const PROBE_MS = 30_000;
/** Weight of the newest call in the running average of tokens per call (for calls without a body). */
const AVERAGE_WEIGHT = 0.2;

/** @internal */
export class Permit implements RateLimitPermit {
  #observed = false;
  #settled = false;
  #failed = false;
  constructor(
    readonly limiter: RateLimiterPolicy,
    readonly cost: RateLimitCost,
    readonly marks: RateLimitMarks,
    readonly sentAt: number,
    readonly reservedOutput: number,
  ) {}

  observe(headers: unknown): void {
    this.learn(parseRateLimitHeaders(headers));
  }

  /** @internal What the response headers said, read by the adapter's wire. */
  learn(readings: RateLimitReadings | undefined): void {
    if (this.#observed || readings === undefined) return;
    this.#observed = true;
    this.limiter.report(this, {
      readings,
      limited: false,
      retryAfterMs: undefined,
      answered: true,
    });
  }

  done(result?: unknown): void {
    this.settled(usageOf(result), result);
  }

  /** @internal The call succeeded and used `usage` (read by the adapter's wire, or from `result`). */
  settled(usage: TokenUsage | undefined, result?: unknown): void {
    if (!this.#observed) {
      this.#observed = true;
      // A result without headers is an answer too: a provider that sends none is not limited here.
      this.limiter.report(this, {
        readings: parseRateLimitHeaders(headersOf(result)),
        limited: false,
        retryAfterMs: undefined,
        answered: true,
      });
    }
    if (this.#settled) return;
    this.#settled = true;
    if (usage !== undefined) this.limiter.settle(this, usage);
  }

  fail(error: unknown): void {
    if (this.#failed) return;
    this.#failed = true;
    this.#settled = true;
    const status = statusOf(error);
    const limited = status === 429;
    if (this.#observed && !limited) return;
    this.#observed = true;
    const readings = parseRateLimitHeaders(headersOf(error));
    const retryAfterMs = limited ? classify(error).retryAfterMs : undefined;
    this.limiter.report(this, { readings, limited, retryAfterMs, answered: status !== undefined });
  }
}

interface Report {
  readings: RateLimitReadings | undefined;
  limited: boolean;
  retryAfterMs: number | undefined;
  answered: boolean;
}

class RateLimiterPolicy extends BaseLayer implements RateLimiter {
  readonly name: string;
  readonly #clock: Clock;
  readonly #guess: Partial<RateLimitCost>;
  readonly #estimate: ((request: unknown) => TokenUsage) | undefined;
  readonly #store: RateLimitStore | undefined;
  readonly #local: RateLimitRecord;
  readonly #wakers = new Set<() => void>();
  #average: TokenUsage | undefined;
  #storeDownSince: number | undefined;
  #lastLimits = '';

  constructor(
    name: string,
    clock: Clock,
    guess: Partial<RateLimitCost>,
    estimate: ((request: unknown) => TokenUsage) | undefined,
    store: RateLimitStore | undefined,
  ) {
    super('rate-limiter', name);
    this.name = name;
    this.#clock = clock;
    this.#guess = guess;
    this.#estimate = estimate;
    this.#store = store;
    this.#local = newRateLimitRecord(clock.now());
  }

  [COMPOSE](next: Invoke): Invoke {
    return async (fn: Work<unknown>, scope: Scope): Promise<unknown> => {
      const outer = scope.get(RATE_PERMIT);
      // Nested in a call this limiter already admitted (a retry inside it, say): one reservation.
      if (outer !== undefined && outer.limiter === this) return next(fn, scope);
      const permit = (await this.#acquire(
        undefined,
        scope.canAbort ? scope.signal : undefined,
        scope,
      )) as Permit;
      try {
        const value = await next(fn, scope.withSlot(RATE_PERMIT, permit));
        permit.done(value);
        return value;
      } catch (error) {
        permit.fail(error);
        throw error;
      }
    };
  }

  acquire(request?: unknown, options?: { signal?: AbortSignal }): Promise<RateLimitPermit> {
    let signal: AbortSignal | undefined;
    try {
      signal = checkSignal('signal', checkOptions('acquire', options, { signal: true }).signal);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#acquire(request, signal, undefined);
  }

  limits(): Partial<Record<RateLimitDimension, RateLimitView>> {
    const elapsed = Math.max(0, this.#clock.now() - this.#local.at);
    const out: Partial<Record<RateLimitDimension, RateLimitView>> = {};
    for (const dim of RATE_LIMIT_DIMENSIONS) {
      const b = this.#local.buckets[dim];
      if (b !== undefined)
        out[dim] = {
          limit: b.limit,
          level: Math.min(b.limit, b.level + (elapsed * b.limit) / RATE_LIMIT_WINDOW_MS),
        };
    }
    return out;
  }

  #cost(request: unknown): { cost: RateLimitCost; output: number } {
    let usage: TokenUsage;
    if (request === undefined) usage = this.#average ?? { input: 0, output: 0 };
    else {
      const e = (this.#estimate ?? estimateTokens)(request);
      const ok = (n: unknown): number =>
        typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : 0;
      usage = { input: ok(e?.input), output: ok(e?.output) };
    }
    const input = Math.ceil(usage.input);
    const output = Math.ceil(usage.output);
    return {
      cost: { requests: 1, tokens: input + output, inputTokens: input, outputTokens: output },
      output,
    };
  }

  async #acquire(
    request: unknown,
    signal: AbortSignal | undefined,
    scope: Scope | undefined,
  ): Promise<Permit> {
    const { cost, output } = this.#cost(request);
    for (;;) {
      if (signal?.aborted) throw abortReason(signal);
      const answer = await this.#update({
        type: 'take',
        cost,
        guess: this.#guess,
        probeMs: PROBE_MS,
      });
      if (answer.kind === 'learning') {
        if (this.wants('rate_limit_wait'))
          this.events.emit(
            'rate_limit_wait',
            { name: this.name, waitMs: answer.retryInMs, reason: 'learning' },
            scope,
          );
        // Another process's probe wakes nobody here: ask the store again soon.
        await this.#waitForLearning(
          this.#store === undefined ? answer.retryInMs : Math.min(answer.retryInMs, 250),
          signal,
        );
        continue;
      }
      if (answer.kind === 'done') throw new Error('rate limiter: a take answered done');
      if (answer.kind === 'go' && answer.waitMs > 0) {
        if (this.wants('rate_limit_wait'))
          this.events.emit(
            'rate_limit_wait',
            { name: this.name, waitMs: answer.waitMs, reason: answer.reason ?? 'queue' },
            scope,
          );
        try {
          await this.#clock.sleep(answer.waitMs, signal);
          // A timer may fire a little early (Node measures from the event loop's cached time):
          // never before the send time, which the provider's bucket was counted for.
          for (
            let i = 0, early = answer.sendAt - this.#clock.now();
            early > 0 && i < 3;
            i++, early = answer.sendAt - this.#clock.now()
          ) {
            await this.#clock.sleep(early, signal);
          }
        } catch (error) {
          // Never sent: its place goes back to the calls behind it.
          void this.#update({ type: 'give_back', cost });
          throw error;
        }
        // An answer showed less room than this reservation counted on (a 429, a lower limit):
        // its slot may be too early now; give it back and queue again.
        if ((await this.#epoch()) !== answer.epoch) {
          await this.#update({ type: 'give_back', cost });
          continue;
        }
      }
      return new Permit(this, cost, answer.marks, answer.sendAt, output);
    }
  }

  async #waitForLearning(ms: number, signal: AbortSignal | undefined): Promise<void> {
    const controller = new AbortController();
    let woken = false;
    const wake = (): void => {
      woken = true;
      controller.abort();
    };
    this.#wakers.add(wake);
    const unlink = onAbort(signal, () => controller.abort());
    try {
      await this.#clock.sleep(ms, controller.signal);
    } catch (error) {
      if (!woken && !signal?.aborted) throw error;
    } finally {
      this.#wakers.delete(wake);
      unlink();
    }
    if (signal?.aborted) throw abortReason(signal);
  }

  /** @internal */
  report(permit: Permit, r: Report): void {
    const update: RateLimitUpdate = {
      type: 'observe',
      sentAt: permit.sentAt,
      marks: permit.marks,
      readings: r.readings,
      answered: r.answered,
      limited: r.limited,
      retryAfterMs: r.retryAfterMs,
    };
    void this.#update(update).then(() => {
      if (r.readings !== undefined) this.#learned(r.readings);
      // Calls waiting for the limits to be learned ask again (this process's; others poll).
      for (const wake of [...this.#wakers]) wake();
    });
  }

  /** @internal */
  settle(permit: Permit, usage: TokenUsage): void {
    const a = this.#average;
    this.#average =
      a === undefined
        ? usage
        : {
            input: a.input + AVERAGE_WEIGHT * (usage.input - a.input),
            output: a.output + AVERAGE_WEIGHT * (usage.output - a.output),
          };
    const unused = Math.max(0, permit.reservedOutput - usage.output);
    if (unused > 0)
      void this.#update({
        type: 'give_back',
        cost: { requests: 0, tokens: unused, inputTokens: 0, outputTokens: unused },
      });
  }

  #learned(readings: RateLimitReadings): void {
    const limits: Partial<Record<RateLimitDimension, number>> = {};
    for (const dim of RATE_LIMIT_DIMENSIONS) {
      const r = readings[dim];
      if (r !== undefined) limits[dim] = r.limit;
    }
    const key = JSON.stringify(limits);
    if (key === this.#lastLimits) return;
    this.#lastLimits = key;
    if (this.wants('rate_limit_learned'))
      this.events.emit('rate_limit_learned', { name: this.name, limits });
  }

  async #epoch(): Promise<number> {
    if (this.#store !== undefined && this.#storeDownSince === undefined) {
      try {
        const r = await this.#store.rateLimitGet(this.name);
        if (r !== undefined) return r.epoch;
      } catch {
        // The next update notices the outage; decide from the local copy meanwhile.
      }
    }
    return this.#local.epoch;
  }

  async #update(update: RateLimitUpdate): Promise<RateLimitAnswer> {
    const store = this.#store;
    const now = this.#clock.now();
    if (store !== undefined) {
      try {
        const answer = await store.rateLimitUpdate(this.name, update, now);
        if (this.#storeDownSince !== undefined) {
          if (this.wants('store_recovered'))
            this.events.emit('store_recovered', {
              name: this.name,
              downMs: this.#clock.now() - this.#storeDownSince,
            });
          this.#storeDownSince = undefined;
        }
        // Keep a local copy of what was learned, for limits() and for an outage.
        rateLimitTransition(this.#local, update, now);
        return answer;
      } catch (error) {
        if (this.#storeDownSince === undefined) {
          this.#storeDownSince = now;
          if (this.wants('store_unavailable'))
            this.events.emit('store_unavailable', { name: this.name, error });
        }
      }
    }
    return rateLimitTransition(this.#local, update, now);
  }
}

function checkPerMinute(name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const n = checkNumber(name, value, 1);
  if (!Number.isFinite(n))
    throw new RangeError(`${name} must be a finite number >= 1, got ${showValue(value)}`);
  return n;
}

/**
 * A client-side rate limiter that learns the provider's limits from its response headers
 * (Anthropic `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-*`, OpenAI
 * `x-ratelimit-*`) and holds calls back before the provider would answer 429, instead of retrying
 * after it. It models each limit as the providers document it: a bucket of `limit` that refills
 * over a minute. Every call reserves its cost (1 request; with a body, its estimated input tokens
 * and `max_tokens`) at the earliest time the buckets hold it, behind the calls reserved before it,
 * so a burst goes out at exactly the rate the provider allows. Until it knows the limits (and no
 * guess was given) it lets one call through to learn them; a provider that sends no headers is not
 * limited. A 429 that gets through pauses every call for its Retry-After.
 *
 * As a policy (in `pipeline(retry(), limiter, …)`) it reads headers from results and errors (SDK
 * `APIError.headers`, the AI SDK's `responseHeaders` and `response.headers`, `withResponse()`
 * results); `streamMessage` (`agent-recourse/anthropic`) and `streamChat` (`agent-recourse/openai`) report the
 * raw response's headers to it, and take `rateLimiter` as an option to reserve tokens from the
 * request body. Use one limiter per model (providers limit each model apart). With `store`
 * (`redisStore`, `postgresStore`), every process using the same store and `name` shares one set of
 * buckets and one queue; while the store fails, each process decides from its own record.
 * Events: `rate_limit_wait` {name, waitMs, reason}, `rate_limit_learned` {name, limits}, with a
 * store `store_unavailable` {name, error} and `store_recovered` {name, downMs}.
 * Defaults: name 'default', clock systemClock (wallClock with a store), no guesses, estimate
 * {@link estimateTokens}.
 *
 * @example
 * const limiter = rateLimiter({ name: 'claude-sonnet' })
 * const call = pipeline(retry(), limiter, timeout(120_000))
 * const answers = await Promise.all(tasks.map((t) => call.execute((ctx) => client.messages.create(t, { signal: ctx.signal }))))
 */
export function rateLimiter(options?: RateLimiterOptions): RateLimiter {
  const o = checkOptions('rateLimiter', options, RATE_LIMITER_KEYS);
  const name = o.name === undefined ? 'default' : checkName('name', o.name);
  const store = o.store;
  if (
    store !== undefined &&
    (typeof store !== 'object' || store === null || typeof store.rateLimitUpdate !== 'function')
  ) {
    throw new TypeError(
      `store must be a RateLimitStore (redisStore(), postgresStore(), memoryStore()), got ${showValue(store)}`,
    );
  }
  const clock = checkClock<Clock>(
    'clock',
    o.clock ?? (store === undefined ? systemClock : wallClock),
  );
  const guess: Partial<RateLimitCost> = {};
  const requests = checkPerMinute('requestsPerMinute', o.requestsPerMinute);
  const tokens = checkPerMinute('tokensPerMinute', o.tokensPerMinute);
  if (requests !== undefined) guess.requests = requests;
  if (tokens !== undefined) guess.tokens = tokens;
  const estimate =
    o.estimate === undefined
      ? undefined
      : checkFunction<(request: unknown) => TokenUsage>('estimate', o.estimate);
  return new RateLimiterPolicy(name, clock, guess, estimate, store);
}
