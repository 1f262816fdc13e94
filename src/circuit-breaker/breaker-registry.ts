import type { BreakerState } from '../transitions/breaker-record.js';
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
  NEXT,
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
  readonly #breakers = new Map<string, SweptBreaker>();
  // Candidates for eviction, least recently inserted or second-chanced first.
  readonly #order = new NodeList();
  // Breakers a sweep found busy (open, half-open, isolated, counting): set aside so later sweeps
  // do not scan them again, and looked at a few per sweep to return those that are idle again.
  readonly #held = new NodeList();

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
    const known = this.#breakers.get(name);
    if (known !== undefined) return known;
    const resolved =
      overrides === undefined
        ? this.#resolved
        : resolveBreakerOptions({ ...this.#defaults, ...overrides });
    const breaker = breakerFromResolved(name, resolved);
    if (this.#breakers.size >= this.#max) this.#sweep();
    this.#breakers.set(name, breaker);
    this.#order.push(breaker);
    return breaker;
  }

  /** How many breakers it holds now. */
  get size(): number {
    return this.#breakers.size;
  }

  /** Every breaker's current state, by name. */
  states(): Record<string, BreakerState> {
    const out: Record<string, BreakerState> = {};
    for (const [name, breaker] of this.entries()) out[name] = breaker.state;
    return out;
  }

  /** Every breaker, by name (for dashboards and `toJSON()`). */
  *entries(): IterableIterator<[string, CircuitBreaker]> {
    yield* this.#breakers;
  }

  toJSON(): object {
    return Object.fromEntries([...this.entries()].map(([name, b]) => [name, b.toJSON()]));
  }

  /**
   * Frees room for one more: oldest first, one pass at most; busy ones are set aside. Each step
   * unlinks the head of a list, so a miss in a full registry costs the same at any limit (a Map
   * used as a queue would walk the slots its deletions left at its front, every time).
   */
  #sweep(): void {
    this.#release(8);
    const order = this.#order;
    let budget = order.length;
    while (this.#breakers.size >= this.#max && budget-- > 0) {
      const breaker = order.shift();
      if (breaker === undefined) break;
      const verdict = breaker[SWEEP]();
      if (verdict === 'used')
        order.push(breaker); // second chance, at the back
      else if (verdict === 'busy') this.#held.push(breaker);
      else this.#breakers.delete(breaker.name);
    }
  }

  /** Returns up to `n` set-aside breakers that are idle again to the candidates (rotating). */
  #release(n: number): void {
    const held = this.#held;
    for (let i = Math.min(n, held.length); i > 0; i--) {
      const breaker = held.shift()!;
      if (breaker[SWEEP]() === 'busy') held.push(breaker);
      else this.#order.push(breaker);
    }
  }
}

/** @internal A queue of breakers, linked through their `NEXT` field: push at the back, shift from the front, both O(1). */
class NodeList {
  #head: SweptBreaker | undefined = undefined;
  #tail: SweptBreaker | undefined = undefined;
  length = 0;

  push(breaker: SweptBreaker): void {
    breaker[NEXT] = undefined;
    if (this.#tail === undefined) this.#head = breaker;
    else this.#tail[NEXT] = breaker;
    this.#tail = breaker;
    this.length++;
  }

  shift(): SweptBreaker | undefined {
    const breaker = this.#head;
    if (breaker === undefined) return undefined;
    this.#head = breaker[NEXT];
    if (this.#head === undefined) this.#tail = undefined;
    breaker[NEXT] = undefined;
    this.length--;
    return breaker;
  }
}
