import type { BreakerState } from '../events/event-types.js';
import {
  checkInteger,
  checkName,
  checkOptions,
  type OptionKeys,
} from '../options/validate-options.js';
import {
  BREAKER_KEYS,
  type BreakerOptions,
  type ResolvedBreakerOptions,
  resolveBreakerOptions,
} from './breaker-options.js';
import {
  breakerFromResolved,
  type CircuitBreaker,
  SWEEP,
  type SweptBreaker,
} from './circuit-breaker.js';

/**
 * Options of {@link BreakerRegistry}: the defaults of its breakers, and how many it keeps.
 *
 * @example
 * const options: BreakerRegistryOptions = { failureThreshold: 3, cooldownMs: 10_000, maxBreakers: 50_000 }
 */
export interface BreakerRegistryOptions extends BreakerOptions {
  /**
   * How many breakers it keeps before it forgets idle ones: closed, no failure counted, not
   * called since the previous sweep. Open, half-open and isolated breakers are never forgotten,
   * so the registry may hold more than this while many dependencies are down. Default 10000.
   */
  maxBreakers?: number;
}

const REGISTRY_KEYS: OptionKeys<BreakerRegistryOptions> = { ...BREAKER_KEYS, maxBreakers: true };

/** Default `maxBreakers`: a few MB of idle breakers at most. */
const DEFAULT_MAX_BREAKERS = 10_000;

/**
 * One breaker per dependency name, shared by every caller in the process. The defaults are
 * checked once and shared, so an idle breaker costs a few hundred bytes; beyond `maxBreakers`
 * (10000), a name used as a key per request (a tool-call id, a URL) does not grow it without
 * bound: idle closed breakers are forgotten, least recently used first (a breaker called since the
 * last sweep gets a second chance), never one that is open, half-open or isolated, or has counted
 * a failure. A forgotten breaker keeps working for whoever still holds it; `get` of its name
 * later starts a fresh, closed one.
 *
 * @example
 * const breakers = new BreakerRegistry({ failureThreshold: 3, cooldownMs: 15_000 })
 * const deep = breakers.get('deep-research')
 * breakers.states() // { 'deep-research': 'closed' }
 */
export class BreakerRegistry {
  readonly #defaults: BreakerOptions;
  readonly #resolved: ResolvedBreakerOptions;
  readonly #max: number;
  // Candidates for eviction, least recently inserted or second-chanced first (a Map keeps order).
  readonly #order = new Map<string, SweptBreaker>();
  // Breakers a sweep found busy (open, half-open, isolated, counting): set aside so later sweeps
  // do not scan them again, and looked at a few per sweep to return those that are idle again.
  readonly #held = new Map<string, SweptBreaker>();

  constructor(options?: BreakerRegistryOptions) {
    const { maxBreakers, ...defaults } = checkOptions('BreakerRegistry', options, REGISTRY_KEYS);
    this.#max =
      maxBreakers === undefined
        ? DEFAULT_MAX_BREAKERS
        : checkInteger('maxBreakers', maxBreakers, 1);
    this.#resolved = resolveBreakerOptions(defaults);
    this.#defaults = defaults;
  }

  /** The breaker for `name`, created on first use (`overrides` apply only then). */
  get(name: string, overrides?: BreakerOptions): CircuitBreaker {
    checkName('name', name);
    let breaker = this.#order.get(name) ?? this.#held.get(name);
    if (breaker === undefined) {
      const resolved =
        overrides === undefined
          ? this.#resolved
          : resolveBreakerOptions({ ...this.#defaults, ...overrides });
      breaker = breakerFromResolved(name, resolved);
      if (this.size >= this.#max) this.#sweep();
      this.#order.set(name, breaker);
    }
    return breaker;
  }

  /** How many breakers it holds now. */
  get size(): number {
    return this.#order.size + this.#held.size;
  }

  /** Every breaker's current state, by name. */
  states(): Record<string, BreakerState> {
    const out: Record<string, BreakerState> = {};
    for (const [name, breaker] of this.entries()) out[name] = breaker.state;
    return out;
  }

  /** Every breaker, by name (for dashboards and `toJSON()`). */
  *entries(): IterableIterator<[string, CircuitBreaker]> {
    yield* this.#order;
    yield* this.#held;
  }

  toJSON(): object {
    return Object.fromEntries([...this.entries()].map(([name, b]) => [name, b.toJSON()]));
  }

  /** Frees room for one more: oldest first, one pass at most; busy ones are set aside. */
  #sweep(): void {
    this.#release(8);
    const order = this.#order;
    let budget = order.size;
    for (const [name, breaker] of order) {
      if (this.size < this.#max || budget-- === 0) break;
      order.delete(name);
      const verdict = breaker[SWEEP]();
      if (verdict === 'used')
        order.set(name, breaker); // second chance, at the back
      else if (verdict === 'busy') this.#held.set(name, breaker);
    }
  }

  /** Returns up to `n` set-aside breakers that are idle again to the candidates (rotating). */
  #release(n: number): void {
    const held = this.#held;
    for (const [name, breaker] of held) {
      if (n-- === 0) break;
      held.delete(name);
      if (breaker[SWEEP]() === 'busy') held.set(name, breaker);
      else this.#order.set(name, breaker);
    }
  }
}
