import { classify } from '../classify/classify.js';
import { type Clock, systemClock } from '../clock/clock.js';
import { Emitter, reportListenerError } from '../events/emitter.js';
import type { DegradationDirection } from './degradation-events.js';
import type { Listener } from '../events/listener.js';
import type { DegradationEvents } from './degradation-events.js';
import {
  checkClock,
  checkFunction,
  checkInteger,
  checkMs,
  checkName,
  checkNumber,
  checkOptions,
  type OptionKeys,
  showValue,
} from '../options/validate-options.js';
import { safeRead } from '../text/safe-text.js';
import type { ErrorRate, HealthMonitor } from './health-monitor.js';

/** Flags a level carries for the orchestrator to read. */
export type DegradationFlags = Record<string, unknown>;

/** The first, healthy level: no thresholds, the full set of flags. */
export interface BaseLevel<F extends DegradationFlags> {
  name: string;
  flags: F;
}

/** A degraded level. Its flags override the first level's. */
export interface DegradationLevel<F extends DegradationFlags> {
  name: string;
  /** Enter this level when the error rate reaches this (0–1]. Must rise from level to level. */
  enterAt: number;
  /** Leave it (after the hold time) when the rate falls below this. Default enterAt / 2. */
  exitBelow?: number;
  flags?: Partial<F>;
}

/** One level change. */
export interface LevelChange {
  from: string;
  to: string;
  direction: DegradationDirection;
  /** Clock time of the change. */
  at: number;
  errorRate: number;
  calls: number;
}

/** Options of {@link degradation}. */
export interface DegradationOptions<F extends DegradationFlags> {
  /** Ordered from healthy to most degraded, e.g. normal → degraded → hard. */
  levels: readonly [BaseLevel<F>, ...DegradationLevel<F>[]];
  /** The error-rate source: this monitor's calls (of `dependencies`, default all). */
  monitor?: HealthMonitor;
  dependencies?: readonly string[];
  /** A custom error-rate source instead of a monitor (a bare number counts as enough calls). */
  errorRate?: () => number | ErrorRate;
  /** Least time in a level before it may be left for a lower one, ms. Default 30000. */
  holdMs?: number;
  /** Fewer calls than this in the window count as no evidence: no escalation, restore allowed. Default 10. */
  minimumCalls?: number;
  /** Reported in events and as the Prometheus `controller` label. Default 'degradation'. */
  name?: string;
  clock?: Clock;
  /** Called for every call that failed with a `context_overflow` classification (trim the context). Needs `monitor`. */
  onContextOverflow?: (info: { dependency: string; error: unknown }) => void;
}

const BASE_LEVEL_KEYS: OptionKeys<BaseLevel<DegradationFlags>> = { name: true, flags: true };
const LEVEL_KEYS: OptionKeys<DegradationLevel<DegradationFlags>> = {
  name: true,
  enterAt: true,
  exitBelow: true,
  flags: true,
};
const DEGRADATION_KEYS: OptionKeys<DegradationOptions<DegradationFlags>> = {
  levels: true,
  monitor: true,
  dependencies: true,
  errorRate: true,
  holdMs: true,
  minimumCalls: true,
  name: true,
  clock: true,
  onContextOverflow: true,
};

/** A degradation controller (see {@link degradation}). */
export interface DegradationController<F extends DegradationFlags> {
  /** The current level's name (evaluated on read). */
  readonly level: string;
  /** Index of the current level, 0 = healthy (evaluated on read). */
  readonly levelIndex: number;
  /** The current level's flags: the first level's, overridden by the current level's (evaluated on read). */
  readonly flags: Readonly<F>;
  /** Clock time the current level was entered. */
  readonly since: number;
  /** Every change so far (the latest 100), oldest first. */
  readonly changes: readonly LevelChange[];
  /** Re-reads the error rate and changes level if the rules say so; returns the change, if any. */
  evaluate(): LevelChange | undefined;
  on(event: 'degradation', listener: Listener<DegradationEvents['degradation']>): () => void;
  /** Stops listening to the monitor. */
  close(): void;
  toJSON(): object;
}

interface Level<F> {
  name: string;
  enterAt: number;
  exitBelow: number;
  flags: Readonly<F>;
}

const MAX_CHANGES = 100;

function resolveLevels<F extends DegradationFlags>(levels: unknown): Level<F>[] {
  if (!Array.isArray(levels) || levels.length === 0) {
    throw new TypeError(
      `levels must be a non-empty array such as [{ name: "normal", flags: {…} }, { name: "degraded", enterAt: 0.2, flags: {…} }], got ${showValue(levels)}`,
    );
  }
  const names = new Set<string>();
  const base = levels[0] as Partial<BaseLevel<F>> & { enterAt?: unknown };
  if (typeof base !== 'object' || base === null)
    throw new TypeError(`levels[0] must be an object { name, flags }, got ${showValue(base)}`);
  checkOptions('levels[0]', base, BASE_LEVEL_KEYS as OptionKeys<typeof base>);
  if (typeof base.flags !== 'object' || base.flags === null)
    throw new TypeError(
      `levels[0].flags must be an object (the flags of the healthy level), got ${showValue(base.flags)}`,
    );
  if (base.enterAt !== undefined)
    throw new TypeError(
      `levels[0] is the healthy level and takes no enterAt, got ${showValue(base.enterAt)}`,
    );
  let previous = 0;
  return levels.map((l: Partial<DegradationLevel<F>> | undefined, i): Level<F> => {
    if (typeof l !== 'object' || l === null)
      throw new TypeError(
        `levels[${i}] must be an object { name, enterAt, exitBelow?, flags? }, got ${showValue(l)}`,
      );
    if (i > 0) checkOptions(`levels[${i}]`, l, LEVEL_KEYS);
    const name = checkName(`levels[${i}].name`, l.name);
    if (names.has(name)) throw new TypeError(`levels[${i}].name "${name}" is used twice`);
    names.add(name);
    if (l.flags !== undefined && (typeof l.flags !== 'object' || l.flags === null))
      throw new TypeError(`levels[${i}].flags must be an object, got ${showValue(l.flags)}`);
    const flags = Object.freeze({ ...base.flags, ...l.flags }) as Readonly<F>;
    if (i === 0) return { name, enterAt: 0, exitBelow: 0, flags };
    const enterAt = checkNumber(`levels[${i}].enterAt`, l.enterAt, Number.MIN_VALUE, 1);
    if (enterAt <= previous)
      throw new RangeError(
        `levels[${i}].enterAt must be greater than levels[${i - 1}].enterAt (${previous}), got ${enterAt}`,
      );
    previous = enterAt;
    const exitBelow =
      l.exitBelow === undefined
        ? enterAt / 2
        : checkNumber(`levels[${i}].exitBelow`, l.exitBelow, 0, enterAt);
    return { name, enterAt, exitBelow, flags };
  });
}

class Controller<F extends DegradationFlags> implements DegradationController<F> {
  readonly #levels: Level<F>[];
  readonly #source: () => ErrorRate;
  readonly #holdMs: number;
  readonly #minimumCalls: number;
  readonly #clock: Clock;
  readonly #events: Emitter;
  readonly #changes: LevelChange[] = [];
  readonly #detach: Array<() => void> = [];
  #index = 0;
  #since: number;
  #evaluating = false;

  constructor(options: DegradationOptions<F>) {
    const o = checkOptions('degradation', options, DEGRADATION_KEYS);
    this.#levels = resolveLevels<F>(o.levels);
    this.#holdMs = o.holdMs === undefined ? 30_000 : checkMs('holdMs', o.holdMs);
    this.#minimumCalls =
      o.minimumCalls === undefined ? 10 : checkInteger('minimumCalls', o.minimumCalls, 1);
    this.#clock = checkClock<Clock>('clock', o.clock ?? systemClock);
    if (o.name !== undefined) checkName('name', o.name);
    this.#events = new Emitter('degradation', o.name ?? 'degradation');
    const monitor = o.monitor;
    if (monitor !== undefined && typeof safeRead(monitor, 'errorRate') !== 'function')
      throw new TypeError(
        `monitor must be a HealthMonitor, e.g. healthMonitor(), got ${showValue(monitor)}`,
      );
    if (o.errorRate !== undefined) {
      const read = checkFunction<() => number | ErrorRate>('errorRate', o.errorRate);
      this.#source = () => {
        const r = read();
        return typeof r === 'number'
          ? { rate: r, calls: Number.POSITIVE_INFINITY, failures: Number.NaN }
          : r;
      };
    } else if (monitor !== undefined) {
      const deps = o.dependencies === undefined ? undefined : [...o.dependencies];
      this.#source = () => monitor.errorRate(deps);
    } else {
      throw new TypeError('degradation needs a monitor (healthMonitor()) or an errorRate function');
    }
    this.#since = this.#clock.now();
    const onOverflow =
      o.onContextOverflow === undefined
        ? undefined
        : checkFunction<NonNullable<DegradationOptions<F>['onContextOverflow']>>(
            'onContextOverflow',
            o.onContextOverflow,
          );
    if (onOverflow !== undefined && monitor === undefined)
      throw new TypeError('onContextOverflow needs a monitor to learn about failed calls');
    if (monitor !== undefined) {
      const dependencies = o.dependencies === undefined ? undefined : new Set(o.dependencies);
      this.#detach.push(
        monitor.onSample((s) => {
          if (dependencies !== undefined && !dependencies.has(s.dependency)) return;
          if (
            onOverflow !== undefined &&
            s.outcome === 'failure' &&
            (s.classification ?? classify(s.error)).reason === 'context_overflow'
          ) {
            try {
              onOverflow({ dependency: s.dependency, error: s.error });
            } catch (error) {
              reportListenerError(error);
            }
          }
          // Escalate as soon as the evidence arrives, not only when someone reads the flags.
          this.evaluate();
        }),
      );
    }
  }

  get level(): string {
    this.evaluate();
    return this.#levels[this.#index]!.name;
  }

  get levelIndex(): number {
    this.evaluate();
    return this.#index;
  }

  get flags(): Readonly<F> {
    this.evaluate();
    return this.#levels[this.#index]!.flags;
  }

  get since(): number {
    return this.#since;
  }

  get changes(): readonly LevelChange[] {
    return [...this.#changes];
  }

  evaluate(): LevelChange | undefined {
    // A listener reading `flags` while we emit must not re-enter the state machine.
    if (this.#evaluating) return undefined;
    this.#evaluating = true;
    try {
      return this.#evaluate();
    } finally {
      this.#evaluating = false;
    }
  }

  #evaluate(): LevelChange | undefined {
    const now = this.#clock.now();
    const { rate, calls } = this.#source();
    const evidence = calls >= this.#minimumCalls;
    const current = this.#index;
    if (evidence) {
      // Escalate at once, straight to the highest level whose entry threshold is reached.
      for (let i = this.#levels.length - 1; i > current; i--) {
        if (rate >= this.#levels[i]!.enterAt) return this.#change(i, 'escalate', now, rate, calls);
      }
    }
    if (current === 0 || now - this.#since < this.#holdMs) return undefined;
    // Too few calls is no evidence of trouble: let the system recover.
    const r = evidence ? rate : 0;
    if (r >= this.#levels[current]!.exitBelow) return undefined;
    let target = current - 1;
    while (target > 0 && r < this.#levels[target]!.exitBelow) target--;
    return this.#change(target, 'restore', now, rate, calls);
  }

  #change(
    to: number,
    direction: DegradationDirection,
    now: number,
    errorRate: number,
    calls: number,
  ): LevelChange {
    const from = this.#levels[this.#index]!.name;
    this.#index = to;
    this.#since = now;
    const change: LevelChange = {
      from,
      to: this.#levels[to]!.name,
      direction,
      at: now,
      errorRate,
      calls,
    };
    this.#changes.push(change);
    if (this.#changes.length > MAX_CHANGES) this.#changes.shift();
    if (this.#events.wants('degradation'))
      this.#events.emit('degradation', {
        from,
        to: change.to,
        level: to,
        direction,
        errorRate,
        calls,
      });
    return change;
  }

  on(event: 'degradation', listener: Listener<DegradationEvents['degradation']>): () => void {
    return this.#events.on(event, listener as (e: object) => void);
  }

  close(): void {
    for (const off of this.#detach.splice(0)) off();
  }

  toJSON(): object {
    const level = this.#levels[this.#index]!;
    return {
      level: level.name,
      levelIndex: this.#index,
      since: Math.round(this.#since),
      flags: level.flags,
      changes: this.#changes.length,
    };
  }
}

/**
 * Hard degradation with hysteresis: user-declared levels (e.g. normal → degraded → hard), each
 * with an entry error rate (`enterAt`), an exit rate (`exitBelow`) and flags the orchestrator reads
 * before each step (`{ parallelToolCalls: false, maxContextTokens: 50_000 }`). A spike escalates at
 * once, straight to the highest level reached; a level is left only after `holdMs` in it and only
 * when the rate is below its `exitBelow` (then to the highest level whose `exitBelow` the rate
 * still meets), so a rate oscillating around a threshold does not flap. Recovery is automatic.
 * The rate comes from a health monitor's window (evaluated on every recorded call and whenever
 * `level` or `flags` is read: no timers) and counts only failures of the dependency: a caller's
 * own 400s and bugs never escalate it. Every change is a `degradation` event and is kept in
 * `changes`. `onContextOverflow` is called for each call that failed with `context_overflow`.
 * Defaults: holdMs 30000, minimumCalls 10, exitBelow enterAt / 2, name 'degradation'.
 *
 * @example
 * const mode = degradation({
 *   monitor: health,
 *   levels: [
 *     { name: 'normal', flags: { parallelToolCalls: true, maxContextTokens: 200_000, temperature: 0.7 } },
 *     { name: 'degraded', enterAt: 0.2, exitBelow: 0.1, flags: { parallelToolCalls: false } },
 *     { name: 'hard', enterAt: 0.5, exitBelow: 0.25, flags: { parallelToolCalls: false, maxContextTokens: 50_000, temperature: 0 } },
 *   ],
 *   onContextOverflow: () => history.trim(),
 * })
 * const { parallelToolCalls, maxContextTokens } = mode.flags
 */
export function degradation<F extends DegradationFlags>(
  options: DegradationOptions<F>,
): DegradationController<F> {
  return new Controller(options);
}
