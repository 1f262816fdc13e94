import { classify } from '../classify/classify.js';
import { type Clock, systemClock } from '../clock/clock.js';
import type { Work } from '../context/call-context.js';
import type { Scope } from '../context/scope.js';
import type { Listener } from '../events/event-types.js';
import { checkOneOf, checkOptions, type OptionKeys , checkClock, checkName } from '../options/validate-options.js';
import { BaseLayer, COMPOSE, type Invoke, isThenable } from '../policy/layer.js';
import type { Policy } from '../policy/policy.js';
import { runForDependency } from './dependency-context.js';
import { type CallOutcome, type ObservabilityEventMap, registerObservabilityEvents } from './event-types.js';

/** Options of {@link instrument}. */
export interface InstrumentOptions {
  /** The dependency, reported as `name` in events (and as the `dependency` in sinks). */
  name?: string;
  /** Measure each logical call (`'call'`, place it outermost) or each attempt (`'attempt'`, place it inside retry). Default `'call'`. */
  per?: 'call' | 'attempt';
  clock?: Clock;
}

const INSTRUMENT_KEYS: OptionKeys<InstrumentOptions> = { name: true, per: true, clock: true };

/** A policy that measures calls; `on('call' | 'attempt')` knows the payload. */
export interface InstrumentedPolicy extends Policy {
  on<E extends 'call' | 'attempt'>(event: E, listener: Listener<ObservabilityEventMap[E]>): () => void;
  on(event: string, listener: (e: object) => void): () => void;
}

function outcomeOf(error: unknown): CallOutcome {
  return classify(error).kind === 'cancelled' ? 'cancelled' : 'failure';
}

class InstrumentPolicy extends BaseLayer implements InstrumentedPolicy {
  readonly #name: string | undefined;
  readonly #type: 'call' | 'attempt';
  readonly #clock: Clock;

  constructor(options: InstrumentOptions | undefined) {
    const o = checkOptions('instrument', options, INSTRUMENT_KEYS);
    if (o.name !== undefined) checkName('name', o.name);
    super('instrument', o.name);
    registerObservabilityEvents();
    this.#name = o.name;
    this.#type = o.per === undefined ? 'call' : checkOneOf('per', o.per, ['call', 'attempt']);
    this.#clock = checkClock<Clock>('clock', o.clock ?? systemClock);
  }

  [COMPOSE](next: Invoke): Invoke {
    const type = this.#type;
    const name = this.#name;
    const clock = this.#clock;
    const events = this.events;
    return (fn: Work<unknown>, scope: Scope): unknown => {
      // Nobody listening: no clock read, no context switch, no closure.
      if (!events.wants(type)) return next(fn, scope);
      const started = clock.now();
      const done = (outcome: CallOutcome, error?: unknown): void => {
        const payload: ObservabilityEventMap['call'] = { outcome, durationMs: clock.now() - started, attempt: scope.attempt };
        if (outcome !== 'success') payload.error = error;
        events.emit(type, payload);
      };
      let result: unknown;
      try {
        result = name === undefined ? next(fn, scope) : runForDependency(name, next, fn, scope);
      } catch (error) {
        done(outcomeOf(error), error);
        throw error;
      }
      if (!isThenable(result)) {
        done('success');
        return result;
      }
      return Promise.resolve(result).then(
        (value) => {
          done('success');
          return value;
        },
        (error: unknown) => {
          done(outcomeOf(error), error);
          throw error;
        },
      );
    };
  }
}

/**
 * Measures calls for telemetry: emits `call` (or, with `per: 'attempt'`, `attempt`) events
 * {outcome, durationMs, attempt, error?} that the health monitor, `jsonLogger` and
 * `recourse/prometheus` turn into error rates, latency percentiles and duration histograms. While
 * the call runs, events of unnamed policies inside it (a `watch` stall) are attributed to `name`.
 * Costs nothing but one check when no sink listens. Place the `'call'` one outermost and the
 * `'attempt'` one inside retry. Defaults: per 'call', systemClock.
 *
 * @example
 * const search = pipeline(
 *   instrument({ name: 'search' }), breakers.get('search'), retry({ name: 'search' }),
 *   instrument({ name: 'search', per: 'attempt' }), timeout(20_000))
 */
export function instrument(options?: InstrumentOptions): InstrumentedPolicy {
  return new InstrumentPolicy(options);
}
