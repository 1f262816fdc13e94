import { BreakerRegistry } from '../circuit-breaker/breaker-registry.js';
import {
  CLOSED_PERIOD,
  isTrippable,
  TRIP,
  type TrippableBreaker,
} from '../circuit-breaker/breaker-trip.js';
import type { CircuitBreaker } from '../circuit-breaker/circuit-breaker.js';
import type { SpendEvents } from './spend-events.js';
import {
  checkMs,
  checkNumber,
  checkOptions,
  type OptionKeys,
  showValue,
} from '../options/validate-options.js';
import { SpendWindow } from './spend-window.js';

/**
 * The `rate` option of `spendLimit`: open a circuit breaker when more than `usd` or `tokens` (one
 * of them) is spent within `perMs`. The window follows the breaker: one window for a
 * `circuitBreaker` (everything this limit counts), one per dependency for a `BreakerRegistry` (the
 * dependency's breaker, `registry.get(name)`).
 *
 * @example
 * const breakers = new BreakerRegistry({ cooldownMs: 60_000 })
 * const limit = spendLimit({ usd: 20, prices, per: 'dependency', rate: { usd: 1, perMs: 60_000, breaker: breakers } })
 */
export interface SpendRateOptions {
  /** At most this many USD within `perMs` (needs the limit's `prices`). */
  usd?: number;
  /** At most this many tokens, input and output together, within `perMs`. */
  tokens?: number;
  /** The length of the sliding window, ms. */
  perMs: number;
  /** The breaker that opens: one `circuitBreaker()`, or a `BreakerRegistry` for one per dependency. */
  breaker: CircuitBreaker | BreakerRegistry;
}

const RATE_KEYS: OptionKeys<SpendRateOptions> = {
  usd: true,
  tokens: true,
  perMs: true,
  breaker: true,
};

type Exceeded = SpendEvents['spend_rate_exceeded'];

function checkPositive(name: string, value: unknown): number {
  const n = checkNumber(name, value, 0);
  if (n === 0 || !Number.isFinite(n))
    throw new RangeError(`${name} must be a finite number > 0, got ${showValue(value)}`);
  return n;
}

/**
 * @internal A spend limit's spend rate: a sliding window per breaker of what was spent while that
 * breaker was closed (its current closed period: a window left over from before an open or a
 * reset is dropped), which trips the breaker when its sum passes the limit. Spending while the
 * breaker is not closed (the probe's, a straggler's) is not counted.
 */
export class SpendRate {
  readonly unit: 'usd' | 'tokens';
  readonly limit: number;
  readonly perMs: number;
  /** The spend limit's name: the event's `name` with one breaker. */
  readonly #name: string;
  readonly #breakers: TrippableBreaker | BreakerRegistry;
  readonly #windows = new Map<string, SpendWindow>();

  constructor(
    name: string,
    unit: 'usd' | 'tokens',
    limit: number,
    perMs: number,
    breakers: TrippableBreaker | BreakerRegistry,
  ) {
    this.#name = name;
    this.unit = unit;
    this.limit = limit;
    this.perMs = perMs;
    this.#breakers = breakers;
  }

  /**
   * Counts `cost` (in `unit`) spent on `dependency`; when the window's sum passes the limit,
   * `exceeded` is told and the breaker trips.
   */
  add(dependency: string, cost: number, exceeded: (e: Exceeded) => void): void {
    const registry = this.#breakers instanceof BreakerRegistry ? this.#breakers : undefined;
    const breaker =
      registry === undefined
        ? (this.#breakers as TrippableBreaker)
        : (registry.get(dependency) as TrippableBreaker);
    const key = registry === undefined ? '' : dependency;
    const period = breaker[CLOSED_PERIOD]();
    let window = this.#windows.get(key);
    if (period === undefined) {
      if (window !== undefined) this.#windows.delete(key);
      return;
    }
    if (window === undefined || window.period !== period) {
      window = new SpendWindow(this.perMs, period);
      this.#windows.set(key, window);
    }
    const rate = window.add(breaker.options.clock.now(), cost);
    if (!(rate > this.limit)) return;
    this.#windows.delete(key);
    exceeded({
      name: registry === undefined ? this.#name : dependency,
      unit: this.unit,
      rate,
      limit: this.limit,
      perMs: this.perMs,
      breaker: breaker.name,
    });
    breaker[TRIP]('spend_rate');
  }

  /** Forgets every window (the spend limit's `reset()`). */
  clear(): void {
    this.#windows.clear();
  }
}

/** @internal The `rate` option, checked; `prices` says whether USD can be counted. */
export function checkSpendRate(value: unknown, hasPrices: boolean, limitName: string): SpendRate {
  const o = checkOptions('rate', value as SpendRateOptions, RATE_KEYS);
  if ((o.usd === undefined) === (o.tokens === undefined))
    throw new TypeError(`rate needs exactly one of usd and tokens, got ${showValue(value)}`);
  const unit = o.usd !== undefined ? 'usd' : 'tokens';
  const limit = checkPositive(`rate.${unit}`, o.usd ?? o.tokens);
  if (unit === 'usd' && !hasPrices)
    throw new TypeError(
      "rate.usd needs the spend limit's prices (USD per million tokens by model)",
    );
  const perMs = checkMs('rate.perMs', o.perMs, 1);
  const breaker = o.breaker;
  if (!(breaker instanceof BreakerRegistry) && !isTrippable(breaker)) {
    throw new TypeError(
      `rate.breaker must be a circuitBreaker() or a BreakerRegistry, got ${showValue(breaker)}`,
    );
  }
  return new SpendRate(limitName, unit, limit, perMs, breaker);
}
