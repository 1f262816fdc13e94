import { classify } from '../classify/classify.js';
import type { Work } from '../context/call-context.js';
import type { Scope } from '../context/scope.js';
import { CircuitOpenError } from '../errors/circuit-open-error.js';
import { TimeoutError } from '../errors/timeout-error.js';
import { reportListenerError } from '../events/emitter.js';
import type { BreakerState } from '../events/event-types.js';
import { asPromise, BaseLayer, COMPOSE, FUSE, type Invoke, isThenable, type Layer, RETRY_PARTS, terminal } from '../policy/layer.js';
import type { EventedPolicy } from '../policy/policy.js';
import { runWithDeadline } from '../timeout/run-with-deadline.js';
import {
  type Admission,
  admitTransition,
  type BreakerLimits,
  type BreakerOutcome,
  type BreakerRecord,
  newBreakerRecord,
  recordTransition,
} from './breaker-record.js';
import { type BreakerOptions, type ResolvedBreakerOptions, resolveBreakerOptions } from './breaker-options.js';
import { wholeMs } from '../text/whole-ms.js';
import { SlidingWindow } from './sliding-window.js';

/**
 * A per-dependency circuit breaker. Events: `state` {name, from, to}, `reject` {name, retryAfterMs},
 * `timeout` (a probe ran past `probeTimeoutMs`).
 */
export interface CircuitBreaker extends EventedPolicy<'state' | 'reject' | 'timeout'> {
  readonly name: string;
  /** May stay `'open'` after the cooldown until the next call is admitted as the probe. */
  readonly state: BreakerState;
  /** Holds the breaker open until `reset()`. */
  isolate(): void;
  /** Closed, counters cleared. */
  reset(): void;
  toJSON(): object;
}

class CircuitBreakerPolicy extends BaseLayer implements CircuitBreaker {
  readonly name: string;
  readonly #o: ResolvedBreakerOptions;
  readonly #limits: BreakerLimits;
  readonly #r: BreakerRecord = newBreakerRecord();
  #window: SlidingWindow | undefined;

  constructor(name: string, resolved: ResolvedBreakerOptions) {
    super('circuit-breaker', name);
    this.name = name;
    this.#o = resolved;
    this.#limits = resolved;
  }

  get state(): BreakerState {
    return this.#r.state;
  }

  isolate(): void {
    this.#force('isolated');
  }

  reset(): void {
    this.#window?.clear();
    this.#force('closed');
  }

  toJSON(): object {
    const r = this.#r;
    const now = this.#o.clock.now();
    return {
      name: this.name,
      state: r.state,
      epoch: r.epoch,
      failures: r.failures,
      ...(r.state === 'open' ? { retryAfterMs: Math.max(0, Math.ceil(r.openedAt + this.#o.cooldownMs - now)) } : {}),
      probeInFlight: r.state === 'half-open' && r.probeUntil > now,
      ...(this.#o.window ? { window: { ...this.#o.window, ...this.#windowOf().totals(now) } } : { failureThreshold: this.#o.failureThreshold }),
      cooldownMs: this.#o.cooldownMs,
      probeTimeoutMs: this.#o.probeTimeoutMs,
      shared: this.#o.store !== undefined,
    };
  }

  [COMPOSE](next: Invoke): Invoke {
    if (this.#o.store !== undefined) return (fn, scope) => this.#runShared(next, fn, scope);
    return (fn: Work<unknown>, scope: Scope): unknown => this.callLocal(next, fn, scope);
  }

  protected override standalone(): Invoke {
    // Alone and in-process, the breaker runs through a prototype function (called with this
    // breaker as `this`): no closure per breaker, so a registry of thousands stays small.
    return this.#o.store === undefined ? runAlone : super.standalone();
  }

  /** @internal Closed is the hot path: no async frame, two small handlers, nothing else allocated. */
  callLocal(next: Invoke, fn: Work<unknown>, scope: Scope): unknown {
    const r = this.#r;
    if (r.state !== 'closed') return this.#runAdmitted(next, fn, scope, this.#admitLocal());
    const epoch = r.epoch;
    let result: unknown;
    try {
      result = next(fn, scope);
    } catch (error) {
      return this.#failLocal(epoch, error, scope);
    }
    if (!isThenable(result)) {
      this.#succeedLocal(epoch);
      return result;
    }
    return asPromise(result).then(
      (value) => {
        this.#succeedLocal(epoch);
        return value;
      },
      (error: unknown) => this.#failLocal(epoch, error, scope),
    );
  }

  /**
   * Breaker over retry in one promise reaction: the first attempt's promise gets the breaker's
   * handlers directly, and only a failure goes through retry's slow path first.
   */
  [FUSE](inner: Layer, next: Invoke): Invoke | undefined {
    const parts = inner[RETRY_PARTS];
    if (parts === undefined || this.#o.store !== undefined) return undefined;
    const whole = inner[COMPOSE](next);
    return (fn: Work<unknown>, scope: Scope): unknown => {
      const r = this.#r;
      if (r.state !== 'closed') return this.#runAdmitted(whole, fn, scope, this.#admitLocal());
      const epoch = r.epoch;
      const ok = (value: unknown): unknown => {
        this.#succeedLocal(epoch);
        return value;
      };
      const fail = (error: unknown): never => this.#failLocal(epoch, error, scope);
      let result: unknown;
      try {
        result = parts.first(next, fn, scope);
      } catch (error) {
        return parts.recover(error, next, fn, scope).then(ok, fail);
      }
      if (!isThenable(result)) return ok(result);
      return asPromise(result).then(ok, (error: unknown) => parts.recover(error, next, fn, scope).then(ok, fail));
    };
  }

  #succeedLocal(epoch: number): void {
    if (this.#r.failures !== 0 || this.#o.window !== undefined) this.#recordLocal(epoch, 'success');
  }

  #failLocal(epoch: number, error: unknown, scope: Scope): never {
    this.#recordLocal(epoch, this.#outcomeOf(error, scope));
    throw error;
  }

  #admitLocal(): Admission {
    const before = this.#r.state;
    const admission = admitTransition(this.#r, this.#o.clock.now(), this.#limits);
    this.#changed(before, this.#r.state);
    return admission;
  }

  #recordLocal(epoch: number, outcome: BreakerOutcome): void {
    const r = this.#r;
    if (epoch !== r.epoch) return;
    const now = this.#o.clock.now();
    let trip: boolean | undefined;
    const w = this.#o.window;
    if (w !== undefined && r.state === 'closed' && outcome !== 'neutral') {
      const window = this.#windowOf();
      window.record(now, outcome === 'failure');
      if (outcome === 'failure') {
        const { calls, failures } = window.totals(now);
        trip = calls >= w.minimumCalls && failures / calls >= w.failureRate;
      }
    }
    const before = recordTransition(r, epoch, outcome, now, this.#limits, trip);
    if (before !== r.state) {
      if (r.state !== 'closed') this.#window?.clear();
      this.#changed(before, r.state);
    }
  }

  async #runAdmitted(next: Invoke, fn: Work<unknown>, scope: Scope, admission: Admission): Promise<unknown> {
    if (admission.kind === 'reject') throw this.#reject(admission.retryAfterMs, admission.state);
    const epoch = admission.epoch;
    if (admission.kind === 'call') {
      try {
        const value = await next(fn, scope);
        this.#recordLocal(epoch, 'success');
        return value;
      } catch (error) {
        this.#recordLocal(epoch, this.#outcomeOf(error, scope));
        throw error;
      }
    }
    return this.#probe(next, fn, scope, (outcome) => this.#recordLocal(epoch, outcome));
  }

  /** Runs the single half-open probe under `probeTimeoutMs`; the caller of a timed-out probe gets TimeoutError. */
  async #probe(next: Invoke, fn: Work<unknown>, scope: Scope, record: (o: BreakerOutcome) => unknown): Promise<unknown> {
    const ms = this.#o.probeTimeoutMs;
    let timedOut = false;
    const makeError = (): Error => new TimeoutError(ms, `circuit "${this.name}": probe did not settle within ${wholeMs(ms)} ms`);
    const onExpire = (): void => {
      timedOut = true;
      if (this.wants('timeout')) this.events.emit('timeout', { timeoutMs: ms, probe: true, name: this.name });
      void record('failure');
    };
    try {
      const value = await runWithDeadline(next, fn, scope, this.#o.clock, ms, makeError, onExpire);
      await record('success');
      return value;
    } catch (error) {
      if (!timedOut) await record(this.#outcomeOf(error, scope));
      throw error;
    }
  }

  #outcomeOf(error: unknown, scope: Scope): BreakerOutcome {
    const c = classify(error);
    if (c.kind === 'cancelled' && scope.aborted) return 'neutral';
    const counts = this.#o.countsAsFailure ? this.#o.countsAsFailure(error, c) : c.countsForBreaker;
    return counts ? 'failure' : 'neutral';
  }

  #reject(retryAfterMs: number, state: 'open' | 'half-open' | 'isolated'): CircuitOpenError {
    if (this.wants('reject')) this.events.emit('reject', { name: this.name, retryAfterMs });
    return new CircuitOpenError(this.name, retryAfterMs, state);
  }

  #changed(from: BreakerState, to: BreakerState): void {
    if (from !== to && this.wants('state')) this.events.emit('state', { name: this.name, from, to });
  }

  #windowOf(): SlidingWindow {
    this.#window ??= new SlidingWindow(this.#o.window?.durationMs ?? 1);
    return this.#window;
  }

  #force(state: 'closed' | 'isolated'): void {
    const r = this.#r;
    const before = r.state;
    r.state = state;
    r.epoch++;
    r.failures = 0;
    r.probeUntil = 0;
    this.#changed(before, state);
    this.#o.store?.breakerForce(this.name, state).then(
      (stored) => this.#adopt(stored),
      (error: unknown) => reportListenerError(error),
    );
  }

  // ---- shared state (a BreakerStore): the same transitions, applied atomically by the store ----

  async #runShared(next: Invoke, fn: Work<unknown>, scope: Scope): Promise<unknown> {
    const store = this.#o.store!;
    const before = this.#r.state;
    const admission = await store.breakerAdmit(this.name, this.#o.clock.now(), this.#limits);
    if (admission.kind === 'reject') {
      this.#r.state = admission.state;
      this.#changed(before, admission.state);
      throw this.#reject(admission.retryAfterMs, admission.state);
    }
    const seen: BreakerState = admission.kind === 'call' ? 'closed' : 'half-open';
    this.#r.state = seen;
    this.#changed(before, seen);
    const epoch = admission.epoch;
    const record = async (outcome: BreakerOutcome): Promise<void> => {
      try {
        this.#adopt(await store.breakerRecord(this.name, epoch, outcome, this.#o.clock.now(), this.#limits));
      } catch (error) {
        // The call's own outcome matters more to the caller than a failed bookkeeping write.
        reportListenerError(error);
      }
    };
    if (admission.kind === 'probe') return this.#probe(next, fn, scope, record);
    try {
      const value = await next(fn, scope);
      await record('success');
      return value;
    } catch (error) {
      await record(this.#outcomeOf(error, scope));
      throw error;
    }
  }

  #adopt(stored: BreakerRecord): void {
    const before = this.#r.state;
    Object.assign(this.#r, stored);
    this.#changed(before, stored.state);
  }
}

function runAlone(this: CircuitBreakerPolicy, fn: Work<unknown>, scope: Scope): unknown {
  return this.callLocal(terminal, fn, scope);
}

/**
 * A circuit breaker for one dependency. Closed, it counts failures that `countsAsFailure` accepts
 * (by default 429/5xx/network/timeouts/stalls/invalid results, not 400-class errors or caller
 * aborts); `failureThreshold` consecutive ones (or, with `window`, a failure rate over a sliding
 * window once `minimumCalls` is reached) open it. Open, it rejects at once with `CircuitOpenError`
 * (with `retryAfterMs`) without running fn. After `cooldownMs`, exactly one caller is admitted as
 * the probe while all others are rejected at once; the probe's success closes it, its failure
 * reopens it and restarts the cooldown, and a probe still running after `probeTimeoutMs` fails
 * (its caller gets TimeoutError). Outcomes of calls that started before the latest state change are
 * ignored. Defaults: failureThreshold 5, cooldownMs 30000, probeTimeoutMs = cooldownMs.
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
export function breakerFromResolved(name: string, resolved: ResolvedBreakerOptions): CircuitBreaker {
  return new CircuitBreakerPolicy(name, resolved);
}
