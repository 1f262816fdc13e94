import { systemClock, type Timer, type TimerClock } from './clock.js';

/**
 * Wall-clock time (`Date.now()`), with `systemClock`'s timers. Durable state compares times
 * written by different processes (lease expiry, result TTL, breaker cooldowns in a shared store),
 * which needs one time scale for all of them; `systemClock.now()` is per-process monotonic time.
 * The default clock of `IdempotencyLedger`, `Checkpointer` and `Saga`.
 *
 * @example
 * const breaker = circuitBreaker({ name: 'search', store: sqliteStore({ path: 'state.db' }), clock: wallClock })
 */
export const wallClock: TimerClock = {
  now: () => Date.now(),
  sleep: (ms: number, signal?: AbortSignal): Promise<void> => systemClock.sleep(ms, signal),
  setTimer: (ms: number, callback: () => void): Timer => systemClock.setTimer(ms, callback),
};
