import type { Classification, FailureKind } from '../classify/classification.js';
import { classify } from '../classify/classify.js';
import { type Clock, systemClock } from '../clock/clock.js';
import { Emitter, warn } from '../events/emitter.js';
import { dependencyOf } from '../events/event-scope.js';
import type { BreakerState } from '../transitions/breaker-record.js';
import type { CallOutcome } from '../telemetry/telemetry-events.js';
import type { RecourseEvent } from '../events/recourse-event.js';
import { subscribe } from '../events/subscribe.js';
import {
  checkClock,
  checkInteger,
  checkMs,
  checkName,
  checkOptions,
  type OptionKeys,
  showValue,
} from '../options/validate-options.js';
import { safeRead, textOf } from '../text/safe-text.js';
import { LatencyHistogram, type LatencyStats } from './latency-histogram.js';
import { TimeBuckets } from './time-buckets.js';

/** Options of {@link healthMonitor}. */
export interface HealthMonitorOptions {
  /** The sliding window, ms. Default 60000. */
  windowMs?: number;
  /** Time buckets in the window; counts expire one bucket at a time. Default 12 (5 s each). */
  buckets?: number;
  /**
   * The most dependencies tracked at once. A name with nothing left in the window is forgotten when
   * room is needed (never one whose breaker is open, half-open or isolated); past the limit, new
   * names are counted under `'other'`, with one `RecourseCardinalityWarning`. Keeps memory bounded
   * when names come from requests (a tool-call id, a URL). Default 1000.
   */
  maxDependencies?: number;
  clock?: Clock;
}

const HEALTH_MONITOR_KEYS: OptionKeys<HealthMonitorOptions> = {
  windowMs: true,
  buckets: true,
  maxDependencies: true,
  clock: true,
};

/** One call's outcome, as `record` takes it (what an `instrument()` `call` event carries). */
export interface HealthSample {
  outcome: CallOutcome;
  durationMs?: number;
  error?: unknown;
}

/** A recorded call, as `onSample` listeners see it. */
export interface RecordedSample extends HealthSample {
  dependency: string;
  /** Present for failures. */
  classification?: Classification;
}

/** The counters kept per dependency over the window. */
const COUNTERS = [
  'calls',
  'successes',
  'failures',
  'countedFailures',
  'cancelled',
  'attempts',
  'retries',
  'giveups',
  'stalls',
  'timeouts',
  'rejections',
  'fallbacks',
  'invalid',
  'breakerTransitions',
] as const;
type Counter = (typeof COUNTERS)[number];

/** One dependency's health over the window. */
export interface DependencyHealth extends Record<Counter, number> {
  /**
   * countedFailures / (successes + countedFailures), 0 without calls. `countedFailures` are the
   * failures that count against the dependency: those a breaker counts (`countsForBreaker`), plus
   * calls an open breaker refused. A caller's own mistakes (a 400, a bug) and cancellations are in
   * `failures` and `failuresByKind` but not here.
   */
  errorRate: number;
  failuresByKind: Record<FailureKind, number>;
  /** By classification reason: `rate_limited`, `overloaded`, `timeout`, `stall`, `context_overflow`, … */
  failuresByReason: Record<string, number>;
  /** Retry layers that gave up, by reason (`attempts`, `deadline`, `retry-after`, `budget`). */
  giveupsByReason: Record<string, number>;
  /** Percentiles of call durations (from `call` samples); absent without any. */
  latencyMs?: LatencyStats;
  /** The latest breaker state seen for this name (not windowed). */
  breaker?: BreakerState;
}

/** Everything a health monitor knows, over its window. */
export interface HealthSnapshot {
  /** Clock time of the snapshot. */
  at: number;
  windowMs: number;
  dependencies: Record<string, DependencyHealth>;
  /** Fallback ladders served in the window; `rate` = degraded / served. */
  fallback: { served: number; degraded: number; rate: number; byPath: Record<string, number> };
  totals: { calls: number; failures: number; errorRate: number };
}

/** Error rate over a set of dependencies (see `HealthMonitor.errorRate`). */
export interface ErrorRate {
  /** Successes plus failures that count against the dependency. */
  calls: number;
  /** Failures that count against the dependency (see `DependencyHealth.errorRate`). */
  failures: number;
  /** failures / calls, 0 without calls. */
  rate: number;
}

/** A time-windowed view of every dependency's health. */
export interface HealthMonitor {
  /** Feeds one recourse event (a `subscribe` sink; already bound). */
  readonly observe: (event: RecourseEvent) => void;
  /** Subscribes `observe` to every recourse event in the process; returns the unsubscribe function. */
  attach(): () => void;
  /** Records one call's outcome directly, for calls that do not go through `instrument()`. */
  record(dependency: string, sample: HealthSample): void;
  snapshot(): HealthSnapshot;
  /**
   * Cheap aggregate for a controller: counts only, no percentiles. Only failures that count
   * against a dependency are failures here (a caller's own 400s never degrade anything).
   * Default: every dependency.
   */
  errorRate(dependencies?: readonly string[]): ErrorRate;
  /** Listens to every recorded call sample; returns the unsubscribe function. */
  onSample(listener: (sample: RecordedSample) => void): () => void;
  /** Forgets everything. */
  reset(): void;
}

/**
 * Where events nobody could attribute to a dependency are counted.
 *
 * @example
 * health.snapshot().dependencies[UNNAMED_DEPENDENCY]?.stalls // stalls of watch() outside any instrument()
 */
export const UNNAMED_DEPENDENCY = 'unnamed';

/**
 * Where a health monitor counts dependencies past `maxDependencies`, and the label value
 * `agent-recourse/prometheus` uses past `maxLabelValues`.
 *
 * @example
 * health.snapshot().dependencies[OTHER_DEPENDENCY]?.calls // calls of names past the limit
 */
export const OTHER_DEPENDENCY = 'other';

/** One tracked dependency: its window, when it was last touched, and its breaker's latest state. */
interface DependencyEntry {
  readonly window: TimeBuckets<HealthBucket>;
  lastAt: number;
  breaker: BreakerState | undefined;
}

const KINDS: readonly FailureKind[] = ['transient', 'persistent', 'logical', 'fatal', 'cancelled'];

class HealthBucket {
  readonly counts: Record<Counter, number> = Object.fromEntries(
    COUNTERS.map((c) => [c, 0]),
  ) as Record<Counter, number>;
  readonly kinds = new Map<FailureKind, number>();
  readonly reasons = new Map<string, number>();
  readonly giveups = new Map<string, number>();
  readonly latency = new LatencyHistogram();

  clear(): void {
    for (const c of COUNTERS) this.counts[c] = 0;
    this.kinds.clear();
    this.reasons.clear();
    this.giveups.clear();
    this.latency.clear();
  }
}

interface FallbackBucket {
  served: number;
  degraded: number;
  byPath: Map<string, number>;
}

/**
 * A failure of the dependency, not of the caller: what a breaker counts, plus calls an open breaker
 * refused (the breaker already counted the failures that opened it; while it is open, every
 * refused call is a call the dependency did not serve).
 */
function countsAgainstDependency(c: Classification): boolean {
  return c.countsForBreaker || c.reason === 'circuit_open';
}

function bump<K>(map: Map<K, number>, key: K): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

function addInto(target: Record<string, number>, source: Map<string, number>): void {
  for (const [k, n] of source) target[k] = (target[k] ?? 0) + n;
}

class Monitor implements HealthMonitor {
  readonly #windowMs: number;
  readonly #buckets: number;
  readonly #clock: Clock;
  readonly #deps = new Map<string, DependencyEntry>();
  readonly #maxDependencies: number;
  // No sweep can free a name before this clock time (every entry was touched too recently).
  #sweepAfter = Number.NEGATIVE_INFINITY;
  #warned = false;
  readonly #fallback: TimeBuckets<FallbackBucket>;
  // Samples reach onSample listeners only: they are the `call` events again, not events of their own.
  readonly #samples = new Emitter<{ sample: RecordedSample }>('health-monitor', undefined, false);
  readonly observe: (event: RecourseEvent) => void;

  constructor(options: HealthMonitorOptions | undefined) {
    const o = checkOptions('healthMonitor', options, HEALTH_MONITOR_KEYS);
    this.#windowMs = o.windowMs === undefined ? 60_000 : checkMs('windowMs', o.windowMs, 1);
    this.#buckets = o.buckets === undefined ? 12 : checkInteger('buckets', o.buckets, 1);
    this.#maxDependencies =
      o.maxDependencies === undefined
        ? 1000
        : checkInteger('maxDependencies', o.maxDependencies, 1);
    this.#clock = checkClock<Clock>('clock', o.clock ?? systemClock);
    this.#fallback = new TimeBuckets<FallbackBucket>(
      this.#windowMs,
      this.#buckets,
      () => ({ served: 0, degraded: 0, byPath: new Map() }),
      (b) => {
        b.served = 0;
        b.degraded = 0;
        b.byPath.clear();
      },
    );
    this.observe = (event) => this.#observe(event);
  }

  attach(): () => void {
    return subscribe(this.observe);
  }

  record(dependency: string, sample: HealthSample): void {
    checkName('dependency', dependency);
    if (
      typeof sample !== 'object' ||
      sample === null ||
      !['success', 'failure', 'cancelled'].includes(sample.outcome)
    ) {
      throw new TypeError(
        `sample.outcome must be one of 'success', 'failure', 'cancelled', got ${showValue(safeRead(sample, 'outcome'))}`,
      );
    }
    const b = this.#bucket(dependency);
    b.counts.calls++;
    let classification: Classification | undefined;
    if (sample.outcome === 'success') b.counts.successes++;
    else if (sample.outcome === 'cancelled') b.counts.cancelled++;
    else {
      b.counts.failures++;
      classification = classify(sample.error);
      if (countsAgainstDependency(classification)) b.counts.countedFailures++;
      bump(b.kinds, classification.kind);
      bump(b.reasons, classification.reason);
    }
    if (typeof sample.durationMs === 'number') b.latency.record(sample.durationMs);
    if (!this.#samples.wants('sample')) return;
    this.#samples.emit('sample', {
      ...sample,
      dependency,
      ...(classification === undefined ? {} : { classification }),
    });
  }

  onSample(listener: (sample: RecordedSample) => void): () => void {
    return this.#samples.on('sample', listener);
  }

  errorRate(dependencies?: readonly string[]): ErrorRate {
    const now = this.#clock.now();
    let successes = 0;
    let failures = 0;
    const names = dependencies ?? [...this.#deps.keys()];
    for (const name of names) {
      this.#deps.get(name)?.window.forEach(now, (b) => {
        successes += b.counts.successes;
        failures += b.counts.countedFailures;
      });
    }
    const calls = successes + failures;
    return { calls, failures, rate: calls === 0 ? 0 : failures / calls };
  }

  snapshot(): HealthSnapshot {
    const now = this.#clock.now();
    const dependencies: Record<string, DependencyHealth> = {};
    let calls = 0;
    let failures = 0;
    let decided = 0;
    let counted = 0;
    for (const [name, entry] of this.#deps) {
      const health = this.#health(entry, now);
      dependencies[name] = health;
      calls += health.calls;
      failures += health.failures;
      counted += health.countedFailures;
      decided += health.successes + health.countedFailures;
    }
    let served = 0;
    let degraded = 0;
    const byPath: Record<string, number> = {};
    this.#fallback.forEach(now, (b) => {
      served += b.served;
      degraded += b.degraded;
      addInto(byPath, b.byPath);
    });
    return {
      at: now,
      windowMs: this.#windowMs,
      dependencies,
      fallback: { served, degraded, rate: served === 0 ? 0 : degraded / served, byPath },
      totals: { calls, failures, errorRate: decided === 0 ? 0 : counted / decided },
    };
  }

  reset(): void {
    this.#deps.clear();
    this.#sweepAfter = Number.NEGATIVE_INFINITY;
    this.#fallback.clear();
  }

  #health(entry: DependencyEntry, now: number): DependencyHealth {
    const counts = Object.fromEntries(COUNTERS.map((c) => [c, 0])) as Record<Counter, number>;
    const failuresByKind = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<
      FailureKind,
      number
    >;
    const failuresByReason: Record<string, number> = {};
    const giveupsByReason: Record<string, number> = {};
    const latencies: LatencyHistogram[] = [];
    entry.window.forEach(now, (b) => {
      for (const c of COUNTERS) counts[c] += b.counts[c];
      for (const [k, n] of b.kinds) failuresByKind[k] += n;
      addInto(failuresByReason, b.reasons);
      addInto(giveupsByReason, b.giveups);
      latencies.push(b.latency);
    });
    const decided = counts.successes + counts.countedFailures;
    const health: DependencyHealth = {
      ...counts,
      errorRate: decided === 0 ? 0 : counts.countedFailures / decided,
      failuresByKind,
      failuresByReason,
      giveupsByReason,
    };
    const latency = LatencyHistogram.stats(latencies);
    if (latency !== undefined) health.latencyMs = latency;
    if (entry.breaker !== undefined) health.breaker = entry.breaker;
    return health;
  }

  #bucket(dependency: string): HealthBucket {
    const now = this.#clock.now();
    return this.#entry(dependency, now).window.at(now);
  }

  /** The entry of `dependency`, made room for when the monitor is full; `'other'` past the limit. */
  #entry(dependency: string, now: number): DependencyEntry {
    let entry = this.#deps.get(dependency);
    if (entry === undefined) {
      let name = dependency;
      if (this.#full()) {
        this.#forgetIdle(now);
        if (this.#full()) {
          this.#warnFull();
          name = OTHER_DEPENDENCY;
          entry = this.#deps.get(name);
        }
      }
      if (entry === undefined) {
        entry = {
          window: new TimeBuckets(
            this.#windowMs,
            this.#buckets,
            () => new HealthBucket(),
            (b) => b.clear(),
          ),
          lastAt: now,
          breaker: undefined,
        };
        this.#deps.set(name, entry);
      }
    }
    entry.lastAt = now;
    return entry;
  }

  /** `'other'` is not one of the maxDependencies names. */
  #full(): boolean {
    return this.#deps.size - (this.#deps.has(OTHER_DEPENDENCY) ? 1 : 0) >= this.#maxDependencies;
  }

  /** Forgets the dependencies with nothing left in the window, unless their breaker is not closed. */
  #forgetIdle(now: number): void {
    if (now < this.#sweepAfter) return;
    // Data recorded at `lastAt` stays visible until its bucket leaves the window.
    const visibleMs = this.#windowMs + this.#windowMs / this.#buckets;
    let oldest = now;
    for (const [name, entry] of this.#deps) {
      if (name === OTHER_DEPENDENCY || (entry.breaker !== undefined && entry.breaker !== 'closed'))
        continue;
      if (now - entry.lastAt > visibleMs) this.#deps.delete(name);
      else if (entry.lastAt < oldest) oldest = entry.lastAt;
    }
    this.#sweepAfter = oldest + visibleMs;
  }

  #warnFull(): void {
    if (this.#warned) return;
    this.#warned = true;
    warn(
      `recourse healthMonitor: ${this.#maxDependencies} dependencies are active in one window; further names are counted as "${OTHER_DEPENDENCY}". Name dependencies by kind, not by request (a tool-call id, a URL), or raise maxDependencies.`,
      'RecourseCardinalityWarning',
    );
  }

  #observe(e: RecourseEvent): void {
    switch (e.type) {
      case 'call': {
        const sample: HealthSample = { outcome: e.outcome as CallOutcome };
        if (typeof e.durationMs === 'number') sample.durationMs = e.durationMs;
        if (e.error !== undefined) sample.error = e.error;
        this.record(dependencyOf(e) ?? UNNAMED_DEPENDENCY, sample);
        return;
      }
      case 'attempt':
        this.#count(e, 'attempts');
        return;
      case 'retry':
        this.#count(e, 'retries');
        return;
      case 'giveup':
        bump(this.#bucket(dependencyOf(e) ?? UNNAMED_DEPENDENCY).giveups, textOf(e.reason));
        this.#count(e, 'giveups');
        return;
      case 'stall':
        this.#count(e, 'stalls');
        return;
      case 'timeout':
        this.#count(e, 'timeouts');
        return;
      case 'reject':
        this.#count(e, 'rejections');
        return;
      case 'invalid':
        this.#count(e, 'invalid');
        return;
      case 'state': {
        const now = this.#clock.now();
        const entry = this.#entry(dependencyOf(e) ?? UNNAMED_DEPENDENCY, now);
        entry.breaker = e.to as BreakerState;
        entry.window.at(now).counts.breakerTransitions++;
        return;
      }
      case 'fallback':
        // Counted against the path that failed over, whatever policy it ran under.
        if (typeof e.from === 'string') this.#bucket(e.from).counts.fallbacks++;
        return;
      case 'served': {
        const b = this.#fallback.at(this.#clock.now());
        b.served++;
        if (e.degraded === true) b.degraded++;
        // Path names of one window, bounded like dependency names.
        if (typeof e.servedBy === 'string')
          bump(
            b.byPath,
            b.byPath.has(e.servedBy) || b.byPath.size < this.#maxDependencies
              ? e.servedBy
              : OTHER_DEPENDENCY,
          );
        return;
      }
      default:
        return;
    }
  }

  #count(e: RecourseEvent, counter: Counter): void {
    this.#bucket(dependencyOf(e) ?? UNNAMED_DEPENDENCY).counts[counter]++;
  }
}

/**
 * A time-bucketed sliding window per dependency: calls, failures by kind and reason, retries,
 * give-ups (by reason, `budget` included), stalls, timeouts, breaker rejections and transitions,
 * fallbacks, invalid results and call-latency percentiles (within 2 %), plus the fallback rate of
 * every ladder. Fed by recourse events (`attach()` subscribes to all of them; calls and latencies
 * come from `instrument()` layers) or by `record`; runs on the injected clock. Events are
 * attributed to their policy's `name`, else to the instrumented call they ran inside, else to
 * `'unnamed'`. The error rate counts only failures of the dependency (`countedFailures`), not a
 * caller's own 400s or bugs. At most `maxDependencies` names are tracked: idle ones are forgotten
 * when room is needed, and past the limit new names count as `'other'`.
 * Defaults: windowMs 60000, buckets 12, maxDependencies 1000.
 *
 * @example
 * const health = healthMonitor()
 * const detach = health.attach()
 * await pipeline(instrument({ name: 'search' }), retry({ name: 'search' })).execute(search)
 * health.snapshot().dependencies.search // { calls: 1, errorRate: 0, latencyMs: { p50, p90, p99, max }, … }
 */
export function healthMonitor(options?: HealthMonitorOptions): HealthMonitor {
  return new Monitor(options);
}
