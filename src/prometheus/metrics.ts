import { Counter, Gauge, Histogram, type Registry, register as globalRegistry } from 'prom-client';
import type { CircuitBreaker } from '../circuit-breaker/circuit-breaker.js';
import type { BreakerState } from '../transitions/breaker-record.js';
import type { RecourseEvent } from '../events/recourse-event.js';
import { subscribe } from '../events/subscribe.js';
import { dependencyOf } from '../events/event-scope.js';
import {
  checkInteger,
  checkOptions,
  type OptionKeys,
  showValue,
} from '../options/validate-options.js';
import { safeRead } from '../text/safe-text.js';
import { LabelCap, OTHER_LABEL_VALUE } from './label-cap.js';

/** Options of {@link prometheusMetrics}. */
export interface PrometheusOptions {
  /** Default: prom-client's global `register`. */
  registry?: Registry;
  /** Prepended to every metric name. Default `'recourse_'`. */
  prefix?: string;
  /** Duration histogram buckets, seconds. Default 0.05 … 300 (agent calls are slow). */
  buckets?: number[];
  /** Breakers whose state the gauge reads at every scrape (a `BreakerRegistry` or a list), so idle dependencies show up too. */
  breakers?: { entries(): Iterable<[string, CircuitBreaker]> } | Iterable<CircuitBreaker>;
  /**
   * The most distinct values one label (`dependency`, `path`, `from`, `to`, `controller`, …) may
   * take; later values are counted under `other`, and a `RecourseCardinalityWarning` is emitted
   * once per label. Keeps the registry and every scrape bounded when names come from requests.
   * Default 500.
   */
  maxLabelValues?: number;
}

const PROMETHEUS_KEYS: OptionKeys<PrometheusOptions> = {
  registry: true,
  prefix: true,
  buckets: true,
  breakers: true,
  maxLabelValues: true,
};

/** The metrics of {@link prometheusMetrics}. */
export interface PrometheusMetrics {
  readonly registry: Registry;
  /** Feeds one event (already subscribed unless `stop()` was called). */
  readonly observe: (event: RecourseEvent) => void;
  /** Releases this handle; the last one unsubscribes from recourse events. The metrics stay registered. */
  stop(): void;
}

/**
 * The value of `recourse_breaker_state` for each breaker state.
 *
 * @example
 * BREAKER_STATE_VALUE.open // 2: alert on recourse_breaker_state >= 2
 */
export const BREAKER_STATE_VALUE: Readonly<Record<BreakerState, number>> = Object.freeze({
  closed: 0,
  'half-open': 1,
  open: 2,
  isolated: 3,
});

const DEFAULT_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const UNNAMED = 'unnamed';
const DEFAULT_MAX_LABEL_VALUES = 500;

/** One metric of {@link prometheusMetrics}: its type, help text and label names. */
export interface MetricSpec {
  kind: 'counter' | 'gauge' | 'histogram';
  help: string;
  labels: string[];
}

/** The name of a metric of {@link prometheusMetrics}, without the prefix. */
export type MetricName =
  | 'calls_total'
  | 'call_duration_seconds'
  | 'attempts_total'
  | 'attempt_duration_seconds'
  | 'retries_total'
  | 'giveups_total'
  | 'stalls_total'
  | 'timeouts_total'
  | 'rejections_total'
  | 'invalid_results_total'
  | 'fallbacks_total'
  | 'served_total'
  | 'breaker_state'
  | 'breaker_transitions_total'
  | 'degradation_level'
  | 'degradation_changes_total';

/**
 * Every metric, by name without the prefix: its type, help text and labels. The table in
 * docs/observability.md lists the same (a test checks it).
 *
 * @example
 * METRICS.retries_total.labels // ['dependency']
 */
export const METRICS: Readonly<Record<MetricName, MetricSpec>> = Object.freeze({
  calls_total: {
    kind: 'counter',
    help: 'Logical calls measured by instrument(), by outcome',
    labels: ['dependency', 'outcome'],
  },
  call_duration_seconds: {
    kind: 'histogram',
    help: 'Duration of logical calls measured by instrument()',
    labels: ['dependency', 'outcome'],
  },
  attempts_total: {
    kind: 'counter',
    help: "Attempts measured by instrument({ per: 'attempt' }), by outcome",
    labels: ['dependency', 'outcome'],
  },
  attempt_duration_seconds: {
    kind: 'histogram',
    help: "Duration of attempts measured by instrument({ per: 'attempt' })",
    labels: ['dependency', 'outcome'],
  },
  retries_total: {
    kind: 'counter',
    help: 'Retries scheduled by retry layers',
    labels: ['dependency'],
  },
  giveups_total: {
    kind: 'counter',
    help: 'Retry layers that gave up, by reason (attempts, deadline, retry-after, budget)',
    labels: ['dependency', 'reason'],
  },
  stalls_total: {
    kind: 'counter',
    help: 'Streams caught silent by watch, by phase',
    labels: ['dependency', 'phase'],
  },
  timeouts_total: {
    kind: 'counter',
    help: 'Calls and breaker probes that ran out of time',
    labels: ['dependency'],
  },
  rejections_total: {
    kind: 'counter',
    help: 'Calls refused by an open or half-open circuit breaker',
    labels: ['dependency'],
  },
  invalid_results_total: {
    kind: 'counter',
    help: 'Results rejected by validate',
    labels: ['dependency'],
  },
  fallbacks_total: {
    kind: 'counter',
    help: 'Fallback steps from one path to the next',
    labels: ['from', 'to'],
  },
  served_total: {
    kind: 'counter',
    help: 'Fallback ladders served, by path and whether degraded',
    labels: ['path', 'degraded'],
  },
  breaker_state: {
    kind: 'gauge',
    help: 'Circuit breaker state: 0 closed, 1 half-open, 2 open, 3 isolated',
    labels: ['dependency'],
  },
  breaker_transitions_total: {
    kind: 'counter',
    help: 'Circuit breaker state changes, by new state',
    labels: ['dependency', 'to'],
  },
  degradation_level: {
    kind: 'gauge',
    help: 'Current level of a degradation controller (0 = normal)',
    labels: ['controller'],
  },
  degradation_changes_total: {
    kind: 'counter',
    help: 'Degradation level changes, by new level and direction',
    labels: ['controller', 'to', 'direction'],
  },
});

type AnyMetric = Counter<string> | Gauge<string> | Histogram<string>;

function listBreakers(source: PrometheusOptions['breakers']): Array<[string, CircuitBreaker]> {
  if (source === undefined) return [];
  if (typeof (source as { entries?: unknown }).entries === 'function' && !Array.isArray(source)) {
    return [...(source as { entries(): Iterable<[string, CircuitBreaker]> }).entries()];
  }
  return [...(source as Iterable<CircuitBreaker>)].map((b) => [b.name, b]);
}

/**
 * Prometheus metrics (prom-client) for every recourse event: calls, attempts, retries, give-ups,
 * stalls, timeouts, rejections, invalid results, fallbacks by path, call and attempt duration
 * histograms, a breaker-state gauge per dependency and the level of each degradation controller
 * (names and labels in docs/observability.md). Subscribes at once; `stop()` unsubscribes.
 * Building it again on the same registry and prefix shares the metrics and the subscription
 * (events are never counted twice; the first build's options hold; the subscription ends with the
 * last `stop()`). Labels never carry error text, and each label takes at most `maxLabelValues`
 * distinct values (later ones count as `'other'`, with one `RecourseCardinalityWarning`).
 * Defaults: prom-client's global registry, prefix 'recourse_', maxLabelValues 500.
 *
 * @example
 * const metrics = prometheusMetrics({ breakers })
 * app.get('/metrics', async (_, res) => res.type(metrics.registry.contentType).send(await metrics.registry.metrics()))
 */
export function prometheusMetrics(options?: PrometheusOptions): PrometheusMetrics {
  const o = checkOptions('prometheusMetrics', options, PROMETHEUS_KEYS);
  const registry = o.registry ?? globalRegistry;
  const prefix = o.prefix ?? 'recourse_';
  if (typeof prefix !== 'string' || !/^[a-zA-Z_:][a-zA-Z0-9_:]*$|^$/.test(prefix))
    throw new TypeError(
      `prefix must be a valid metric name prefix ([a-zA-Z_:][a-zA-Z0-9_:]*), got ${showValue(prefix)}`,
    );
  const buckets = o.buckets ?? DEFAULT_BUCKETS;
  if (
    !Array.isArray(buckets) ||
    buckets.length === 0 ||
    buckets.some((b) => typeof b !== 'number' || !(b > 0))
  ) {
    throw new TypeError(
      `buckets must be a non-empty array of numbers > 0, got ${showValue(buckets)}`,
    );
  }
  const breakers = o.breakers;
  if (
    breakers !== undefined &&
    typeof safeRead(breakers, 'entries') !== 'function' &&
    typeof safeRead(breakers, Symbol.iterator) !== 'function'
  ) {
    throw new TypeError(
      `breakers must be a BreakerRegistry or a list of circuit breakers, got ${showValue(breakers)}`,
    );
  }
  const maxLabelValues =
    o.maxLabelValues === undefined
      ? DEFAULT_MAX_LABEL_VALUES
      : checkInteger('maxLabelValues', o.maxLabelValues, 1);
  let shared = subscriptions.get(registry)?.get(prefix);
  if (shared === undefined) {
    shared = {
      observe: build(
        registry,
        prefix,
        buckets,
        breakers,
        new LabelCap(maxLabelValues, warnCardinality),
      ),
      refs: 0,
      detach: undefined,
    };
    const byPrefix = subscriptions.get(registry) ?? new Map<string, Shared>();
    byPrefix.set(prefix, shared);
    subscriptions.set(registry, byPrefix);
  }
  const entry = shared;
  if (entry.refs++ === 0) {
    entry.detach = subscribe(entry.observe);
  }
  let active = true;
  return {
    registry,
    observe: entry.observe,
    stop() {
      if (!active) return;
      active = false;
      if (--entry.refs === 0) {
        entry.detach?.();
        entry.detach = undefined;
      }
    },
  };
}

interface Shared {
  observe: (event: RecourseEvent) => void;
  refs: number;
  detach: (() => void) | undefined;
}

// One set of metrics and one subscription per registry and prefix, however often it is built.
const subscriptions = new WeakMap<Registry, Map<string, Shared>>();

function warnCardinality(label: string, max: number): void {
  process.emitWarning(
    `agent-recourse/prometheus: label "${label}" reached ${max} distinct values; further values are counted as "${OTHER_LABEL_VALUE}". Name dependencies by kind, not by request (a tool-call id, a URL), or raise maxLabelValues.`,
    'RecourseCardinalityWarning',
  );
}

function build(
  registry: Registry,
  prefix: string,
  buckets: number[],
  breakers: PrometheusOptions['breakers'],
  cap: LabelCap,
): (event: RecourseEvent) => void {
  // Series the breaker-state gauge set at the last scrape: a breaker that left the registry
  // (evicted when idle) must not stay on every scrape with its last state.
  let scraped = new Set<string>();
  const make = <M extends AnyMetric>(short: MetricName): M => {
    const name = prefix + short;
    const existing = registry.getSingleMetric(name);
    if (existing !== undefined) return existing as M;
    const spec = METRICS[short];
    const base = { name, help: spec.help, labelNames: spec.labels, registers: [registry] };
    if (spec.kind === 'counter') return new Counter(base) as M;
    if (spec.kind === 'histogram') return new Histogram({ ...base, buckets }) as M;
    if (short === 'breaker_state' && breakers !== undefined) {
      return new Gauge({
        ...base,
        collect(this: Gauge<string>) {
          // Read at scrape time, so breakers that never changed state are reported as well.
          const now = new Set<string>();
          for (const [name, breaker] of listBreakers(breakers)) {
            const dependency = cap.value('dependency', name);
            now.add(dependency);
            this.set({ dependency }, BREAKER_STATE_VALUE[breaker.state]);
          }
          for (const dependency of scraped) if (!now.has(dependency)) this.remove({ dependency });
          scraped = now;
        },
      }) as M;
    }
    return new Gauge(base) as M;
  };

  const calls = make<Counter<string>>('calls_total');
  const callDuration = make<Histogram<string>>('call_duration_seconds');
  const attempts = make<Counter<string>>('attempts_total');
  const attemptDuration = make<Histogram<string>>('attempt_duration_seconds');
  const retries = make<Counter<string>>('retries_total');
  const giveups = make<Counter<string>>('giveups_total');
  const stalls = make<Counter<string>>('stalls_total');
  const timeouts = make<Counter<string>>('timeouts_total');
  const rejections = make<Counter<string>>('rejections_total');
  const invalid = make<Counter<string>>('invalid_results_total');
  const fallbacks = make<Counter<string>>('fallbacks_total');
  const served = make<Counter<string>>('served_total');
  const breakerState = make<Gauge<string>>('breaker_state');
  const transitions = make<Counter<string>>('breaker_transitions_total');
  const level = make<Gauge<string>>('degradation_level');
  const levelChanges = make<Counter<string>>('degradation_changes_total');

  const observe = (e: RecourseEvent): void => {
    const dependency = cap.value('dependency', dependencyOf(e) ?? UNNAMED);
    const label = (name: string, value: unknown): string => cap.value(name, value);
    switch (e.type) {
      case 'call':
      case 'attempt': {
        const labels = { dependency, outcome: label('outcome', e.outcome) };
        (e.type === 'call' ? calls : attempts).inc(labels);
        if (typeof e.durationMs === 'number')
          (e.type === 'call' ? callDuration : attemptDuration).observe(labels, e.durationMs / 1000);
        return;
      }
      case 'retry':
        retries.inc({ dependency });
        return;
      case 'giveup':
        giveups.inc({ dependency, reason: label('reason', e.reason) });
        return;
      case 'stall':
        stalls.inc({ dependency, phase: label('phase', e.phase) });
        return;
      case 'timeout':
        timeouts.inc({ dependency });
        return;
      case 'reject':
        rejections.inc({ dependency });
        return;
      case 'invalid':
        invalid.inc({ dependency });
        return;
      case 'fallback':
        fallbacks.inc({ from: label('dependency', e.from), to: label('dependency', e.to) });
        return;
      case 'served':
        served.inc({
          path: label('dependency', e.servedBy),
          degraded: String(e.degraded === true),
        });
        return;
      case 'state': {
        const to = e.to as BreakerState;
        breakerState.set({ dependency }, BREAKER_STATE_VALUE[to] ?? -1);
        transitions.inc({ dependency, to: label('to', to) });
        return;
      }
      case 'degradation':
        level.set({ controller: dependency }, Number(e.level));
        levelChanges.inc({
          controller: dependency,
          to: label('level', e.to),
          direction: label('direction', e.direction),
        });
        return;
      default:
        return;
    }
  };

  return observe;
}
