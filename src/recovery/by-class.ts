import type { Classification, FailureKind } from '../classify/classification.js';
import { classify } from '../classify/classify.js';
import { type Clock, systemClock } from '../clock/clock.js';
import type { CallContext, Work } from '../context/call-context.js';
import type { Scope } from '../context/scope.js';
import { ReplanRequiredError } from '../errors/replan-required-error.js';
import type { RecoveryRoute } from './recovery-events.js';
import { isFallback, ladderIsNotAPolicy } from '../fallback/fallback.js';
import {
  checkClock,
  checkFunction,
  checkMs,
  checkName,
  checkOneOf,
  checkOptions,
  type OptionKeys,
  showValue,
} from '../options/validate-options.js';
import { pipeline } from '../pipeline/pipeline.js';
import { BaseLayer, COMPOSE, type Invoke, isLayer, type Layer } from '../policy/layer.js';
import type { EventedPolicy, Policy } from '../policy/policy.js';
import { retry } from '../retry/retry.js';
import { explain } from '../telemetry/explain.js';
import { AlertThrottle } from './alert-throttle.js';
import { replanSummary } from './replan-summary.js';
import { type Shutdown, ShutdownGate } from './shutdown.js';
import type { Emitter } from '../events/emitter.js';
import { isThenable } from '../policy/layer.js';

/** What the `alert` hook of {@link byClass} receives. */
export interface AlertInfo {
  /** The dependency (the `name` option, else the call's name from `pipeline({ name })` / `instrument`). */
  name: string;
  kind: FailureKind;
  reason: string;
  error: unknown;
  /** `explain(error)`: the causal chain as an indented tree, secrets redacted. */
  explain: string;
  /** Alerts held back for this dependency since the previous one (cool-down). */
  suppressed: number;
}

/** Options of {@link byClass}: each class's road, and the alert hook. */
export interface ByClassOptions {
  /** The dependency, for alerts, summaries and events. Default: the call's name, else `unnamed`. */
  name?: string;
  /**
   * Transient failures (429, 5xx, resets, timeouts) are run again under this policy; what it
   * finally throws goes on to an enclosing fallback. Default `retry()`; `'fail'`: no second try.
   */
  transient?: Policy | 'fail';
  /** Persistent failures (401, 403, DNS, disk full): alerted, then run again under this policy if given. Default `'fail'`. */
  persistent?: Policy | 'fail';
  /** Logical failures (400, context overflow, invalid results): default `'replan'` (`ReplanRequiredError`). */
  logical?: 'replan' | 'fail' | Policy;
  /** Fatal failures (a TypeError: a bug): default `'stop'`, which stops the run through `shutdown`, then rethrows. */
  fatal?: 'stop' | 'fail' | Policy;
  /** Called once per dependency per cool-down for failures of the classes in `alertOn`; never delays or fails the call. */
  alert?: (info: AlertInfo) => unknown;
  /** Classes that alert. Default `['persistent']`. */
  alertOn?: readonly FailureKind[];
  /** One alert per dependency per this long, ms. Default 300000 (5 min). */
  alertCooldownMs?: number;
  /** The run a fatal failure stops (share one among policies). Default: one of its own (`byClass(...).shutdown`). */
  shutdown?: Shutdown;
  /** Times the alert cool-down. Default `systemClock`. */
  clock?: Clock;
}

const BY_CLASS_KEYS: OptionKeys<ByClassOptions> = {
  name: true,
  transient: true,
  persistent: true,
  logical: true,
  fatal: true,
  alert: true,
  alertOn: true,
  alertCooldownMs: true,
  shutdown: true,
  clock: true,
};
const KINDS: readonly FailureKind[] = ['transient', 'persistent', 'logical', 'fatal', 'cancelled'];
// Recourse's own outcomes of recovery layers: already handled, passed on as they are.
const HANDLED = new Set([
  'replan_required',
  'escalation_required',
  'escalation_denied',
  'run_stopped',
]);

type Road = 'transient' | 'persistent' | 'logical' | 'fatal';
/** A class's road: run it again under a policy (once per call), then its end. */
interface RoadSpec {
  readonly policy: Layer | undefined;
  readonly end: 'fail' | 'replan' | 'stop';
}

/** The rest of the chain run again, under a route's policy: its first attempt is the failure already seen. */
interface Replay {
  (ctx: CallContext): unknown;
  pending: boolean;
  readonly first: unknown;
  readonly work: Work<unknown>;
}

function replayOf(first: unknown, work: Work<unknown>): Replay {
  const replay = ((ctx: CallContext) => work(ctx)) as Replay;
  replay.pending = true;
  (replay as { first: unknown }).first = first;
  (replay as { work: Work<unknown> }).work = work;
  return replay;
}

function replayStep(next: Invoke): Invoke {
  return (fn: Work<unknown>, scope: Scope) => {
    const replay = fn as Replay;
    if (replay.pending) {
      replay.pending = false;
      throw replay.first;
    }
    return next(replay.work, scope);
  };
}

function checkRoute(
  option: string,
  value: unknown,
  ends: readonly string[],
  fallback: RoadSpec,
): RoadSpec {
  if (value === undefined) return fallback;
  if (typeof value === 'string')
    return { policy: undefined, end: checkOneOf(option, value, ends) as RoadSpec['end'] };
  if (isFallback(value)) throw new TypeError(ladderIsNotAPolicy(option));
  if (
    typeof value !== 'object' ||
    value === null ||
    typeof (value as Policy).execute !== 'function'
  ) {
    throw new TypeError(
      `${option} must be a policy or one of ${ends.map((e) => `'${e}'`).join(', ')}, got ${showValue(value)}`,
    );
  }
  const policy = value as Policy;
  // A policy of someone else's runs as a pipeline member (pipeline wraps it), so every route composes alike.
  return { policy: isLayer(policy) ? policy : (pipeline(policy) as unknown as Layer), end: 'fail' };
}

class ByClassPolicy extends BaseLayer {
  readonly #name: string | undefined;
  readonly #roads: Readonly<Record<Road, RoadSpec>>;
  readonly #alert: ((info: AlertInfo) => unknown) | undefined;
  readonly #alertOn: readonly FailureKind[];
  readonly #throttle: AlertThrottle;
  readonly #gate: ShutdownGate;
  readonly #ownGate: boolean;
  readonly #clock: Clock;

  constructor(options: ByClassOptions | undefined) {
    const o = checkOptions('byClass', options, BY_CLASS_KEYS);
    const name = o.name === undefined ? undefined : checkName('name', o.name);
    super('by-class', name);
    this.#name = name;
    this.#roads = {
      transient: checkRoute('transient', o.transient, ['fail'], {
        policy: retry() as unknown as Layer,
        end: 'fail',
      }),
      persistent: checkRoute('persistent', o.persistent, ['fail'], {
        policy: undefined,
        end: 'fail',
      }),
      logical: checkRoute('logical', o.logical, ['replan', 'fail'], {
        policy: undefined,
        end: 'replan',
      }),
      fatal: checkRoute('fatal', o.fatal, ['stop', 'fail'], { policy: undefined, end: 'stop' }),
    };
    this.#alert = o.alert === undefined ? undefined : checkFunction('alert', o.alert);
    if (o.alertOn !== undefined && !Array.isArray(o.alertOn))
      throw new TypeError(
        `alertOn must be an array of failure classes, got ${showValue(o.alertOn)}`,
      );
    this.#alertOn =
      o.alertOn === undefined
        ? ['persistent']
        : o.alertOn.map((k, i) => checkOneOf(`alertOn[${i}]`, k, KINDS));
    this.#throttle = new AlertThrottle(
      o.alertCooldownMs === undefined ? 300_000 : checkMs('alertCooldownMs', o.alertCooldownMs),
    );
    this.#clock = checkClock<Clock>('clock', o.clock ?? systemClock);
    if (o.shutdown !== undefined && !(o.shutdown instanceof ShutdownGate)) {
      throw new TypeError(`shutdown must be a shutdown({ … }), got ${showValue(o.shutdown)}`);
    }
    this.#ownGate = o.shutdown === undefined;
    this.#gate = o.shutdown ?? new ShutdownGate(undefined);
  }

  /** The run a fatal failure stops: register shutdown steps on it. */
  get shutdown(): Shutdown {
    return this.#gate;
  }

  override get emitters(): readonly Emitter[] {
    const own = [this.events, ...(this.#ownGate ? this.#gate.emitters : [])];
    for (const road of Object.values(this.#roads))
      if (road.policy !== undefined) own.push(...road.policy.emitters);
    return own;
  }

  /** Subscribes to its own events and to those of its road policies (a retry's `retry`, …). */
  override on(event: string, listener: (e: object) => void): () => void {
    const offs = this.emitters.map((e) => e.on(event, listener));
    return () => {
      for (const off of offs) off();
    };
  }

  [COMPOSE](next: Invoke): Invoke {
    const replay = replayStep(next);
    const routes: Partial<Record<Road, Invoke>> = {};
    for (const [road, spec] of Object.entries(this.#roads) as Array<[Road, RoadSpec]>) {
      if (spec.policy !== undefined) routes[road] = spec.policy[COMPOSE](replay);
    }
    return (fn: Work<unknown>, scope: Scope) =>
      this.#gate.track(scope, (child, leave) => {
        const state = { attempts: 0 };
        // Counts the dependency's calls (for the summary); refuses to start one once the run is stopping.
        const counted = this.#gate.guard((ctx) => {
          state.attempts++;
          return fn(ctx);
        });
        let result: unknown;
        try {
          result = next(counted, child);
        } catch (error) {
          return this.#route(error, counted, child, leave, routes, state);
        }
        if (!isThenable(result)) return result;
        return Promise.resolve(result).then(undefined, (error: unknown) =>
          this.#route(error, counted, child, leave, routes, state),
        );
      });
  }

  async #route(
    first: unknown,
    work: Work<unknown>,
    scope: Scope,
    leave: () => void,
    routes: Partial<Record<Road, Invoke>>,
    state: { attempts: number },
  ): Promise<unknown> {
    let error = first;
    const used = new Set<Road>();
    let alerted = false;
    for (;;) {
      // The caller gave up, or the run stopped while this call was running: nothing more is tried.
      if (scope.aborted) throw error;
      const c = classify(error);
      if (c.kind === 'cancelled' || HANDLED.has(c.reason)) throw error;
      const road: Road = c.kind;
      const name = this.#name ?? scope.name;
      if (!alerted && this.#alertOn.includes(road)) {
        alerted = true;
        this.#raise(name, c, error, scope);
      }
      const spec = this.#roads[road];
      const route = routes[road];
      if (route !== undefined && !used.has(road)) {
        used.add(road);
        this.#emitRoute(c, 'policy', error, scope);
        try {
          return await route(replayOf(error, work), scope);
        } catch (failure) {
          error = failure;
          continue;
        }
      }
      this.#emitRoute(c, spec.end, error, scope);
      if (spec.end === 'replan') {
        const summary = replanSummary(error, c, name, state.attempts);
        if (this.wants('replan'))
          this.events.emit(
            'replan',
            { reason: c.reason, summary, attempts: state.attempts, error },
            scope,
          );
        throw new ReplanRequiredError(summary, {
          cause: error,
          dependency: name,
          reason: c.reason,
          attempts: state.attempts,
        });
      }
      if (spec.end === 'stop') {
        // Out of the drain first: the stop waits for the other calls, never for this one.
        leave();
        await this.#gate.stop(error);
      }
      throw error;
    }
  }

  #emitRoute(c: Classification, route: RecoveryRoute, error: unknown, scope: Scope): void {
    if (this.wants('route'))
      this.events.emit('route', { kind: c.kind, route, reason: c.reason, error }, scope);
  }

  #raise(name: string | undefined, c: Classification, error: unknown, scope: Scope): void {
    const dependency = name ?? 'unnamed';
    const { fire, suppressed } = this.#throttle.admit(dependency, this.#clock.now());
    if (!fire) return;
    if (this.wants('alert'))
      this.events.emit(
        'alert',
        { name: dependency, kind: c.kind, reason: c.reason, suppressed, error },
        scope,
      );
    const hook = this.#alert;
    if (hook === undefined) return;
    const failed = (hookError: unknown): void => {
      if (this.wants('alert_failed'))
        this.events.emit('alert_failed', { name: dependency, error: hookError }, scope);
    };
    try {
      const answer = hook({
        name: dependency,
        kind: c.kind,
        reason: c.reason,
        error,
        explain: explain(error),
        suppressed,
      });
      // An alert that takes its time (a webhook) never delays the call; its failure is an event.
      if (isThenable(answer)) Promise.resolve(answer).then(undefined, failed);
    } catch (hookError) {
      failed(hookError);
    }
  }
}

/** A policy that routes each failure by its class; see {@link byClass}. */
export interface ByClass
  extends EventedPolicy<
    'route' | 'alert' | 'alert_failed' | 'replan' | 'stop' | 'retry' | 'giveup'
  > {
  /** The run a fatal failure stops (the `shutdown` option, or its own): register steps on it. */
  readonly shutdown: Shutdown;
}

/**
 * Recovery by error class, as one policy: each failure goes down the road of its
 * `classify(error).kind`. **transient** (429, 5xx, resets, timeouts, stalls): run again under
 * `transient` (default `retry()`), then on to fallback (an enclosing `fallback` ladder's next
 * path). **persistent** (401, 403, DNS, disk full): never retried by default; `alert` is called
 * (once per dependency per `alertCooldownMs`, with the redacted `explain` tree), then on to
 * fallback. **logical** (400, context overflow, invalid results): `ReplanRequiredError` with a
 * short `summary` the agent puts back into the conversation. **fatal** (a TypeError, a bug): the
 * run stops once — no call starts after it, calls in flight are drained, the `shutdown` steps run —
 * and the error is rethrown. Cancelled calls and recourse's own recovery outcomes
 * (`ReplanRequiredError`, escalations, `RunStoppedError`) pass through. Each road is replaceable:
 * a policy runs the call again under it (its first attempt is the failure just seen; each class's
 * policy runs at most once per call, and what it finally throws is routed by its own class), or
 * `'fail'` passes the failure on as it is. Put it where the retry layer would go:
 * `pipeline(breaker, byClass(…), timeout(…))`.
 * Events: `route`, `alert`, `alert_failed`, `replan`, `stop`, and the route policies' own.
 *
 * @example
 * const claude = pipeline(
 *   { name: 'claude' },
 *   breakers.get('claude'),
 *   byClass({ alert: (a) => pager.send(`${a.name}: ${a.reason}\n${a.explain}`) }),
 *   timeout(60_000),
 * )
 * try { reply = await claude.execute((ctx) => client.messages.create(body, { signal: ctx.signal })) }
 * catch (e) { if (isReplanRequiredError(e)) messages.push({ role: 'user', content: e.summary }); else throw e }
 */
export function byClass(options?: ByClassOptions): ByClass {
  return new ByClassPolicy(options);
}
