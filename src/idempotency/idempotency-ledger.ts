import { parseStored } from '../store/parse-stored.js';
import type { Backoff } from '../backoff/backoff.js';
import { exponential } from '../backoff/exponential.js';
import { nextDelay } from '../backoff/next-delay.js';
import { canonicalJson } from '../canonical/canonical-json.js';
import {
  isNotSerializableError,
  NotSerializableError,
} from '../canonical/not-serializable-error.js';
import type { Clock } from '../clock/clock.js';
import { untilAborted } from '../context/until-aborted.js';
import { abortReason } from '../errors/abort-error.js';
import { Emitter } from '../events/emitter.js';
import type { Listener } from '../events/listener.js';
import type { LedgerEvents } from './ledger-events.js';
import {
  awaitLease,
  type HeldLease,
  type LeasePort,
  type LeaseSettings,
  type Taken,
} from '../lease/lease.js';
import { processOwner } from '../lease/process-identity.js';
import {
  checkClock,
  checkFunction,
  checkMs,
  checkOptions,
  checkSignal,
  type OptionKeys,
  showValue,
} from '../options/validate-options.js';
import type { LedgerStore } from '../store/ledger-store.js';
import { asStoreError, StoreError } from '../store/store-error.js';
import { wallClock } from '../clock/wall-clock.js';
import { errorText } from '../text/safe-text.js';
import { checkKey } from './check-key.js';

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

const LEDGER_KEYS: OptionKeys<IdempotencyLedgerOptions> = {
  leaseMs: true,
  ttlMs: true,
  clock: true,
  pollBackoff: true,
  random: true,
};

/** What `reconcile` found out about an operation whose holder died mid-way: see {@link LedgerRunOptions}. */
export type Reconciliation<T> = { done: true; result: T } | { done: false };

/** Per-call options of {@link IdempotencyLedger.run}. */
export interface LedgerRunOptions<T = unknown> {
  /** Stops this caller's wait; an operation already running is not interrupted (others share it). */
  signal?: AbortSignal;
  /**
   * Asked when this run takes over `key` from a holder that stopped renewing mid-operation (it
   * died or hung), so nobody knows whether the operation happened: look it up downstream (the
   * payment, the sent message) and resolve `{ done: true, result }` to record that result without
   * running again, or `{ done: false }` to run `fn`. If it throws, `run` rejects with its error,
   * runs nothing, and leaves the key to the next caller's `reconcile`. Without it a takeover runs
   * `fn` again and emits `ledger_takeover` with `outcome: 'unknown'`.
   */
  reconcile?: (key: string) => Promise<Reconciliation<T>>;
  /** How long this run's result is kept, ms, instead of the ledger's `ttlMs` (callers sharing the run get the first one's). */
  ttlMs?: number;
}

const LEDGER_RUN_KEYS: OptionKeys<LedgerRunOptions> = {
  signal: true,
  reconcile: true,
  ttlMs: true,
};

/** Events of an {@link IdempotencyLedger}. */
export type LedgerEventMap = LedgerEvents;

/** One execution in this process and the callers sharing it. */
interface Flight {
  result: Promise<string | undefined>;
  waiters: number;
  /** Aborted when every waiter gave up before the operation started. */
  controller: AbortController;
}

/** A result this process produced but could not record: recorded by the key's next run here. */
interface Unrecorded {
  owner: string;
  text: string | undefined;
  ttlMs: number;
}

const noop = (): void => {};

/** Tries at recording a result before giving up (the first included), and the waits between them. */
const RECORD_ATTEMPTS = 3;
const RECORD_BACKOFF = exponential({ baseMs: 100, maxMs: 1000, jitter: 'equal' });
/** Bounds the memory of unrecorded results (each is a store outage's worth of failed writes). */
const MAX_UNRECORDED = 1000;

/**
 * One execution per key, even across processes sharing the store. The first caller claims the key
 * and runs `fn`; callers in this process share that execution; callers in other processes wait on
 * the stored claim (polling with backoff) and then get the stored result. A completed result is
 * returned, as its JSON round trip, until `ttlMs`; a failure releases the key (the next caller runs
 * `fn` again); a claim whose holder died lapses after `leaseMs` and the next caller takes it over
 * (a live holder renews it, so a long call is not run twice) — with `reconcile` it asks first
 * whether the dead holder's operation happened. It fails closed: when the claim cannot be recorded
 * (the store is down) `run` rejects with `StoreError` and `fn` is not run. When `fn` ran but its
 * result cannot be recorded (after retries), `run` rejects with `StoreError` code
 * `result_unrecorded`, which no retry repeats; the next `run` of that key in this process records
 * the result instead of running again. `fn`'s result must be JSON (canonical JSON rules):
 * otherwise `run` rejects with `NotSerializableError` naming the key, and the claim is released.
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
  readonly #ttlMs: number;
  readonly #lease: LeaseSettings;
  readonly #flights = new Map<string, Flight>();
  readonly #unrecorded = new Map<string, Unrecorded>();
  readonly #events = new Emitter<LedgerEventMap>('idempotency-ledger');

  constructor(store: LedgerStore, options?: IdempotencyLedgerOptions) {
    if (typeof (store as Partial<LedgerStore> | undefined)?.ledgerClaim !== 'function') {
      throw new TypeError(
        'store must be a LedgerStore, e.g. memoryStore() or sqliteStore({ path })',
      );
    }
    const o = checkOptions('IdempotencyLedger', options, LEDGER_KEYS);
    this.#store = store;
    this.#ttlMs = o.ttlMs === undefined ? 86_400_000 : checkMs('ttlMs', o.ttlMs, 1);
    if (
      o.pollBackoff !== undefined &&
      typeof (o.pollBackoff as Partial<Backoff>)?.delay !== 'function'
    ) {
      throw new TypeError(
        'pollBackoff must be a Backoff (an object with a delay() function), e.g. exponential()',
      );
    }
    this.#lease = {
      clock: checkClock<Clock>('clock', o.clock ?? wallClock),
      leaseMs: o.leaseMs === undefined ? 30_000 : checkMs('leaseMs', o.leaseMs, 1),
      poll: o.pollBackoff ?? exponential({ baseMs: 50, maxMs: 1000, jitter: 'equal' }),
      random: o.random === undefined ? Math.random : checkFunction('random', o.random),
    };
  }

  /**
   * Listens to `ledger_takeover` (this ledger took over a key whose holder stopped mid-operation,
   * and what `reconcile` said) and `ledger_unrecorded` (an operation ran but its result could not
   * be recorded). Returns the function that removes the listener.
   *
   * @example
   * ledger.on('ledger_takeover', (e) => { if (e.outcome === 'unknown') log.warn('may have run twice', e.key) })
   */
  on<K extends keyof LedgerEventMap>(type: K, listener: Listener<LedgerEventMap[K]>): () => void {
    return this.#events.on(type, listener);
  }

  /**
   * Runs `fn` once for `key` (see the class), or returns the result of the run that did.
   * @throws TypeError when `key` is not a non-empty string.
   */
  async run<T>(key: string, fn: () => Promise<T>, options?: LedgerRunOptions<T>): Promise<T> {
    checkKey('key', key);
    checkFunction('fn', fn);
    const o = checkOptions('run', options, LEDGER_RUN_KEYS);
    const signal = checkSignal('signal', o.signal);
    const reconcile =
      o.reconcile === undefined
        ? undefined
        : checkFunction<(key: string) => Promise<Reconciliation<unknown>>>(
            'reconcile',
            o.reconcile,
          );
    const ttlMs = o.ttlMs === undefined ? this.#ttlMs : checkMs('ttlMs', o.ttlMs, 1);
    if (signal?.aborted) throw abortReason(signal);
    let flight = this.#flights.get(key);
    if (flight === undefined)
      flight = this.#start(key, fn as () => Promise<unknown>, reconcile, ttlMs);
    flight.waiters++;
    try {
      const text = await untilAborted(flight.result, signal);
      return (
        text === undefined ? undefined : parseStored(text, { what: 'ledger result', key })
      ) as T;
    } catch (error) {
      if (signal?.aborted && --flight.waiters === 0) {
        // Nobody here wants it any more: stop waiting on another holder (a running fn goes on).
        flight.controller.abort(abortReason(signal));
        if (this.#flights.get(key) === flight) this.#flights.delete(key);
      }
      throw error;
    }
  }

  #start(
    key: string,
    fn: () => Promise<unknown>,
    reconcile: ((key: string) => Promise<Reconciliation<unknown>>) | undefined,
    ttlMs: number,
  ): Flight {
    const controller = new AbortController();
    const flight: Flight = {
      result: this.#execute(key, fn, reconcile, ttlMs, controller.signal),
      waiters: 0,
      controller,
    };
    this.#flights.set(key, flight);
    flight.result
      .finally(() => {
        if (this.#flights.get(key) === flight) this.#flights.delete(key);
      })
      .catch(noop);
    return flight;
  }

  async #execute(
    key: string,
    fn: () => Promise<unknown>,
    reconcile: ((key: string) => Promise<Reconciliation<unknown>>) | undefined,
    ttlMs: number,
    signal: AbortSignal,
  ): Promise<string | undefined> {
    const earlier = this.#unrecorded.get(key);
    if (earlier !== undefined) {
      const recorded = await this.#recordEarlier(key, earlier);
      if (recorded) return earlier.text;
    }
    const owner = processOwner();
    let taken: Taken<string | undefined>;
    try {
      taken = await awaitLease(this.#port(key, owner), this.#lease, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      throw asStoreError(
        error,
        `IdempotencyLedger: cannot claim key ${JSON.stringify(key)}, so the operation was not run`,
        key,
      );
    }
    if (taken.kind === 'done') return taken.value;
    const { lease, previousOwner } = taken;
    try {
      if (previousOwner !== undefined) {
        const answer = await this.#takeover(key, owner, previousOwner, lease, reconcile);
        if (answer.done)
          return await this.#record(
            key,
            owner,
            await this.#serialise(key, owner, answer.result, lease, 'reconciled'),
            ttlMs,
          );
      }
      let result: unknown;
      try {
        result = await fn();
      } catch (error) {
        await lease.release().catch(noop);
        throw error;
      }
      return await this.#record(
        key,
        owner,
        await this.#serialise(key, owner, result, lease, 'ran'),
        ttlMs,
      );
    } finally {
      lease.stop();
    }
  }

  /** The key's claim as a lease: claimed, held by a live holder, or completed with a result. */
  #port(key: string, owner: string): LeasePort<string | undefined> {
    const store = this.#store;
    return {
      async tryAcquire(now, leaseMs) {
        const claim = await store.ledgerClaim(key, owner, now, leaseMs);
        if (claim.kind === 'completed') return { kind: 'done', value: claim.result };
        if (claim.kind === 'held') return { kind: 'held', leaseUntil: claim.leaseUntil };
        return claim.takeover
          ? { kind: 'acquired', previousOwner: claim.previousOwner }
          : { kind: 'acquired' };
      },
      renew: (now, leaseMs) => store.ledgerRenew(key, owner, now, leaseMs),
      release: () => store.ledgerRelease(key, owner),
    };
  }

  /** A takeover: asks `reconcile` (when given) whether the dead holder's operation happened. */
  async #takeover(
    key: string,
    owner: string,
    previousOwner: string,
    lease: HeldLease,
    reconcile: ((key: string) => Promise<Reconciliation<unknown>>) | undefined,
  ): Promise<Reconciliation<unknown>> {
    if (reconcile === undefined) {
      this.#emit('ledger_takeover', { key, previousOwner, outcome: 'unknown' });
      return { done: false };
    }
    let answer: Reconciliation<unknown>;
    try {
      answer = await reconcile(key);
      if (
        typeof answer !== 'object' ||
        answer === null ||
        typeof answer.done !== 'boolean' ||
        (answer.done && !('result' in answer))
      ) {
        throw new TypeError(
          `reconcile must resolve { done: true, result } or { done: false }, got ${showValue(answer)}`,
        );
      }
    } catch (error) {
      // Still unknown: the next caller must reconcile too.
      await this.#abandon(key, owner, lease);
      throw error;
    }
    this.#emit('ledger_takeover', {
      key,
      previousOwner,
      outcome: answer.done ? 'done' : 'not_done',
    });
    return answer;
  }

  /**
   * Canonical JSON of a result to store. One that cannot be stored throws, after releasing the
   * claim when `fn` made it (the contract: the next caller runs again), or leaving it lapsed when
   * `reconcile` did (the outcome is still unknown: the next caller reconciles again).
   */
  async #serialise(
    key: string,
    owner: string,
    result: unknown,
    lease: HeldLease,
    source: 'ran' | 'reconciled',
  ): Promise<string | undefined> {
    try {
      return result === undefined ? undefined : canonicalJson(result, 'result');
    } catch (error) {
      if (source === 'ran') await lease.release().catch(noop);
      else await this.#abandon(key, owner, lease);
      throw unstorable(key, error, source === 'ran' ? 'result' : 'reconciled result');
    }
  }

  /** Gives the claim up as lapsed, not free: the next caller takes it over and reconciles. */
  async #abandon(key: string, owner: string, lease: HeldLease): Promise<void> {
    lease.stop();
    await this.#store.ledgerRenew(key, owner, this.#lease.clock.now(), 0).catch(noop);
  }

  /**
   * Records the outcome, trying again on a store failure while the lease is renewed; when it still
   * fails, remembers it for the key's next run here and rejects with `result_unrecorded`.
   */
  async #record(
    key: string,
    owner: string,
    text: string | undefined,
    ttlMs: number,
  ): Promise<string | undefined> {
    const clock = this.#lease.clock;
    let previous = 0;
    let failure: unknown;
    for (let attempt = 1; attempt <= RECORD_ATTEMPTS; attempt++) {
      if (attempt > 1) {
        previous = nextDelay(RECORD_BACKOFF, attempt - 1, previous, this.#lease.random);
        await clock.sleep(previous);
      }
      try {
        const now = clock.now();
        // false: our claim lapsed and another caller took it over; what we did still happened, so
        // our caller still gets our result (the store keeps the other run's).
        await this.#store.ledgerComplete(key, owner, text, now, now + ttlMs);
        return text;
      } catch (error) {
        failure = error;
      }
    }
    if (this.#unrecorded.size >= MAX_UNRECORDED)
      this.#unrecorded.delete(this.#unrecorded.keys().next().value as string);
    this.#unrecorded.set(key, { owner, text, ttlMs });
    const error = new StoreError(
      'result_unrecorded',
      `IdempotencyLedger: the operation for key ${JSON.stringify(key)} ran, but its result could not be recorded after ${RECORD_ATTEMPTS} attempts ` +
        `(${errorText(failure)}). It is not run again: the next run of this key in this process records the result first; ` +
        `another process takes the key over after leaseMs as an outcome-unknown takeover (see reconcile)`,
      undefined,
      { cause: failure, key },
    );
    this.#emit('ledger_unrecorded', { key, error });
    throw error;
  }

  /**
   * Records a result an earlier run in this process could not: true when it is now recorded (or
   * our claim was taken over, false). Throws `result_unrecorded` again while the store still fails.
   */
  async #recordEarlier(key: string, earlier: Unrecorded): Promise<boolean> {
    const now = this.#lease.clock.now();
    let recorded: boolean;
    try {
      recorded = await this.#store.ledgerComplete(
        key,
        earlier.owner,
        earlier.text,
        now,
        now + earlier.ttlMs,
      );
    } catch (error) {
      throw new StoreError(
        'result_unrecorded',
        `IdempotencyLedger: an earlier run of key ${JSON.stringify(key)} in this process ran the operation, and its result still cannot be recorded (${errorText(error)}); not running it again`,
        undefined,
        { cause: error, key },
      );
    }
    this.#unrecorded.delete(key);
    return recorded;
  }

  #emit<K extends keyof LedgerEventMap>(type: K, payload: LedgerEventMap[K]): void {
    if (this.#events.wants(type)) this.#events.emit(type, payload);
  }
}

function unstorable(key: string, error: unknown, what: string): unknown {
  if (!isNotSerializableError(error)) return error;
  return new NotSerializableError(
    error.path,
    error.reason,
    `IdempotencyLedger: the ${what} for key ${JSON.stringify(key)} cannot be stored: ${error.message}; the claim was released`,
    { cause: error },
  );
}
