import { checkName } from '../options/validate-options.js';
import type { BreakerState } from '../events/event-types.js';
import type { BreakerOptions, ResolvedBreakerOptions } from './breaker-options.js';
import { resolveBreakerOptions } from './breaker-options.js';
import { breakerFromResolved, type CircuitBreaker } from './circuit-breaker.js';

/**
 * One breaker per dependency name, shared by every caller in the process. The defaults are
 * checked once and shared, so an idle breaker costs a few hundred bytes.
 *
 * @example
 * const breakers = new BreakerRegistry({ failureThreshold: 3, cooldownMs: 15_000 })
 * const deep = breakers.get('deep-research')
 * breakers.states() // { 'deep-research': 'closed' }
 */
export class BreakerRegistry {
  readonly #defaults: BreakerOptions;
  readonly #resolved: ResolvedBreakerOptions;
  readonly #breakers = new Map<string, CircuitBreaker>();

  constructor(defaults?: BreakerOptions) {
    this.#resolved = resolveBreakerOptions(defaults);
    this.#defaults = { ...defaults };
  }

  /** The breaker for `name`, created on first use (`overrides` apply only then). */
  get(name: string, overrides?: BreakerOptions): CircuitBreaker {
    checkName('name', name);
    let breaker = this.#breakers.get(name);
    if (breaker === undefined) {
      const resolved = overrides === undefined ? this.#resolved : resolveBreakerOptions({ ...this.#defaults, ...overrides });
      breaker = breakerFromResolved(name, resolved);
      this.#breakers.set(name, breaker);
    }
    return breaker;
  }

  /** Every breaker's current state, by name. */
  states(): Record<string, BreakerState> {
    const out: Record<string, BreakerState> = {};
    for (const [name, breaker] of this.#breakers) out[name] = breaker.state;
    return out;
  }

  /** Every breaker, by name (for dashboards and `toJSON()`). */
  entries(): IterableIterator<[string, CircuitBreaker]> {
    return this.#breakers.entries();
  }

  toJSON(): object {
    return Object.fromEntries([...this.#breakers].map(([name, b]) => [name, b.toJSON()]));
  }
}
