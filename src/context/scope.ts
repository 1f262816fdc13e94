import { AsyncLocalStorage } from 'node:async_hooks';
import { abortReason } from '../errors/abort-error.js';
import type { CallContext } from './call-context.js';

const NEVER: AbortSignal = new AbortController().signal;

/**
 * @internal The one implementation of {@link CallContext}. Scopes form a chain (root → timeout →
 * retry attempt …); each link only adds what it changes. The signal of a link that can abort on
 * its own (a timeout, a probe) is created only when somebody reads `signal`, so the success path
 * allocates no AbortController.
 */
export class Scope implements CallContext {
  readonly attempt: number;
  readonly deadline: number | undefined;
  readonly idempotencyKey: string | undefined;
  /** True when anything can abort this scope (a caller signal or an enclosing timeout). */
  readonly canAbort: boolean;
  /** True when nested policies must learn about this scope through AsyncLocalStorage. */
  readonly propagates: boolean;
  readonly #parent: Scope | undefined;
  readonly #external: AbortSignal | undefined;
  readonly #ownsAbort: boolean;
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;
  #unlink: (() => void) | undefined;

  constructor(
    parent: Scope | undefined,
    attempt: number,
    deadline: number | undefined,
    idempotencyKey: string | undefined,
    external: AbortSignal | undefined,
    ownsAbort: boolean,
  ) {
    this.#parent = parent;
    this.attempt = attempt;
    this.deadline = deadline;
    this.idempotencyKey = idempotencyKey;
    this.#external = external;
    this.#ownsAbort = ownsAbort;
    this.canAbort = ownsAbort || external !== undefined || (parent?.canAbort ?? false);
    this.propagates = this.canAbort || deadline !== undefined || idempotencyKey !== undefined;
  }

  /** A root scope for one `execute`, nested (via AsyncLocalStorage) in `ambient` when given. */
  static root(ambient: Scope | undefined, signal: AbortSignal | undefined, idempotencyKey: string | undefined): Scope {
    if (ambient === undefined) {
      if (signal === undefined && idempotencyKey === undefined) return ROOT;
      return new Scope(undefined, 1, undefined, idempotencyKey, signal, false);
    }
    if (signal === undefined && (idempotencyKey === undefined || idempotencyKey === ambient.idempotencyKey)) {
      return ambient.attempt === 1 ? ambient : ambient.withAttempt(1);
    }
    return new Scope(ambient, 1, ambient.deadline, idempotencyKey ?? ambient.idempotencyKey, signal, false);
  }

  /** The same scope as seen by attempt `n` of a retry. */
  withAttempt(attempt: number): Scope {
    return new Scope(this, attempt, this.deadline, this.idempotencyKey, undefined, false);
  }

  /** A child that aborts on its own (timeout, probe); its deadline is the earlier of both. */
  withAbort(deadline: number | undefined): Scope {
    const earliest = this.deadline === undefined || (deadline !== undefined && deadline < this.deadline) ? deadline : this.deadline;
    return new Scope(this, this.attempt, earliest, this.idempotencyKey, undefined, true);
  }

  get signal(): AbortSignal {
    if (this.#ownsAbort) return this.#ownSignal();
    if (this.#external !== undefined) {
      // A caller signal plus a parent that can abort too: both must reach fn.
      if (this.#parent?.canAbort) return this.#ownSignal();
      return this.#external;
    }
    return this.#parent?.signal ?? NEVER;
  }

  get aborted(): boolean {
    return this.#aborted || (this.#external?.aborted ?? false) || (this.#parent?.aborted ?? false);
  }

  /** The reason of the nearest abort (own, caller's, or an enclosing scope's). */
  get reason(): unknown {
    if (this.#aborted) return this.#reason;
    if (this.#external?.aborted) return abortReason(this.#external);
    return this.#parent?.reason;
  }

  /** Aborts this scope (only scopes that own their abort). */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }

  /** Drops the listener this scope put on its parent's signal, if any. */
  dispose(): void {
    this.#unlink?.();
    this.#unlink = undefined;
  }

  #ownSignal(): AbortSignal {
    if (this.#controller !== undefined) return this.#controller.signal;
    const controller = new AbortController();
    this.#controller = controller;
    if (this.aborted) {
      controller.abort(this.reason);
      return controller.signal;
    }
    const upstream: AbortSignal[] = [];
    if (this.#external !== undefined) upstream.push(this.#external);
    if (this.#parent?.canAbort) upstream.push(this.#parent.signal);
    if (upstream.length > 0) {
      const onAbort = (event: Event): void => {
        const source = event.target as AbortSignal;
        this.abort(source === this.#external ? abortReason(source) : source.reason);
      };
      for (const s of upstream) s.addEventListener('abort', onAbort, { once: true });
      this.#unlink = () => {
        for (const s of upstream) s.removeEventListener('abort', onAbort);
      };
    }
    return controller.signal;
  }
}

const ROOT = new Scope(undefined, 1, undefined, undefined, undefined, false);

const storage = new AsyncLocalStorage<Scope>();
let entered = false;

/** @internal The scope of the policy call this code runs inside, if any. */
export function ambientScope(): Scope | undefined {
  // getStore() is cheap, but skipping it until the first run() keeps the plain path plainer.
  return entered ? storage.getStore() : undefined;
}

/**
 * @internal Calls `fn(scope)`, entering AsyncLocalStorage only when the scope carries something a
 * nested policy must see (deadline, abort, idempotency key) and it is not already the ambient one.
 */
export function callInScope<T>(fn: (ctx: CallContext) => T | PromiseLike<T>, scope: Scope): T | PromiseLike<T> {
  if (!scope.propagates) return fn(scope);
  if (entered && storage.getStore() === scope) return fn(scope);
  entered = true;
  return storage.run(scope, fn, scope);
}
