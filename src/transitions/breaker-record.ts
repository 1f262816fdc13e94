/** The states a circuit breaker can be in. */
export type BreakerState = 'closed' | 'open' | 'half-open' | 'isolated';

/**
 * The state of one breaker as a store keeps it (and as every process keeps its local copy). Every
 * state change increments `epoch`, so an outcome reported with an older epoch is recognised as
 * stale and ignored (ARCHITECTURE.md §P5). Times are on the breaker's clock: for a shared store, one wall
 * clock (`Date.now()`) for every process.
 *
 * @example
 * const r: BreakerRecord = { state: 'open', epoch: 3, failures: 5, openedAt: Date.now(), probeUntil: 0 }
 */
export interface BreakerRecord {
  state: BreakerState;
  epoch: number;
  /** Consecutive counted failures while closed. */
  failures: number;
  /** Clock time the breaker last opened (a failed probe restarts it). */
  openedAt: number;
  /** Half-open: clock time the probe in flight times out; 0 when no probe is in flight. */
  probeUntil: number;
}

/**
 * The limits the transitions need (a breaker passes its own with every store call, so a store
 * keeps no configuration).
 *
 * @example
 * const limits: BreakerLimits = { failureThreshold: 5, cooldownMs: 30_000, probeTimeoutMs: 120_000 }
 */
export interface BreakerLimits {
  failureThreshold: number;
  cooldownMs: number;
  probeTimeoutMs: number;
}

/**
 * What a breaker says to one caller: run it as an ordinary call, run it as the single half-open
 * probe, or reject it (`retryAfterMs`: time until the cooldown ends or the running probe times
 * out; `Infinity` while isolated).
 *
 * @example
 * if (admission.kind === 'reject') throw new CircuitOpenError(name, admission.retryAfterMs, admission.state)
 */
export type Admission =
  | { kind: 'call' | 'probe'; epoch: number }
  | { kind: 'reject'; retryAfterMs: number; state: 'open' | 'half-open' | 'isolated' };

/**
 * How a call ended, from the breaker's point of view: `neutral` for outcomes that say nothing
 * about the dependency (a 400, a caller abort).
 *
 * @example
 * const outcome: BreakerOutcome = counts ? 'failure' : 'neutral'
 */
export type BreakerOutcome = 'success' | 'failure' | 'neutral';

/**
 * A fresh, closed record (what a store answers for a name it never stored).
 *
 * @example
 * const r = newBreakerRecord() // { state: 'closed', epoch: 0, failures: 0, openedAt: 0, probeUntil: 0 }
 */
export function newBreakerRecord(): BreakerRecord {
  return { state: 'closed', epoch: 0, failures: 0, openedAt: 0, probeUntil: 0 };
}

/**
 * Copies the five fields of `from` onto `to` (a store's row, a breaker's local copy).
 *
 * @example
 * const copy = copyBreakerRecord(newBreakerRecord(), stored)
 */
export function copyBreakerRecord<R extends BreakerRecord>(to: R, from: BreakerRecord): R {
  to.state = from.state;
  to.epoch = from.epoch;
  to.failures = from.failures;
  to.openedAt = from.openedAt;
  to.probeUntil = from.probeUntil;
  return to;
}

/**
 * True when `a` and `b` hold the same five fields (a store writes, and notifies, only on change).
 *
 * @example
 * if (!sameBreakerRecord(before, r)) await write(r)
 */
export function sameBreakerRecord(a: BreakerRecord, b: BreakerRecord): boolean {
  return (
    a.state === b.state &&
    a.epoch === b.epoch &&
    a.failures === b.failures &&
    a.openedAt === b.openedAt &&
    a.probeUntil === b.probeUntil
  );
}

/**
 * True when `after` differs from `before` in what other processes must hear at once: the state,
 * the epoch or the probe slot (a trip, a probe taken or freed, a close, `isolate()` / `reset()`).
 * A failure count that moves while the breaker stays closed is not announced: with W processes
 * sharing a flaky dependency that would be W² messages, and a process learns the count from the
 * record each of its own writes returns (ARCHITECTURE.md §state.local).
 *
 * @example
 * if (announcedChange(before, r)) publish(name, r) // a store notifies only these changes
 */
export function announcedChange(before: BreakerRecord, after: BreakerRecord): boolean {
  return (
    before.state !== after.state ||
    before.epoch !== after.epoch ||
    before.probeUntil !== after.probeUntil
  );
}
