import { type Clock, systemClock } from '../clock/clock.js';
import { checkClock, checkMs, checkNumber, checkOptions, type OptionKeys } from '../options/validate-options.js';
import type { RetryBudget } from '../retry/retry-budget.js';
import { TimeBuckets } from './time-buckets.js';

/** Options of {@link retryBudget}. */
export interface RetryBudgetOptions {
  /** Retries allowed as a fraction of requests over the window. Default 0.1 (10 %). */
  ratio?: number;
  /** A floor of retries per second for low traffic; its bucket starts full. Default 3. */
  minPerSecond?: number;
  /** The sliding window over which requests and retries are counted, ms. Default 10000. */
  windowMs?: number;
  clock?: Clock;
}

const RETRY_BUDGET_KEYS: OptionKeys<RetryBudgetOptions> = { ratio: true, minPerSecond: true, windowMs: true, clock: true };

/** What a retry budget has seen over its window (for dashboards and tests). */
export interface RetryBudgetStats {
  /** Logical calls recorded in the window. */
  requests: number;
  /** Retries granted in the window (by the ratio and by the floor). */
  retries: number;
  /** Retries refused since the budget was created. */
  denied: number;
  /** Floor tokens available now. */
  floorTokens: number;
  ratio: number;
  minPerSecond: number;
  windowMs: number;
}

/** A retry budget that can also report its state. */
export interface RetryBudgetHandle extends RetryBudget {
  stats(): RetryBudgetStats;
}

interface Counts {
  requests: number;
  retries: number;
}

// One bucket per second of the default window: fine enough that credit expires on time, coarse
// enough that a budget costs a few hundred bytes however busy it is.
const BUCKETS = 10;

class TokenRetryBudget implements RetryBudgetHandle {
  readonly #ratio: number;
  readonly #perMs: number;
  readonly #capacity: number;
  readonly #clock: Clock;
  readonly #window: TimeBuckets<Counts>;
  #tokens: number;
  #refilledAt: number;
  #denied = 0;

  constructor(options: RetryBudgetOptions | undefined) {
    const o = checkOptions('retryBudget', options, RETRY_BUDGET_KEYS);
    this.#ratio = o.ratio === undefined ? 0.1 : checkNumber('ratio', o.ratio, 0, 1);
    const perSecond = o.minPerSecond === undefined ? 3 : checkNumber('minPerSecond', o.minPerSecond, 0);
    if (!Number.isFinite(perSecond)) throw new RangeError(`minPerSecond must be a finite number >= 0, got ${perSecond}`);
    const windowMs = o.windowMs === undefined ? 10_000 : checkMs('windowMs', o.windowMs, 1);
    this.#clock = checkClock<Clock>('clock', o.clock ?? systemClock);
    this.#perMs = perSecond / 1000;
    // One second's worth of floor, at least one whole retry, so a fractional rate still grants some.
    this.#capacity = perSecond === 0 ? 0 : Math.max(1, perSecond);
    this.#tokens = this.#capacity;
    this.#refilledAt = this.#clock.now();
    this.#window = new TimeBuckets<Counts>(
      windowMs,
      BUCKETS,
      () => ({ requests: 0, retries: 0 }),
      (b) => {
        b.requests = 0;
        b.retries = 0;
      },
    );
  }

  recordRequest(): void {
    this.#window.at(this.#clock.now()).requests++;
  }

  tryRetry(): boolean {
    const now = this.#clock.now();
    const { requests, retries } = this.#totals(now);
    // Grant only if the window stays within ratio once this retry is counted (the small epsilon
    // absorbs float error in ratio × requests, e.g. 0.1 × 70).
    if (retries + 1 <= this.#ratio * requests + 1e-9) {
      this.#window.at(now).retries++;
      return true;
    }
    this.#refill(now);
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      this.#window.at(now).retries++;
      return true;
    }
    this.#denied++;
    return false;
  }

  stats(): RetryBudgetStats {
    const now = this.#clock.now();
    this.#refill(now);
    return {
      ...this.#totals(now),
      denied: this.#denied,
      floorTokens: this.#tokens,
      ratio: this.#ratio,
      minPerSecond: this.#perMs * 1000,
      windowMs: this.#window.windowMs,
    };
  }

  #totals(now: number): Counts {
    let requests = 0;
    let retries = 0;
    this.#window.forEach(now, (b) => {
      requests += b.requests;
      retries += b.retries;
    });
    return { requests, retries };
  }

  #refill(now: number): void {
    const elapsed = now - this.#refilledAt;
    if (elapsed > 0) this.#tokens = Math.min(this.#capacity, this.#tokens + elapsed * this.#perMs);
    this.#refilledAt = now;
  }
}

/**
 * A shared allowance of retries, in the style of the SRE book's retry budget and gRPC retry
 * throttling: a retry is granted while retries stay within `ratio` of the requests seen over the
 * sliding window, or when the floor bucket (refilled at `minPerSecond`, starting full, holding one
 * second's worth) has a token. Credit expires with the window, so a quiet spell does not store up
 * a retry storm. Against a dead dependency, `retry()` with a budget makes about `1 + ratio` calls
 * per logical call (plus the floor) instead of `maxAttempts`; a refused retry makes retry give up
 * at once with `RetriesExhaustedError` reason `'budget'` and a `giveup` event with that reason.
 * Share one budget between every policy that calls the same dependency.
 * Defaults: ratio 0.1, minPerSecond 3, windowMs 10000.
 *
 * @example
 * const budget = retryBudget({ ratio: 0.1 })
 * const search = pipeline(breakers.get('search'), retry({ name: 'search', budget }), timeout(20_000))
 * const summarize = pipeline(retry({ name: 'search', budget }), timeout(60_000)) // same budget
 */
export function retryBudget(options?: RetryBudgetOptions): RetryBudgetHandle {
  return new TokenRetryBudget(options);
}
