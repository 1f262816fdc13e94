import { type Clock, systemClock } from '../clock/clock.js';
import type { Work } from '../context/call-context.js';
import type { Scope } from '../context/scope.js';
import { TimeoutError } from '../errors/timeout-error.js';
import { checkClock, checkMs, checkOptions, type OptionKeys } from '../options/validate-options.js';
import { BaseLayer, COMPOSE, DEADLINE_PARTS, type Invoke } from '../policy/layer.js';
import type { EventedPolicy } from '../policy/policy.js';
import { DeadlineSpec, runWithDeadline } from './run-with-deadline.js';

/** Options of {@link timeout}. */
export interface TimeoutOptions {
  clock?: Clock;
  /** Reported in events. */
  name?: string;
}

const TIMEOUT_KEYS: OptionKeys<TimeoutOptions> = { clock: true, name: true };

class TimeoutPolicy extends BaseLayer {
  readonly [DEADLINE_PARTS]: DeadlineSpec;

  constructor(ms: number, options: TimeoutOptions | undefined) {
    const o = checkOptions('timeout', options, TIMEOUT_KEYS);
    super('timeout', o.name);
    const limit = checkMs('ms', ms);
    const clock = checkClock<Clock>('clock', o.clock ?? systemClock);
    const makeError = (): Error => new TimeoutError(limit);
    const onExpire = (_error: Error, scope: Scope): void => {
      if (this.wants('timeout'))
        this.events.emit('timeout', { timeoutMs: limit, probe: false }, scope);
    };
    this[DEADLINE_PARTS] = new DeadlineSpec(clock, limit, makeError, onExpire);
  }

  [COMPOSE](next: Invoke): Invoke {
    const spec = this[DEADLINE_PARTS];
    return (fn: Work<unknown>, scope: Scope) => runWithDeadline(next, fn, scope, spec);
  }
}

/**
 * Gives each call `ms` to settle. At the deadline it aborts `ctx.signal` and rejects with
 * `TimeoutError` at once, even when fn ignores the signal. The deadline is visible to every policy
 * inside (as `ctx.deadline`, and through AsyncLocalStorage to policies called from fn), so an inner
 * retry never sleeps past it. Event: `timeout` {timeoutMs}.
 *
 * @example
 * const reply = await timeout(30_000).execute((ctx) => fetch(url, { signal: ctx.signal }))
 */
export function timeout(ms: number, options?: TimeoutOptions): EventedPolicy<'timeout'> {
  return new TimeoutPolicy(ms, options);
}
