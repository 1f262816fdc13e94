import type { ExecuteOptions, Work } from '../context/call-context.js';
import { Scope } from '../context/scope.js';
import type { Emitter } from '../events/emitter.js';
import { isFallback, ladderIsNotAPolicy } from '../fallback/fallback.js';
import {
  checkName,
  checkOptions,
  checkSignal,
  type OptionKeys,
  showValue,
} from '../options/validate-options.js';
import {
  COMPOSE,
  FUSE,
  type Invoke,
  isLayer,
  type Layer,
  start,
  terminal,
} from '../policy/layer.js';
import type { EventedPolicy, PipelineOf, Policy } from '../policy/policy.js';

/** Options of a named {@link pipeline}: `pipeline({ name }, ...policies)`. */
export interface PipelineOptions {
  /**
   * The dependency this pipeline calls. Given once here, it names every event of every layer (and
   * of code running inside the call, such as `watch`), so the layers need no name of their own.
   */
  name?: string;
}

const PIPELINE_KEYS: OptionKeys<PipelineOptions> = { name: true };

/** Wraps a policy that is not recourse's own: it runs the rest of the chain as its fn. */
function foreignLayer(policy: Policy, next: Invoke): Invoke {
  return (fn: Work<unknown>, scope: Scope) =>
    policy.execute(() => next(fn, scope), {
      ...(scope.canAbort ? { signal: checkSignal('signal', scope.signal)! } : {}),
      ...(scope.idempotencyKey !== undefined ? { idempotencyKey: scope.idempotencyKey } : {}),
    });
}

function checkPolicy(p: unknown, i: number): Policy {
  if (isFallback(p)) throw new TypeError(ladderIsNotAPolicy(`pipeline argument ${i}`));
  if (typeof p !== 'object' || p === null || typeof (p as Policy).execute !== 'function') {
    throw new TypeError(
      `pipeline argument ${i} must be a policy (retry(), timeout(ms), …), got ${showValue(p)}`,
    );
  }
  return p as Policy;
}

class PipelinePolicy implements Layer {
  readonly name: string | undefined;
  readonly #policies: readonly Policy[];
  /** The root scope its calls share while they carry nothing else (see `Scope.named`). */
  readonly #named: Scope | undefined;
  #invoke: Invoke | undefined;

  constructor(name: string | undefined, policies: readonly Policy[]) {
    this.name = name;
    this.#named = name === undefined ? undefined : Scope.named(name);
    this.#policies = policies;
  }

  [COMPOSE](next: Invoke): Invoke {
    const chain = this.#chain(next);
    const name = this.name;
    // Nested in another pipeline: this part of the chain works for its own dependency.
    return name === undefined
      ? chain
      : (fn: Work<unknown>, scope: Scope) => chain(fn, scope.withName(name));
  }

  #chain(next: Invoke): Invoke {
    // below[i] runs policies i.. and then `next`; built from the inside out.
    const n = this.#policies.length;
    const below: Invoke[] = new Array<Invoke>(n + 1);
    below[n] = next;
    for (let i = n - 1; i >= 0; i--) {
      const policy = this.#policies[i]!;
      const inner = this.#policies[i + 1];
      if (!isLayer(policy)) {
        below[i] = foreignLayer(policy, below[i + 1]!);
        continue;
      }
      const innermost = this.#policies[i + 2];
      const fused =
        inner !== undefined && isLayer(inner)
          ? innermost !== undefined && isLayer(innermost)
            ? policy[FUSE]?.(inner, below[i + 2]!, innermost, below[i + 3]!)
            : policy[FUSE]?.(inner, below[i + 2]!)
          : undefined;
      below[i] = fused ?? policy[COMPOSE](below[i + 1]!);
    }
    return below[0]!;
  }

  get emitters(): readonly Emitter[] {
    return this.#policies.flatMap((p) => (isLayer(p) ? p.emitters : []));
  }

  execute<T>(fn: Work<T>, options?: ExecuteOptions): Promise<T> {
    // Run on its own, the name goes on the root scope (start), so the chain needs no wrapper.
    this.#invoke ??= this.#chain(terminal);
    return start(this.#invoke, fn, options, undefined, this.#named);
  }

  on(event: string, listener: (e: object) => void): () => void {
    const offs = this.#policies.map((p) =>
      isLayer(p) || typeof p.on !== 'function' ? null : p.on(event, listener),
    );
    const own = this.emitters.map((e) => e.on(event, listener));
    return () => {
      for (const off of own) off();
      for (const off of offs) off?.();
    };
  }
}

/**
 * Composes policies; the first policy is outermost. The recommended order for a dependency is
 * `pipeline(breaker, retry, timeout)`: the timeout bounds each attempt, retry owns transient
 * failures, and the breaker sees one outcome per exhausted sequence (not one per attempt) and
 * rejects at once while open, before any retry. `on` subscribes to every member and knows each
 * member's event payloads. Give the dependency's name once, as a first argument
 * `{ name }`: every event of the chain (and of code running inside its calls) carries it.
 * A `fallback(...)` ladder is not a policy and is refused.
 *
 * @example
 * const search = pipeline({ name: 'search' }, breakers.get('search'), retry({ maxAttempts: 3 }), timeout(20_000))
 * search.on('retry', (e) => console.log(`retry after ${e.delayMs} ms`))
 * const result = await search.execute((ctx) => fetchResults(q, { signal: ctx.signal }))
 */
export function pipeline<const P extends readonly Policy[]>(...policies: P): PipelineOf<P>;
export function pipeline<const P extends readonly Policy[]>(
  options: PipelineOptions,
  ...policies: P
): PipelineOf<P>;
export function pipeline(...args: ReadonlyArray<Policy | PipelineOptions>): EventedPolicy<never> {
  let name: string | undefined;
  let offset = 0;
  const first = args[0];
  if (
    typeof first === 'object' &&
    first !== null &&
    typeof (first as Partial<Policy>).execute !== 'function' &&
    !isFallback(first)
  ) {
    const o = checkOptions('pipeline', first as PipelineOptions, PIPELINE_KEYS);
    if (o.name !== undefined) name = checkName('name', o.name);
    offset = 1;
  }
  const policies = args.slice(offset).map((p, i) => checkPolicy(p, i + offset));
  if (policies.length === 0)
    throw new TypeError(
      'pipeline() needs at least one policy, e.g. pipeline(retry(), timeout(30_000))',
    );
  return new PipelinePolicy(name, policies);
}
