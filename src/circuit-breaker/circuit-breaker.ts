import { classify } from '../classify/classify.js';
import type { Work } from '../context/call-context.js';
import { Scope } from '../context/scope.js';
import { CircuitOpenError } from '../errors/circuit-open-error.js';
import { RecourseError } from '../errors/recourse-error.js';
import { TimeoutError } from '../errors/timeout-error.js';
import type { BreakerOpenReason } from './breaker-events.js';
import type { BreakerState } from '../transitions/breaker-record.js';
import type { RecourseEventMap } from '../events/event-types.js';
import {
  asPromise,
  BaseLayer,
  COMPOSE,
  DEADLINE_PARTS,
  FUSE,
  type Invoke,
  isThenable,
  type Layer,
  RETRY_PARTS,
  type RetryParts,
  terminal,
} from '../policy/layer.js';
import type { EventedPolicy } from '../policy/policy.js';
import { wholeMs } from '../text/whole-ms.js';
import { DeadlineSpec, runWithDeadline } from '../timeout/run-with-deadline.js';
import type { Admission, BreakerOutcome } from '../transitions/breaker-record.js';
import {
  type BreakerOptions,
  type ResolvedBreakerOptions,
  resolveBreakerOptions,
} from './breaker-options.js';
import type { BreakerPort, PortOwner } from './breaker-port.js';
import { CLOSED_PERIOD, TRIP, type TrippableBreaker } from './breaker-trip.js';
import { LocalPort } from './local-port.js';
import { SharedPort } from './shared-port.js';
import { onAbort } from '../signal/on-abort.js';
import { predicateAnswer } from '../options/predicate.js';

/**
 * The events a breaker emits.
 *
 * @example
 * const watched: BreakerEventType[] = ['state', 'store_unavailable', 'store_recovered']
 */
export type BreakerEventType =
  | 'state'
  | 'reject'
  | 'timeout'
  | 'probe_late'
  | 'store_unavailable'
  | 'store_recovered';

/**
 * A per-dependency circuit breaker. Events: `state` {name, from, to}, `reject` {name,
 * retryAfterMs}, `timeout` (a probe ran past `probeTimeoutMs`), `probe_late` (a timed-out probe
 * answered after all), and with a store `store_unavailable` / `store_recovered`.
 */
export interface CircuitBreaker extends EventedPolicy<BreakerEventType> {
  readonly name: string;
  /** May stay `'open'` after the cooldown until the next call is admitted as the probe. With a store: the local copy. */
  readonly state: BreakerState;
  /**
   * Holds the breaker open until `reset()`. Applies in this process at once; the promise resolves
   * when a store has it too, and rejects with the store's error when it cannot be written (the
   * breaker stays isolated here and writes it when the store is back). Nothing to await without a store.
   */
  isolate(): Promise<void>;
  /** Closed, counters cleared. Applies and settles like {@link CircuitBreaker.isolate}. */
  reset(): Promise<void>;
  toJSON(): object;
}

/**
 * @internal The rest of a chain as the breaker runs it. A breaker fused over a retry runs the
 * retry's first attempt directly and its slow path only after a failure, so the success path is
 * one promise reaction; alone or over anything else, `first` is the whole chain.
 */
interface Chain {
  /** The whole inner chain: the probe runs it under its deadline. */
  readonly whole: Invoke;
  /** The layer right inside the breaker (or inside the fused retry). */
  readonly next: Invoke;
  /** A fused retry's first attempt and slow path; undefined: `next` is the whole chain. */
  readonly parts: RetryParts | undefined;
  /**
   * A timeout right inside the fused retry (`next` is then that timeout): the first attempt runs
   * under its deadline here, and the breaker's reaction settles it, so the success path of
   * breaker, retry and timeout is two promise reactions (fn's and the breaker's).
   */
  readonly deadline: DeadlineSpec | undefined;
  /** What runs inside that timeout. */
  readonly below: Invoke;
}

function plainChain(next: Invoke): Chain {
  return { whole: next, next, parts: undefined, deadline: undefined, below: next };
}

const ALONE: Chain = plainChain(terminal);
const noop = (): void => {};

/** @internal The registry's eviction sweep asks each breaker this (and clears its `used` mark). */
export const SWEEP: unique symbol = Symbol('recourse.breakerSweep');

/** @internal The link of a registry's eviction queue, kept on the breaker (no node per entry). */
export const NEXT: unique symbol = Symbol('recourse.breakerNext');

/** @internal A breaker as its registry sees it. */
export type SweptBreaker = CircuitBreaker & {
  [SWEEP](): 'used' | 'idle' | 'busy';
  [NEXT]: SweptBreaker | undefined;
};

class CircuitBreakerPolicy extends BaseLayer implements TrippableBreaker, PortOwner {
  readonly name: string;
  /** @internal */
  readonly options: ResolvedBreakerOptions;
  readonly #port: BreakerPort;
  /** The call whose admission or outcome is being applied to the port right now, if any. */
  #eventScope: Scope | undefined;
  /** Why a trip in progress opens the breaker (read by `changed`). */
  #tripping: BreakerOpenReason | undefined;
  /** Why this process opened the breaker, while it is open or half-open after that trip. */
  #reason: BreakerOpenReason | undefined;
  /** The failure being settled right now (read by `changed`, for the cause of an opening). */
  #failure: unknown;
  /** What opened the breaker, while it is open or half-open: `cause` of its `CircuitOpenError`s. */
  #cause: unknown;
  /** @internal The next breaker in its registry's eviction queue. */
  [NEXT]: SweptBreaker | undefined = undefined;

  constructor(name: string, resolved: ResolvedBreakerOptions) {
    super('circuit-breaker', name);
    this.name = name;
    this.options = resolved;
    this.#port =
      resolved.store === undefined ? new LocalPort(this) : new SharedPort(this, resolved.store);
  }

  get state(): BreakerState {
    return this.#port.state;
  }

  isolate(): Promise<void> {
    return this.#port.force('isolated');
  }

  reset(): Promise<void> {
    return this.#port.force('closed');
  }

  toJSON(): object {
    const p = this.#port;
    const limits = this.options;
    const now = limits.clock.now();
    return {
      name: this.name,
      state: p.state,
      epoch: p.epoch,
      failures: p.failures,
      ...(p.state === 'open'
        ? { retryAfterMs: Math.max(0, Math.ceil(p.openedAt + limits.cooldownMs - now)) }
        : {}),
      ...(this.#reason === undefined ? {} : { reason: this.#reason }),
      probeInFlight: p.state === 'half-open' && p.probeUntil > now,
      ...p.describe(now),
      cooldownMs: limits.cooldownMs,
      probeTimeoutMs: limits.probeTimeoutMs,
      shared: limits.store !== undefined,
    };
  }

  /** @internal Opens the breaker if it is closed (a spend rate over its limit); see `breaker-trip.ts`. */
  [TRIP](reason: BreakerOpenReason): void {
    this.trip(reason);
  }

  /** @internal PortOwner: {@link CircuitBreakerPolicy.[TRIP]}. */
  trip(reason: BreakerOpenReason): void {
    if (this.#port.state !== 'closed') return;
    this.#tripping = reason;
    try {
      this.#port.trip(this.options.clock.now(), reason);
    } finally {
      this.#tripping = undefined;
    }
  }

  /** @internal The epoch while closed (a new one starts at every close and reset); undefined otherwise. */
  [CLOSED_PERIOD](): number | undefined {
    const p = this.#port;
    return p.state === 'closed' ? p.epoch : undefined;
  }

  [COMPOSE](next: Invoke): Invoke {
    const chain = plainChain(next);
    return (fn: Work<unknown>, scope: Scope): unknown => this.run(chain, fn, scope);
  }

  /** Breaker over retry in one promise reaction (see {@link Chain}). */
  [FUSE](inner: Layer, next: Invoke, innermost?: Layer, below?: Invoke): Invoke | undefined {
    const parts = inner[RETRY_PARTS];
    if (parts === undefined) return undefined;
    const deadline = innermost?.[DEADLINE_PARTS];
    const chain: Chain = {
      whole: inner[COMPOSE](next),
      next,
      parts,
      deadline,
      below: deadline === undefined || below === undefined ? next : below,
    };
    return (fn: Work<unknown>, scope: Scope): unknown => this.run(chain, fn, scope);
  }

  protected override standalone(): Invoke {
    // Alone, the breaker runs through a prototype function (called with this breaker as `this`):
    // no closure per breaker, so a registry of thousands stays small.
    return runAlone;
  }

  /**
   * @internal The one call path, for both ports. Closed is the hot path: no async frame, two small
   * handlers, nothing else allocated; a success touches the port only when it clears a count.
   */
  run(chain: Chain, fn: Work<unknown>, scope: Scope): unknown {
    const p = this.#port;
    p.used = true;
    if (p.state !== 'closed' || p.slow) return this.#admit(chain, fn, scope);
    return this.#call(chain, p.epoch, fn, scope);
  }

  #call(chain: Chain, epoch: number, fn: Work<unknown>, scope: Scope): unknown {
    const { next, parts } = chain;
    if (chain.deadline !== undefined && parts !== undefined)
      return this.#callTimed(chain, chain.deadline, parts, epoch, fn, scope);
    let result: unknown;
    try {
      result = parts === undefined ? next(fn, scope) : parts.first(next, fn, scope);
    } catch (error) {
      if (parts === undefined) return this.#fail(epoch, error, scope);
      return parts.recover(error, next, fn, scope).then(
        (value) => this.#ok(epoch, value),
        (e: unknown) => this.#fail(epoch, e, scope),
      );
    }
    if (!isThenable(result)) return this.#ok(epoch, result);
    // Two closures on the success path (each one per call counts): the failure path makes the rest.
    const ok = (value: unknown): unknown => this.#ok(epoch, value);
    if (parts === undefined)
      return asPromise(result).then(ok, (error: unknown) => this.#fail(epoch, error, scope));
    return asPromise(result).then(ok, (error: unknown) =>
      parts.recover(error, next, fn, scope).then(ok, (e: unknown) => this.#fail(epoch, e, scope)),
    );
  }

  /**
   * {@link CircuitBreakerPolicy.#call} for breaker over retry over timeout: the first attempt runs
   * under the timeout's deadline right here; fn's promise settles the deadline's promise directly,
   * and the breaker's one reaction unschedules the deadline and does the bookkeeping. Later
   * attempts go through the retry's slow path and the timeout layer as usual.
   */
  #callTimed(
    chain: Chain,
    spec: DeadlineSpec,
    parts: RetryParts,
    epoch: number,
    fn: Work<unknown>,
    scope: Scope,
  ): unknown {
    const child = Scope.withDeadline(parts.begin(scope), spec);
    const next = chain.next;
    let result: unknown;
    try {
      result = chain.below(fn, child);
    } catch (error) {
      child.dispose();
      return parts.recover(error, next, fn, scope).then(
        (value) => this.#ok(epoch, value),
        (e: unknown) => this.#fail(epoch, e, scope),
      );
    }
    if (!isThenable(result)) {
      child.dispose();
      return this.#ok(epoch, result);
    }
    const ok = (value: unknown): unknown => {
      child.finish();
      return this.#ok(epoch, value);
    };
    return child.pipe(asPromise(result)).then(ok, (error: unknown) => {
      child.finish();
      return parts
        .recover(error, next, fn, scope)
        .then(ok, (e: unknown) => this.#fail(epoch, e, scope));
    });
  }

  #ok(epoch: number, value: unknown): unknown {
    const p = this.#port;
    if (p.failures !== 0 || p.countsSuccesses) p.settle(epoch, 'success', this.options.clock.now());
    return value;
  }

  #fail(epoch: number, error: unknown, scope: Scope): never {
    this.#settleFor(scope, epoch, this.#outcomeOf(error, scope), error);
    throw error;
  }

  /**
   * Settles an outcome of `scope`'s call: a state change it causes is an event of that call, and
   * an opening it causes has `failure` as its cause.
   */
  #settleFor(scope: Scope, epoch: number, outcome: BreakerOutcome, failure?: unknown): void {
    this.#eventScope = scope;
    this.#failure = failure;
    try {
      this.#port.settle(epoch, outcome, this.options.clock.now());
    } finally {
      this.#eventScope = undefined;
      this.#failure = undefined;
    }
  }

  #admit(chain: Chain, fn: Work<unknown>, scope: Scope): unknown {
    this.#eventScope = scope;
    let admission: Admission | Promise<Admission>;
    try {
      admission = this.#port.admit(this.options.clock.now());
    } finally {
      this.#eventScope = undefined;
    }
    if (!(admission instanceof Promise)) return this.#admitted(chain, admission, fn, scope);
    return admission.then((a) => {
      // The caller may have given up while the store answered: run nothing for it.
      if (scope.aborted) {
        if (a.kind === 'probe') this.#port.settle(a.epoch, 'neutral', this.options.clock.now());
        throw scope.reason;
      }
      return this.#admitted(chain, a, fn, scope);
    });
  }

  #admitted(chain: Chain, a: Admission, fn: Work<unknown>, scope: Scope): unknown {
    if (a.kind === 'reject') throw this.#reject(a.retryAfterMs, a.state, scope);
    if (a.kind === 'call') return this.#call(chain, a.epoch, fn, scope);
    return this.#probe(chain, a.epoch, fn, scope);
  }

  /**
   * Runs the single half-open probe under `probeTimeoutMs` (its caller gets TimeoutError then).
   * Its outcome is recorded once: when it settles, when it times out, or — a caller abort does not
   * count — the moment its caller gives up, which frees the slot at once even if fn ignores its
   * signal; whatever fn does later is ignored, except that a late success is reported (`probe_late`).
   */
  #probe(chain: Chain, epoch: number, fn: Work<unknown>, scope: Scope): unknown {
    const clock = this.options.clock;
    const ms = this.options.probeTimeoutMs;
    const started = clock.now();
    let open = true;
    let timedOut = false;
    const settle = (outcome: BreakerOutcome, failure?: unknown): boolean => {
      if (!open) return false;
      open = false;
      this.#settleFor(scope, epoch, outcome, failure);
      return true;
    };
    if (scope.aborted) {
      settle(this.#outcomeOf(scope.reason, scope), scope.reason);
      throw scope.reason;
    }
    const onExpire = (): void => {
      if (!open) return; // abandoned by its caller: already recorded
      timedOut = true;
      if (this.wants('timeout'))
        this.events.emit('timeout', { timeoutMs: ms, probe: true, name: this.name });
      settle('failure', makeError());
    };
    const watched: Invoke = (f, s) => {
      const r = chain.whole(f, s);
      if (isThenable(r))
        asPromise(r).then(
          () => (timedOut ? this.#late(ms, clock.now() - started) : undefined),
          noop,
        );
      return r;
    };
    const makeError = (): Error =>
      new TimeoutError(ms, `circuit "${this.name}": probe did not settle within ${wholeMs(ms)} ms`);
    let result: unknown;
    try {
      result = runWithDeadline(
        watched,
        fn,
        scope,
        new DeadlineSpec(clock, ms, makeError, onExpire),
      );
    } catch (error) {
      settle(this.#outcomeOf(error, scope), error);
      throw error;
    }
    if (!isThenable(result)) {
      settle('success');
      return result;
    }
    return new Promise((resolve, reject) => {
      const signal = scope.canAbort ? scope.signal : undefined;
      const unlink = onAbort(signal, () => {
        const reason = scope.reason;
        // An enclosing timeout's abort counts as the probe's failure, and is the reopening's cause.
        settle(this.#outcomeOf(reason, scope), reason);
        reject(reason);
      });
      asPromise(result).then(
        (value) => {
          unlink();
          settle('success');
          resolve(value);
        },
        (error: unknown) => {
          unlink();
          settle(timedOut ? 'failure' : this.#outcomeOf(error, scope), error);
          reject(error);
        },
      );
    });
  }

  #late(probeTimeoutMs: number, elapsedMs: number): void {
    if (this.wants('probe_late'))
      this.events.emit('probe_late', { name: this.name, probeTimeoutMs, elapsedMs });
  }

  #outcomeOf(error: unknown, scope: Scope): BreakerOutcome {
    const c = classify(error);
    if (c.kind === 'cancelled' && scope.aborted) return 'neutral';
    const counts = this.options.countsAsFailure
      ? predicateAnswer('countsAsFailure', this.options.countsAsFailure(error, c))
      : c.countsForBreaker;
    return counts ? 'failure' : 'neutral';
  }

  #reject(
    retryAfterMs: number,
    state: 'open' | 'half-open' | 'isolated',
    scope: Scope,
  ): CircuitOpenError {
    if (this.wants('reject')) this.events.emit('reject', { name: this.name, retryAfterMs }, scope);
    if (state === 'isolated') return new CircuitOpenError(this.name, retryAfterMs, state);
    const cause = this.#cause;
    return new CircuitOpenError(
      this.name,
      retryAfterMs,
      state,
      this.#reason,
      cause === undefined ? undefined : { cause },
    );
  }

  /** @internal PortOwner: a state change of the port. */
  changed(from: BreakerState, to: BreakerState): void {
    if (from === to) return;
    // A trip's reason lasts through its cooldown and probe, until the breaker closes or reopens.
    const tripping = this.#tripping;
    if (tripping !== undefined && to === 'open') this.#reason = tripping;
    else if (!(from === 'open' && to === 'half-open')) this.#reason = undefined;
    if (to === 'open')
      this.#cause =
        tripping !== undefined ? undefined : (this.#failure ?? this.#openedElsewhere(from));
    else if (to !== 'half-open') this.#cause = undefined;
    if (!this.wants('state')) return;
    this.events.emit(
      'state',
      tripping === undefined
        ? { name: this.name, from, to }
        : { name: this.name, from, to, reason: tripping },
      this.#eventScope,
    );
  }

  /**
   * The cause of an opening this process did not make with a failure of its own (a record from
   * the store): what the record tells, since the failure itself stayed in the process that had it.
   */
  #openedElsewhere(from: BreakerState): RecourseError {
    const p = this.#port;
    const at = Number.isFinite(p.openedAt) ? ` at ${new Date(p.openedAt).toISOString()}` : '';
    return new RecourseError(
      from === 'half-open'
        ? `circuit "${this.name}" was reopened through its store${at}: the half-open probe failed in another process sharing it`
        : `circuit "${this.name}" was opened through its store${at}: ${p.failures} consecutive failures counted by the processes sharing it (failureThreshold ${this.options.failureThreshold})`,
    );
  }

  /** @internal PortOwner: an event of the port. */
  emit<K extends 'store_unavailable' | 'store_recovered'>(
    type: K,
    payload: RecourseEventMap[K],
  ): void {
    if (this.wants(type)) this.events.emit(type, payload);
  }

  /** @internal 'used' (called since the last sweep; the mark is cleared), 'idle' (evictable) or 'busy'. */
  [SWEEP](): 'used' | 'idle' | 'busy' {
    const p = this.#port;
    if (p.used) {
      p.used = false;
      return 'used';
    }
    return p.idle() ? 'idle' : 'busy';
  }
}

function runAlone(this: CircuitBreakerPolicy, fn: Work<unknown>, scope: Scope): unknown {
  return this.run(ALONE, fn, scope);
}

/**
 * A circuit breaker for one dependency. Closed, it counts failures that `countsAsFailure` accepts
 * (by default 429/5xx/network/timeouts/stalls/invalid results, not 400-class errors or caller
 * aborts); `failureThreshold` consecutive ones (or, with `window`, a failure rate over a sliding
 * window once `minimumCalls` is reached) open it. Open, it rejects at once with `CircuitOpenError`
 * (with `retryAfterMs`) without running fn. After `cooldownMs`, exactly one caller is admitted as
 * the probe while all others are rejected at once; the probe's success closes it, its failure
 * reopens it and restarts the cooldown, and a probe still running after `probeTimeoutMs` fails
 * (its caller gets TimeoutError). A probe whose caller aborts does not count and frees the slot at
 * once. Outcomes of calls that started before the latest state change are ignored.
 * With `store`, processes share the breaker: see docs/circuit-breaker.md.
 * Defaults: failureThreshold 5, cooldownMs 30000, probeTimeoutMs 120000, clock systemClock
 * (wallClock with a store), storeTimeoutMs 250.
 *
 * @example
 * const search = circuitBreaker({ name: 'search', failureThreshold: 3, cooldownMs: 10_000 })
 * const reply = await pipeline(search, retry(), timeout(20_000)).execute(callSearch)
 */
export function circuitBreaker(options?: BreakerOptions): CircuitBreaker {
  const resolved = resolveBreakerOptions(options);
  return new CircuitBreakerPolicy(options?.name ?? 'breaker', resolved);
}

/** @internal Builds a breaker from options already resolved (a registry shares one object). */
export function breakerFromResolved(name: string, resolved: ResolvedBreakerOptions): SweptBreaker {
  return new CircuitBreakerPolicy(name, resolved);
}
