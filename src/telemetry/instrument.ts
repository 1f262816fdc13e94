import { classify } from '../classify/classify.js';
import { type Clock, systemClock } from '../clock/clock.js';
import type { Work } from '../context/call-context.js';
import type { Scope } from '../context/scope.js';
import type { CallOutcome } from './telemetry-events.js';
import type { TelemetryEvents } from './telemetry-events.js';
import {
  checkClock,
  checkName,
  checkOneOf,
  checkOptions,
  type OptionKeys,
} from '../options/validate-options.js';
import { BaseLayer, COMPOSE, type Invoke, isThenable } from '../policy/layer.js';
import type { EventedPolicy } from '../policy/policy.js';

/** What a telemetry layer measures: each logical call (place it outermost) or each attempt (place it inside retry). */
export type Per = 'call' | 'attempt';

/** Options of {@link instrument}. */
export interface InstrumentOptions {
  /**
   * The dependency. Events of this layer carry it, and so do the events of every policy (and
   * `watch`) inside its calls that has no name of its own.
   */
  name?: string;
  /** Measure each logical call (`'call'`, place it outermost) or each attempt (`'attempt'`, place it inside retry). Default `'call'`. */
  per?: Per;
  clock?: Clock;
}

const INSTRUMENT_KEYS: OptionKeys<InstrumentOptions> = { name: true, per: true, clock: true };

/** A policy that measures calls; `on('call' | 'attempt')` knows the payload. */
export type InstrumentedPolicy = EventedPolicy<'call' | 'attempt'>;

function outcomeOf(error: unknown): CallOutcome {
  return classify(error).kind === 'cancelled' ? 'cancelled' : 'failure';
}

class InstrumentPolicy extends BaseLayer {
  readonly #name: string | undefined;
  readonly #type: Per;
  readonly #clock: Clock;

  constructor(options: InstrumentOptions | undefined) {
    const o = checkOptions('instrument', options, INSTRUMENT_KEYS);
    const name = o.name === undefined ? undefined : checkName('name', o.name);
    super('instrument', name);
    this.#name = name;
    this.#type = o.per === undefined ? 'call' : checkOneOf('per', o.per, ['call', 'attempt']);
    this.#clock = checkClock<Clock>('clock', o.clock ?? systemClock);
  }

  [COMPOSE](next: Invoke): Invoke {
    const type = this.#type;
    const name = this.#name;
    const clock = this.#clock;
    const events = this.events;
    return (fn: Work<unknown>, outer: Scope): unknown => {
      // The rest of the chain works for this dependency (one scope link, no context switch here:
      // the chain enters AsyncLocalStorage once, at its end).
      const scope = name === undefined ? outer : outer.withName(name);
      // Nobody listening: no clock read, no closure.
      if (!events.wants(type)) return next(fn, scope);
      const started = clock.now();
      const done = (outcome: CallOutcome, error?: unknown): void => {
        const payload: TelemetryEvents['call'] = {
          outcome,
          durationMs: clock.now() - started,
          attempt: scope.attempt,
        };
        if (outcome !== 'success') payload.error = error;
        events.emit(type, payload, scope);
      };
      let result: unknown;
      try {
        result = next(fn, scope);
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
 * `agent-recourse/prometheus` turn into error rates, latency percentiles and duration histograms. With a
 * `name`, it also names the call: events of unnamed policies inside it (an unnamed retry, a `watch`
 * stall) carry that name (a named `pipeline` does the same without measuring). Costs nothing but
 * one check when no sink listens. Place the `'call'` one outermost and the `'attempt'` one inside
 * retry. Defaults: per 'call', systemClock.
 *
 * @example
 * const search = pipeline(
 *   instrument({ name: 'search' }), breakers.get('search'), retry(),
 *   instrument({ per: 'attempt' }), timeout(20_000))
 */
export function instrument(options?: InstrumentOptions): InstrumentedPolicy {
  return new InstrumentPolicy(options);
}
