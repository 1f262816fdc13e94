import { type Clock, systemClock } from '../clock/clock.js';
import { wallClock } from '../clock/wall-clock.js';
import {
  checkClock,
  checkMs,
  checkName,
  checkNumber,
  checkOptions,
  type OptionKeys,
  showValue,
} from '../options/validate-options.js';
import type { RetryBudget } from '../retry/retry-budget.js';
import type { RetryBudgetStore } from '../store/retry-budget-store.js';
import { BUDGET_BUCKETS } from '../transitions/retry-budget.js';
import { SharedRetryBudget, type SharedRetryBudgetHandle } from './shared-retry-budget.js';
import { TimeBuckets } from './time-buckets.js';

/** Options of {@link retryBudget}. */
export interface RetryBudgetOptions {
  /** Retries allowed as a fraction of requests over the window. Default 0.1 (10 %). */
  ratio?: number;
  /** A floor of retries per second for low traffic; its bucket starts full. Default 3. */
  minPerSecond?: number;
  /** The sliding window over which requests and retries are counted, ms. Default 10000. */
  windowMs?: number;
  /** Default `systemClock`; with a store, `wallClock` (every process needs one time scale). */
  clock?: Clock;
  /**
   * Share the budget with every process using this store (any recourse store: `memoryStore()`,
   * `sqliteStore`, `redisStore`, `postgresStore`): one window and one floor bucket for all of them.
   */
  store?: RetryBudgetStore;
  /** With a store: the budget's name in it; processes using the same name share one budget. Default `'default'`. */
  name?: string;
  /** With a store: a store call slower than this counts as the store being unavailable, ms. Default 250. */
  storeTimeoutMs?: number;
  /** With a store: tokens taken ahead and unused for this long are given back, ms. Default 1000. */
  leaseMs?: number;
}

const RETRY_BUDGET_KEYS: OptionKeys<RetryBudgetOptions> = {
  ratio: true,
  minPerSecond: true,
  windowMs: true,
  clock: true,
  store: true,
  name: true,
  storeTimeoutMs: true,
  leaseMs: true,
};

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
  /**
   * A shared budget's link to its store: whether it answers, the tokens this process holds, the
   * requests it has not reported yet. With a store, `requests`, `retries` and `floorTokens` are
   * every process's, as of the store's last answer (this process's own while the store is down),
   * and `denied` counts this process's refusals.
   */
  store?: { name: string; available: boolean; heldTokens: number; unreportedRequests: number };
}

/** A retry budget that can also report its state. */
export interface RetryBudgetHandle extends RetryBudget {
  stats(): RetryBudgetStats;
}

interface Counts {
  requests: number;
  retries: number;
}

interface BudgetSettings {
  ratio: number;
  minPerSecond: number;
  windowMs: number;
  clock: Clock;
}

class TokenRetryBudget implements RetryBudgetHandle {
  readonly #ratio: number;
  readonly #perMs: number;
  readonly #capacity: number;
  readonly #clock: Clock;
  readonly #window: TimeBuckets<Counts>;
  #tokens: number;
  #refilledAt: number;
  #denied = 0;

  constructor(settings: BudgetSettings) {
    const perSecond = settings.minPerSecond;
    this.#ratio = settings.ratio;
    this.#clock = settings.clock;
    this.#perMs = perSecond / 1000;
    // One second's worth of floor, at least one whole retry, so a fractional rate still grants some.
    this.#capacity = perSecond === 0 ? 0 : Math.max(1, perSecond);
    this.#tokens = this.#capacity;
    this.#refilledAt = this.#clock.now();
    this.#window = new TimeBuckets<Counts>(
      settings.windowMs,
      BUDGET_BUCKETS,
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
 *
 * With `store`, one budget serves every process that uses the same store and `name`: eight workers
 * together retry within `ratio` of their requests, not eight times that. `tryRetry()` still never
 * waits: each process spends tokens it took ahead in small leases and reports its requests a few
 * times a second (see {@link SharedRetryBudgetHandle}; `close()` it on shutdown). While the store
 * is unavailable each process falls back to a budget of its own (events `store_unavailable`,
 * `store_recovered`).
 * Defaults: ratio 0.1, minPerSecond 3, windowMs 10000; with a store: name 'default',
 * clock wallClock, storeTimeoutMs 250, leaseMs 1000.
 *
 * @example
 * const budget = retryBudget({ ratio: 0.1 })
 * const search = pipeline(breakers.get('search'), retry({ name: 'search', budget }), timeout(20_000))
 * const summarize = pipeline(retry({ name: 'search', budget }), timeout(60_000)) // same budget
 * // one budget for every worker sharing the store
 * const fleet = retryBudget({ store: redisStore({ client: new Redis() }), name: 'claude' })
 */
export function retryBudget(
  options?: RetryBudgetOptions & { store?: undefined },
): RetryBudgetHandle;
export function retryBudget(
  options: RetryBudgetOptions & { store: RetryBudgetStore },
): SharedRetryBudgetHandle;
export function retryBudget(
  options?: RetryBudgetOptions,
): RetryBudgetHandle | SharedRetryBudgetHandle;
export function retryBudget(
  options?: RetryBudgetOptions,
): RetryBudgetHandle | SharedRetryBudgetHandle {
  const o = checkOptions('retryBudget', options, RETRY_BUDGET_KEYS);
  const ratio = o.ratio === undefined ? 0.1 : checkNumber('ratio', o.ratio, 0, 1);
  const minPerSecond =
    o.minPerSecond === undefined ? 3 : checkNumber('minPerSecond', o.minPerSecond, 0);
  if (!Number.isFinite(minPerSecond))
    throw new RangeError(`minPerSecond must be a finite number >= 0, got ${minPerSecond}`);
  const windowMs = o.windowMs === undefined ? 10_000 : checkMs('windowMs', o.windowMs, 1);
  const store = o.store;
  if (store === undefined) {
    for (const key of ['name', 'storeTimeoutMs', 'leaseMs'] as const) {
      if (o[key] !== undefined)
        throw new TypeError(`${key} needs a store (it applies to a budget shared through one)`);
    }
    return new TokenRetryBudget({
      ratio,
      minPerSecond,
      windowMs,
      clock: checkClock<Clock>('clock', o.clock ?? systemClock),
    });
  }
  if (
    typeof store !== 'object' ||
    store === null ||
    typeof store.retryBudgetTake !== 'function' ||
    typeof store.retryBudgetGet !== 'function'
  ) {
    throw new TypeError(
      `store must be a RetryBudgetStore (memoryStore(), sqliteStore(), redisStore(), postgresStore()), got ${showValue(store)}`,
    );
  }
  const clock = checkClock<Clock>('clock', o.clock ?? wallClock);
  return new SharedRetryBudget(new TokenRetryBudget({ ratio, minPerSecond, windowMs, clock }), {
    store,
    name: o.name === undefined ? 'default' : checkName('name', o.name),
    limits: { ratio, minPerSecond, windowMs },
    clock,
    storeTimeoutMs:
      o.storeTimeoutMs === undefined ? 250 : checkMs('storeTimeoutMs', o.storeTimeoutMs, 1),
    leaseMs: o.leaseMs === undefined ? 1000 : checkMs('leaseMs', o.leaseMs, 1),
  });
}
