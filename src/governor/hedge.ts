import { type Clock, startTimer, systemClock, type Timer } from '../clock/clock.js';
import type { Work } from '../context/call-context.js';
import type { Scope } from '../context/scope.js';
import {
  checkClock,
  checkFunction,
  checkMs,
  checkName,
  checkNumber,
  checkOptions,
  type OptionKeys,
  showValue,
} from '../options/validate-options.js';
import { asPromise, BaseLayer, COMPOSE, type Invoke, isThenable } from '../policy/layer.js';
import type { EventedPolicy } from '../policy/policy.js';
import { HedgeAttempt } from './hedge-attempt.js';
import { HedgeBudget } from './hedge-budget.js';
import { QuantileSketch } from './quantile-sketch.js';

/** A path a hedged attempt can take instead of the call's own function (the next rung of a ladder). */
export interface HedgePath<T = unknown> {
  /** Reported as the `path` of `hedge` events. Unique; `'primary'` is the call's own function. */
  name: string;
  run: Work<T>;
}

/** Options of {@link hedge}. */
export interface HedgeOptions {
  /**
   * How long the first attempt may go without a first item before a second one starts, ms; or
   * `'p95'`: the 95th percentile of this hedge's own times to first item so far (no hedging until
   * 20 calls were seen). Default `'p95'`.
   */
  afterMs?: number | 'p95';
  /** Extra requests allowed, as a share of calls (a token bucket that starts empty). Default 0.05. */
  maxExtra?: number;
  /** The dependency, reported in events. */
  name?: string;
  /** Default `systemClock`. */
  clock?: Clock;
  /**
   * Where hedged attempts go: the n-th hedge of a call runs `paths[n - 1]` (up to one hedge per
   * path, each `afterMs` after the previous). Default: one hedge, running the call's own function again.
   */
  paths?: HedgePath[];
}

const HEDGE_KEYS: OptionKeys<HedgeOptions> = {
  afterMs: true,
  maxExtra: true,
  name: true,
  clock: true,
  paths: true,
};
const PATH_KEYS: OptionKeys<HedgePath> = { name: true, run: true };
/** Calls seen before `'p95'` hedges at all: a percentile of a handful of calls is a guess. */
const P95_MIN_SAMPLES = 20;

/** Why a loser is aborted: a cancellation (`isAbortError`), not a failure anybody should count. */
function lostRace(): DOMException {
  return new DOMException(
    'Another attempt of this hedged call produced its first item first',
    'AbortError',
  );
}

/** One hedged call: its attempts, the timer of the next hedge, and its promise. */
class HedgeCall {
  readonly #policy: HedgePolicy;
  readonly #next: Invoke;
  readonly #fn: Work<unknown>;
  readonly #scope: Scope;
  readonly #delay: number | undefined;
  readonly #startedAt: number;
  readonly #attempts: HedgeAttempt[] = [];
  #winner: HedgeAttempt | undefined;
  #settled = false;
  #timer: Timer | undefined;
  #resolve: ((value: unknown) => void) | undefined;
  #reject: ((error: unknown) => void) | undefined;
  /** A synchronous outcome of the first attempt, before any promise exists. */
  #syncOutcome: { ok: boolean; value: unknown } | undefined;

  constructor(
    policy: HedgePolicy,
    next: Invoke,
    fn: Work<unknown>,
    scope: Scope,
    delay: number | undefined,
  ) {
    this.#policy = policy;
    this.#next = next;
    this.#fn = fn;
    this.#scope = scope;
    this.#delay = delay;
    this.#startedAt = policy.clock.now();
  }

  start(): unknown {
    this.#launch();
    const sync = this.#syncOutcome;
    if (sync !== undefined) {
      if (sync.ok) return sync.value;
      throw sync.value;
    }
    const promise = new Promise<unknown>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    if (!this.#settled && this.#delay !== undefined && this.#policy.maxHedges > 0) this.#arm();
    return promise;
  }

  /** The watcher (or a result) says `attempt` produced its first item. */
  firstItem(attempt: HedgeAttempt): void {
    if (this.#winner !== undefined || this.#settled || attempt.lost) return;
    this.#winner = attempt;
    this.#cancelTimer();
    const policy = this.#policy;
    const elapsed = policy.clock.now() - this.#startedAt;
    // The primary's time to its first item: exact when it won, a lower bound when it lost (it was
    // slower than that), which is all a percentile at or below the hedge delay needs.
    if (this.#attempts[0]!.failed === false) policy.sketch.add(elapsed);
    if (this.#attempts.length === 1) return;
    let loserTokens: number | undefined;
    for (const other of this.#attempts) {
      if (other === attempt || other.failed) continue;
      other.lost = true;
      if (other.tokens !== undefined) loserTokens = (loserTokens ?? 0) + other.tokens;
      other.abort(lostRace());
      other.dispose();
    }
    policy.report(this.#scope, {
      afterMs: this.#delay!,
      attempts: this.#attempts.length,
      winner: attempt.index,
      path: attempt.path,
      firstItemMs: elapsed,
      loserTokens,
    });
  }

  #launch(): void {
    const index = this.#attempts.length;
    const policy = this.#policy;
    const path = index === 0 || policy.paths.length === 0 ? undefined : policy.paths[index - 1]!;
    const attempt = new HedgeAttempt(this.#scope, this, index, path?.name ?? 'primary');
    this.#attempts.push(attempt);
    let result: unknown;
    try {
      result = this.#next(path?.run ?? this.#fn, attempt);
    } catch (error) {
      this.#failed(attempt, error);
      return;
    }
    if (isThenable(result)) {
      asPromise(result).then(
        (value) => this.#done(attempt, value),
        (error: unknown) => this.#failed(attempt, error),
      );
    } else this.#done(attempt, result);
  }

  #done(attempt: HedgeAttempt, value: unknown): void {
    if (attempt.lost || this.#settled) return;
    // A result is an item: an attempt that answers without streaming wins by answering.
    if (this.#winner === undefined) this.firstItem(attempt);
    if (this.#winner === attempt) this.#settle(true, value);
  }

  #failed(attempt: HedgeAttempt, error: unknown): void {
    if (attempt.lost || this.#settled) return;
    attempt.failed = true;
    attempt.dispose();
    if (this.#winner === attempt) {
      this.#settle(false, error);
      return;
    }
    // Another attempt still racing may answer; a failure before any hedge ends the call (hedging
    // is for slowness: a failure is the retry's business).
    if (this.#attempts.some((a) => !a.failed)) return;
    if (this.#attempts.length > 1) {
      this.#policy.report(this.#scope, {
        afterMs: this.#delay!,
        attempts: this.#attempts.length,
        winner: undefined,
        path: undefined,
        firstItemMs: undefined,
        loserTokens: undefined,
      });
    }
    this.#settle(false, error);
  }

  #settle(ok: boolean, value: unknown): void {
    this.#settled = true;
    this.#cancelTimer();
    this.#winner?.dispose();
    if (this.#resolve === undefined) this.#syncOutcome = { ok, value };
    else if (ok) this.#resolve(value);
    else this.#reject!(value);
  }

  #arm(): void {
    this.#timer = startTimer(this.#policy.clock, this.#delay!, this.#onTimer);
  }

  #cancelTimer(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
  }

  readonly #onTimer = (): void => {
    this.#timer = undefined;
    if (this.#settled || this.#winner !== undefined || this.#scope.aborted) return;
    // No allowance left: this call is not hedged (a later call may be).
    if (!this.#policy.budget.take()) return;
    this.#launch();
    if (
      !this.#settled &&
      this.#winner === undefined &&
      this.#attempts.length <= this.#policy.maxHedges
    )
      this.#arm();
  };
}

/** What a `hedge` event says. */
interface HedgeReport {
  afterMs: number;
  attempts: number;
  winner: number | undefined;
  path: string | undefined;
  firstItemMs: number | undefined;
  loserTokens: number | undefined;
}

class HedgePolicy extends BaseLayer {
  readonly clock: Clock;
  readonly paths: readonly HedgePath[];
  readonly maxHedges: number;
  readonly budget: HedgeBudget;
  readonly sketch = new QuantileSketch();
  readonly #afterMs: number | undefined;
  readonly #name: string | undefined;

  constructor(options: HedgeOptions | undefined) {
    const o = checkOptions('hedge', options, HEDGE_KEYS);
    super('hedge', o.name);
    this.#name = o.name;
    const afterMs = o.afterMs ?? 'p95';
    this.#afterMs = afterMs === 'p95' ? undefined : checkMs('afterMs', afterMs);
    this.budget = new HedgeBudget(
      o.maxExtra === undefined ? 0.05 : checkNumber('maxExtra', o.maxExtra, 0, 1),
    );
    this.clock = checkClock<Clock>('clock', o.clock ?? systemClock);
    this.paths = checkPaths(o.paths);
    this.maxHedges = this.paths.length === 0 ? 1 : this.paths.length;
  }

  /** When to hedge a call starting now, ms; `undefined` while `'p95'` has too little to go on. */
  delay(): number | undefined {
    if (this.#afterMs !== undefined) return this.#afterMs;
    return this.sketch.count < P95_MIN_SAMPLES ? undefined : this.sketch.quantile(0.95);
  }

  report(scope: Scope, r: HedgeReport): void {
    if (!this.wants('hedge')) return;
    this.events.emit(
      'hedge',
      { ...(this.#name === undefined ? {} : { name: this.#name }), ...r },
      scope,
    );
  }

  [COMPOSE](next: Invoke): Invoke {
    return (fn: Work<unknown>, scope: Scope) => {
      this.budget.call();
      return new HedgeCall(this, next, fn, scope, this.delay()).start();
    };
  }
}

function checkPaths(paths: unknown): HedgePath[] {
  if (paths === undefined) return [];
  if (!Array.isArray(paths) || paths.length === 0)
    throw new TypeError(
      `paths must be a non-empty array of { name, run }, got ${showValue(paths)}`,
    );
  const names = new Set<string>(['primary']);
  return paths.map((p: unknown, i) => {
    if (typeof p !== 'object' || p === null)
      throw new TypeError(`paths[${i}] must be an object { name, run }, got ${showValue(p)}`);
    const path = checkOptions(`hedge paths[${i}]`, p as HedgePath, PATH_KEYS);
    const name = checkName(`paths[${i}].name`, path.name);
    if (names.has(name))
      throw new TypeError(
        `paths[${i}].name "${name}" is used twice (or is 'primary', the call's own function)`,
      );
    names.add(name);
    return { name, run: checkFunction<Work<unknown>>(`paths[${i}].run`, path.run) };
  });
}

/**
 * Hedged calls: when a call has produced no first item after `afterMs` (or this hedge's learned
 * p95 of time to first item, `'p95'`, the default), a second attempt starts — the same function,
 * or the next of `paths` — and the first attempt to produce an item wins; the others are aborted
 * (their `ctx.signal` aborts, so an SDK closes their request) and never deliver anything. The
 * first item is a watched stream's first progress item (every adapter of recourse streams through
 * `watch`, inside the attempt), or the attempt's result. Extra requests stay within `maxExtra`
 * (default 0.05) of calls: a token bucket that starts empty. A failure before any hedge ends the
 * call (failures are `retry`'s business); with a hedge racing, the other attempt carries on.
 * Event: `hedge` {name, afterMs, attempts, winner, path, firstItemMs, loserTokens}.
 *
 * @example
 * const hedged = pipeline(retry(), hedge({ afterMs: 'p95', maxExtra: 0.05, name: 'anthropic' }))
 * const message = await hedged.execute((ctx) => streamMessage(client, body, { signal: ctx.signal }))
 */
export function hedge(options?: HedgeOptions): EventedPolicy<'hedge'> {
  return new HedgePolicy(options);
}
