import type { Work } from '../context/call-context.js';
import type { Scope } from '../context/scope.js';
import type { Emitter } from '../events/emitter.js';
import { checkSignal } from '../options/validate-options.js';
import { COMPOSE, FUSE, type Invoke, isLayer, type Layer, start, terminal } from '../policy/layer.js';
import type { Policy } from '../policy/policy.js';
import type { ExecuteOptions } from '../context/call-context.js';

/** Wraps a policy that is not recourse's own: it runs the rest of the chain as its fn. */
function foreignLayer(policy: Policy, next: Invoke): Invoke {
  return (fn: Work<unknown>, scope: Scope) =>
    policy.execute(() => next(fn, scope), {
      ...(scope.canAbort ? { signal: checkSignal('signal', scope.signal)! } : {}),
      ...(scope.idempotencyKey !== undefined ? { idempotencyKey: scope.idempotencyKey } : {}),
    });
}

class Pipeline implements Layer {
  readonly #policies: readonly Policy[];
  #invoke: Invoke | undefined;

  constructor(policies: readonly Policy[]) {
    if (policies.length === 0) throw new TypeError('pipeline() needs at least one policy, e.g. pipeline(retry(), timeout(30_000))');
    policies.forEach((p, i) => {
      if (typeof p !== 'object' || p === null || typeof p.execute !== 'function') {
        throw new TypeError(`pipeline argument ${i} must be a policy (retry(), timeout(ms), …), got ${p === null ? 'null' : typeof p}`);
      }
    });
    this.#policies = policies;
  }

  [COMPOSE](next: Invoke): Invoke {
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
      const fused = inner !== undefined && isLayer(inner) ? policy[FUSE]?.(inner, below[i + 2]!) : undefined;
      below[i] = fused ?? policy[COMPOSE](below[i + 1]!);
    }
    return below[0]!;
  }

  get emitters(): readonly Emitter[] {
    return this.#policies.flatMap((p) => (isLayer(p) ? p.emitters : []));
  }

  execute<T>(fn: Work<T>, options?: ExecuteOptions): Promise<T> {
    this.#invoke ??= this[COMPOSE](terminal);
    return start(this.#invoke, fn, options);
  }

  on(event: string, listener: (e: object) => void): () => void {
    const offs = this.#policies.map((p) => (isLayer(p) ? null : p.on(event, listener)));
    const own = this.emitters.map((e) => e.on(event, listener));
    return () => {
      for (const off of own) off();
      for (const off of offs) off?.();
    };
  }
}

/**
 * Composes policies; the first argument is outermost. The recommended order for a dependency is
 * `pipeline(breaker, retry, timeout)`: the timeout bounds each attempt, retry owns transient
 * failures, and the breaker sees one outcome per exhausted sequence (not one per attempt) and
 * rejects at once while open, before any retry. `on` subscribes to every member.
 *
 * @example
 * const policy = pipeline(breakers.get('search'), retry({ maxAttempts: 3 }), timeout(20_000), validate(nonEmpty))
 * const result = await policy.execute((ctx) => search(q, { signal: ctx.signal }))
 */
export function pipeline(...policies: Policy[]): Policy {
  return new Pipeline(policies);
}
