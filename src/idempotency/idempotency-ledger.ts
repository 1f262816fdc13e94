import { randomUUID } from 'node:crypto';
import type { Backoff } from '../backoff/backoff.js';
import { exponential } from '../backoff/exponential.js';
import { canonicalJson } from '../canonical/canonical-json.js';
import { isNotSerializableError, NotSerializableError } from '../canonical/not-serializable-error.js';
import { type Clock, startTimer, type Timer } from '../clock/clock.js';
import { abortReason } from '../errors/abort-error.js';
import { checkFunction, checkMs, checkOptions, checkSignal, type OptionKeys , checkClock } from '../options/validate-options.js';
import type { LedgerStore } from '../store/ledger-store.js';
import { wallClock } from '../clock/wall-clock.js';
import { checkKey } from './check-key.js';
import { untilAborted } from '../context/until-aborted.js';

/** Options of {@link IdempotencyLedger}. */
export interface IdempotencyLedgerOptions {
  /** How long a claim lasts without renewal; a live holder renews it every `leaseMs / 3`. Default 30000. */
  leaseMs?: number;
  /** How long a completed result is returned instead of running again. Default 86400000 (24 h). */
  ttlMs?: number;
  /** Default `wallClock`: processes sharing a store must share a time scale. */
  clock?: Clock;
  /** Delay between looks at a key another process is running. Default exponential, 50 ms → 1 s, equal jitter. */
  pollBackoff?: Backoff;
  /** Source of jitter in [0, 1). Default `Math.random`. */
  random?: () => number;
}

const LEDGER_KEYS: OptionKeys<IdempotencyLedgerOptions> = { leaseMs: true, ttlMs: true, clock: true, pollBackoff: true, random: true };

/** Per-call options of {@link IdempotencyLedger.run}. */
export interface LedgerRunOptions {
  /** Stops this caller's wait; an operation already running is not interrupted (others share it). */
  signal?: AbortSignal;
}

const LEDGER_RUN_KEYS: OptionKeys<LedgerRunOptions> = { signal: true };

/** One execution in this process and the callers sharing it. */
interface Flight {
  result: Promise<string | undefined>;
  waiters: number;
  /** Aborted when every waiter gave up before the operation started. */
  controller: AbortController;
}

const noop = (): void => {};

/**
 * One execution per key, even across processes sharing the store. The first caller claims the key
 * and runs `fn`; callers in this process share that execution; callers in other processes wait on
 * the stored claim (polling with backoff) and then get the stored result. A completed result is
 * returned, as its JSON round trip, until `ttlMs`; a failure releases the key (the next caller runs
 * `fn` again); a claim whose holder died lapses after `leaseMs` and the next caller takes it over
 * (a live holder renews it, so a long call is not run twice). `fn`'s result must be JSON (canonical
 * JSON rules): otherwise `run` rejects with `NotSerializableError` naming the key, and the claim is
 * released. A process killed while `fn` runs may leave the effect done but unrecorded: after the
 * lease lapses it runs again, so give the downstream call the key too when it accepts one.
 * Defaults: leaseMs 30000, ttlMs 24 h, clock wallClock.
 *
 * @example
 * const ledger = new IdempotencyLedger(sqliteStore({ path: 'state.db' }))
 * const receipt = await retry().execute(
 *   (ctx) => ledger.run(ctx.idempotencyKey!, () => sendEmail(to, body)),
 *   { idempotencyKey: idempotencyKey('email', to, body) },
 * )
 */
export class IdempotencyLedger {
  readonly #store: LedgerStore;
  readonly #leaseMs: number;
  readonly #ttlMs: number;
  readonly #clock: Clock;
  readonly #poll: Backoff;
  readonly #random: () => number;
  readonly #flights = new Map<string, Flight>();

  constructor(store: LedgerStore, options?: IdempotencyLedgerOptions) {
    if (typeof (store as Partial<LedgerStore> | undefined)?.ledgerClaim !== 'function') {
      throw new TypeError('store must be a LedgerStore, e.g. memoryStore() or sqliteStore({ path })');
    }
    const o = checkOptions('IdempotencyLedger', options, LEDGER_KEYS);
    this.#store = store;
    this.#leaseMs = o.leaseMs === undefined ? 30_000 : checkMs('leaseMs', o.leaseMs, 1);
    this.#ttlMs = o.ttlMs === undefined ? 86_400_000 : checkMs('ttlMs', o.ttlMs, 1);
    this.#clock = checkClock<Clock>('clock', o.clock ?? wallClock);
    if (o.pollBackoff !== undefined && typeof (o.pollBackoff as Partial<Backoff>)?.delay !== 'function') {
      throw new TypeError('pollBackoff must be a Backoff (an object with a delay() function), e.g. exponential()');
    }
    this.#poll = o.pollBackoff ?? exponential({ baseMs: 50, maxMs: 1000, jitter: 'equal' });
    this.#random = o.random === undefined ? Math.random : checkFunction('random', o.random);
  }

  /**
   * Runs `fn` once for `key` (see the class), or returns the result of the run that did.
   * @throws TypeError when `key` is not a non-empty string.
   */
  async run<T>(key: string, fn: () => Promise<T>, options?: LedgerRunOptions): Promise<T> {
    checkKey('key', key);
    checkFunction('fn', fn);
    const signal = checkSignal('signal', checkOptions('run', options, LEDGER_RUN_KEYS).signal);
    if (signal?.aborted) throw abortReason(signal);
    let flight = this.#flights.get(key);
    if (flight === undefined) flight = this.#start(key, fn as () => Promise<unknown>);
    flight.waiters++;
    try {
      const text = await untilAborted(flight.result, signal);
      return (text === undefined ? undefined : JSON.parse(text)) as T;
    } catch (error) {
      if (signal?.aborted && --flight.waiters === 0) {
        // Nobody here wants it any more: stop waiting on another holder (a running fn goes on).
        flight.controller.abort(abortReason(signal));
        if (this.#flights.get(key) === flight) this.#flights.delete(key);
      }
      throw error;
    }
  }

  #start(key: string, fn: () => Promise<unknown>): Flight {
    const controller = new AbortController();
    const flight: Flight = { result: this.#execute(key, fn, controller.signal), waiters: 0, controller };
    this.#flights.set(key, flight);
    flight.result
      .finally(() => {
        if (this.#flights.get(key) === flight) this.#flights.delete(key);
      })
      .catch(noop);
    return flight;
  }

  async #execute(key: string, fn: () => Promise<unknown>, signal: AbortSignal): Promise<string | undefined> {
    const owner = randomUUID();
    let previous = 0;
    for (let attempt = 1; ; attempt++) {
      if (signal.aborted) throw abortReason(signal);
      const claim = await this.#store.ledgerClaim(key, owner, this.#clock.now(), this.#leaseMs);
      if (claim.kind === 'completed') return claim.result;
      if (claim.kind === 'claimed') break;
      let delay = this.#poll.delay(attempt, previous, this.#random);
      if (!(delay >= 0)) delay = 0;
      previous = delay;
      // Look again no later than the moment the holder's claim lapses.
      const untilLapse = claim.leaseUntil - this.#clock.now();
      await this.#clock.sleep(Math.max(1, Math.min(delay, untilLapse)), signal);
    }
    if (signal.aborted) {
      await this.#store.ledgerRelease(key, owner);
      throw abortReason(signal);
    }
    return this.#hold(key, owner, fn);
  }

  /** Runs fn while holding the claim, renewing it, and records the outcome. */
  async #hold(key: string, owner: string, fn: () => Promise<unknown>): Promise<string | undefined> {
    const renewal = this.#renewWhileRunning(key, owner);
    try {
      let result: unknown;
      try {
        result = await fn();
      } catch (error) {
        await this.#store.ledgerRelease(key, owner).catch(noop);
        throw error;
      }
      let text: string | undefined;
      try {
        text = result === undefined ? undefined : canonicalJson(result, 'result');
      } catch (error) {
        await this.#store.ledgerRelease(key, owner).catch(noop);
        throw unstorable(key, error);
      }
      const now = this.#clock.now();
      // false: our claim lapsed and another caller took it over; what we did still happened, so
      // our caller still gets our result (the store keeps the other run's).
      await this.#store.ledgerComplete(key, owner, text, now, now + this.#ttlMs);
      return text;
    } finally {
      renewal.stop();
    }
  }

  #renewWhileRunning(key: string, owner: string): { stop(): void } {
    let timer: Timer | undefined;
    let stopped = false;
    const every = Math.max(1, Math.floor(this.#leaseMs / 3));
    const schedule = (): void => {
      if (stopped) return;
      timer = startTimer(this.#clock, every, renew);
      timer.unref?.();
    };
    const renew = (): void => {
      this.#store.ledgerRenew(key, owner, this.#clock.now(), this.#leaseMs).then(
        (held) => {
          if (held) schedule();
        },
        // A failed write (database busy) is retried at the next tick; the lease has slack for two.
        schedule,
      );
    };
    schedule();
    return {
      stop: () => {
        stopped = true;
        timer?.cancel();
      },
    };
  }
}

function unstorable(key: string, error: unknown): unknown {
  if (!isNotSerializableError(error)) return error;
  return new NotSerializableError(
    error.path,
    error.reason,
    `IdempotencyLedger: the result for key ${JSON.stringify(key)} cannot be stored: ${error.message}; the claim was released`,
    { cause: error },
  );
}
