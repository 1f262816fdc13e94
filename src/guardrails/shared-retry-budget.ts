import { type Clock, startTimer, type Timer } from '../clock/clock.js';
import { Emitter } from '../events/emitter.js';
import type { Listener } from '../events/listener.js';
import type { RetryBudgetStore } from '../store/retry-budget-store.js';
import { StoreError } from '../store/store-error.js';
import type {
  RetryBudgetGrant,
  RetryBudgetLimits,
  RetryBudgetTake,
} from '../transitions/retry-budget.js';
import type { RetryBudgetHandle, RetryBudgetStats } from './retry-budget.js';

/** Events of a shared retry budget (the same names and shapes as a shared breaker's). */
export interface SharedRetryBudgetEventMap {
  /** The store failed or did not answer within `storeTimeoutMs`: the budget decides from this process's own window until it is back. */
  store_unavailable: { name: string; error: unknown };
  /** The store answers again after `downMs`. */
  store_recovered: { name: string; downMs: number };
}

/** A retry budget shared through a store (`retryBudget({ store })`). */
export interface SharedRetryBudgetHandle extends RetryBudgetHandle {
  /** The budget's name in the store. */
  readonly name: string;
  /** Subscribes to `store_unavailable` / `store_recovered`; returns the unsubscribe function. */
  on<K extends keyof SharedRetryBudgetEventMap>(
    type: K,
    listener: Listener<SharedRetryBudgetEventMap[K]>,
  ): () => void;
  /** Reports the requests not yet reported, gives unused tokens back, and stops the timer. Idempotent. */
  close(): Promise<void>;
}

/** @internal What {@link SharedRetryBudget} is built from (validated by `retryBudget`). */
export interface SharedBudgetSettings {
  store: RetryBudgetStore;
  name: string;
  limits: RetryBudgetLimits;
  clock: Clock;
  storeTimeoutMs: number;
  leaseMs: number;
}

// Requests are reported this often while there are some (so other processes earn their credit).
const REPORT_MS = 100;
// While the store is down, how often one call checks whether it is back.
const RECOVERY_CHECK_MS = 1_000;
// The most tokens one process asks for at a time: small leases keep the budget fair between processes.
const MAX_LEASE = 32;

/**
 * @internal One retry budget for every process sharing a store. `tryRetry()` never waits: it
 * spends a token this process took ahead (a small local lease) or says no. One store call at a
 * time (`retryBudgetTake`) reports the requests seen here, gives back tokens unused for `leaseMs`, and
 * takes as many tokens as this process asked for since its previous call (a quarter more, at most
 * {@link MAX_LEASE}). Granted tokens count as retries in the store at once, so all processes
 * together never retry more than the budget allows; a process that asks late may be refused
 * while another still holds tokens (it gets its share at its next call, a few ms later).
 *
 * While the store is unavailable (a failed call, or none within `storeTimeoutMs`), decisions come
 * from `local`, a budget of this process alone that has seen every request and retry here all
 * along; once a call succeeds again the shared budget takes over (reporting at most one window's
 * worth of the requests seen meanwhile).
 */
export class SharedRetryBudget implements SharedRetryBudgetHandle {
  readonly name: string;
  readonly #s: SharedBudgetSettings;
  readonly #local: RetryBudgetHandle;
  readonly #events = new Emitter<SharedRetryBudgetEventMap>('retry-budget', undefined, false);
  #tokens = 0;
  #grantedAt = 0;
  /** The last tryRetry (granted or not): a process quiet for leaseMs gives its tokens back. */
  #lastAskAt = 0;
  #pending = 0;
  /** Retries asked for since the last take (granted or not): the next lease's size. */
  #demand = 0;
  /** Tokens a take granted after we stopped waiting for it: given back with the next take. */
  #late = 0;
  #lateAt = 0;
  #denied = 0;
  #taking = false;
  /** After a take that got less than it asked for, the next one waits for the report tick. */
  #starvedUntil = Number.NEGATIVE_INFINITY;
  #available = true;
  #downSince = 0;
  #last: RetryBudgetGrant | undefined;
  #timer: Timer | undefined;
  #closed = false;

  constructor(local: RetryBudgetHandle, settings: SharedBudgetSettings) {
    this.name = settings.name;
    this.#s = settings;
    this.#local = local;
  }

  recordRequest(): void {
    this.#local.recordRequest();
    if (this.#closed) return;
    this.#pending++;
    // The first request after a quiet spell fetches a token, so the retry it may need finds one.
    if (this.#tokens < 1 && this.#available) this.#takeSoon();
    else this.#arm(this.#available ? REPORT_MS : RECOVERY_CHECK_MS);
  }

  tryRetry(): boolean {
    if (this.#closed || !this.#available) {
      const granted = this.#local.tryRetry();
      if (!granted) this.#denied++;
      return granted;
    }
    this.#demand++;
    this.#lastAskAt = this.#s.clock.now();
    if (this.#tokens >= 1) {
      this.#tokens--;
      this.#local.tryRetry(); // keeps the fallback's window current; its answer does not matter here
      if (this.#tokens < this.#demand / 2) this.#takeSoon();
      return true;
    }
    this.#denied++;
    this.#takeSoon();
    return false;
  }

  stats(): RetryBudgetStats {
    const local = this.#local.stats();
    const shared = this.#last;
    return {
      ...local,
      ...(shared === undefined || !this.#available
        ? {}
        : { requests: shared.requests, retries: shared.retries, floorTokens: shared.floorTokens }),
      denied: this.#denied,
      store: {
        name: this.name,
        available: this.#available,
        heldTokens: this.#tokens,
        unreportedRequests: this.#pending,
      },
    };
  }

  on<K extends keyof SharedRetryBudgetEventMap>(
    type: K,
    listener: Listener<SharedRetryBudgetEventMap[K]>,
  ): () => void {
    return this.#events.on(type, listener);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#timer?.cancel();
    this.#timer = undefined;
    if (!this.#available || (this.#pending === 0 && this.#tokens === 0 && this.#late === 0)) return;
    const take = this.#nextTake(this.#s.clock.now(), 0, true);
    await this.#call(take).catch(() => undefined);
  }

  /** What to send: the requests not reported, tokens to give back, and the tokens wanted. */
  #quiet(now: number): boolean {
    return now - Math.max(this.#lastAskAt, this.#grantedAt) >= this.#s.leaseMs;
  }

  #nextTake(now: number, want: number, returnAll: boolean): RetryBudgetTake {
    let returned = this.#late;
    let returnedAt = this.#lateAt;
    this.#late = 0;
    // Tokens nobody used for leaseMs go back (this process went quiet), all but one while requests
    // still come (the next failure finds it in hand); all of them at close.
    const keep = returnAll || this.#pending === 0 ? 0 : 1;
    if (this.#tokens > keep && (returnAll || this.#quiet(now))) {
      returned += this.#tokens - keep;
      returnedAt = Math.max(returnedAt, this.#grantedAt);
      this.#tokens = keep;
    }
    const requests = this.#pending;
    this.#pending = 0;
    return { requests, returned, returnedAt, want };
  }

  /** A take now, unless the budget just had nothing to give: then at the next report tick. */
  #takeSoon(): void {
    if (this.#s.clock.now() < this.#starvedUntil) this.#arm(REPORT_MS);
    else this.#take();
  }

  #take(): void {
    if (this.#taking || this.#closed) return;
    this.#taking = true;
    const now = this.#s.clock.now();
    // Retries asked for long ago say nothing about the next ones.
    const demand = this.#quiet(now) ? 0 : this.#demand;
    this.#demand = 0;
    // Enough for as many retries as were asked for since the last take, and a quarter more; one
    // token in hand when there is traffic but no retry yet.
    const wanted =
      demand > 0 ? Math.min(MAX_LEASE, Math.ceil(demand * 1.25)) : this.#pending > 0 ? 1 : 0;
    const want = Math.max(0, wanted - Math.floor(this.#tokens));
    const take = this.#nextTake(now, want, false);
    // Nothing to say, unless the call is the check whether an unavailable store is back.
    if (this.#available && take.requests === 0 && take.returned === 0 && take.want === 0) {
      this.#taking = false;
      return;
    }
    this.#call(take).then(
      (grant) => {
        this.#taking = false;
        this.#tokens += grant.granted;
        if (grant.granted > 0) this.#grantedAt = now;
        // The budget is spent for now: asking again at every request or retry would only load the store.
        this.#starvedUntil = grant.granted < take.want ? now + REPORT_MS : Number.NEGATIVE_INFINITY;
        this.#last = grant;
        if (!this.#available) this.#recovered();
        // Traffic that arrived while we waited is reported at the next tick; demand beyond the
        // grant is asked for at the next retry.
        if (this.#pending > 0 || this.#tokens > 0)
          this.#arm(this.#tokens > 0 && this.#pending === 0 ? this.#s.leaseMs : REPORT_MS);
      },
      (error: unknown) => {
        this.#taking = false;
        this.#unavailable(error, take);
      },
    );
  }

  /** One `retryBudgetTake` under `storeTimeoutMs`; a grant that arrives later is given back next time. */
  #call(take: RetryBudgetTake): Promise<RetryBudgetGrant> {
    const { store, name, limits, clock, storeTimeoutMs } = this.#s;
    return new Promise<RetryBudgetGrant>((resolve, reject) => {
      let settled = false;
      const timer = startTimer(clock, storeTimeoutMs, () => {
        if (settled) return;
        settled = true;
        reject(
          new StoreError(
            'timeout',
            `retry budget ${JSON.stringify(name)}: the store did not answer within ${storeTimeoutMs} ms`,
          ),
        );
      });
      timer.unref?.();
      let pending: Promise<RetryBudgetGrant>;
      try {
        pending = Promise.resolve(store.retryBudgetTake(name, take, clock.now(), limits));
      } catch (error) {
        pending = Promise.reject(error);
      }
      pending.then(
        (grant) => {
          if (!settled) {
            settled = true;
            timer.cancel();
            resolve(grant);
          } else if (grant.granted > 0) {
            this.#late += grant.granted;
            this.#lateAt = Math.max(this.#lateAt, clock.now());
          }
        },
        (error: unknown) => {
          if (settled) return;
          settled = true;
          timer.cancel();
          reject(error);
        },
      );
    });
  }

  #unavailable(error: unknown, take: RetryBudgetTake): void {
    // What could not be reported is reported when the store is back (bounded then by the window).
    this.#pending += take.requests;
    if (take.returned > 0) {
      this.#late += take.returned;
      this.#lateAt = Math.max(this.#lateAt, take.returnedAt);
    }
    if (this.#available) {
      this.#available = false;
      this.#downSince = this.#s.clock.now();
      // Decisions now come from the local budget: tokens held here go back once the store answers.
      this.#late += this.#tokens;
      this.#lateAt = Math.max(this.#lateAt, this.#grantedAt);
      this.#tokens = 0;
      if (this.#events.wants('store_unavailable'))
        this.#events.emit('store_unavailable', { name: this.name, error });
    }
    this.#arm(RECOVERY_CHECK_MS);
  }

  #recovered(): void {
    this.#available = true;
    if (this.#events.wants('store_recovered'))
      this.#events.emit('store_recovered', {
        name: this.name,
        downMs: Math.max(0, this.#s.clock.now() - this.#downSince),
      });
  }

  #arm(ms: number): void {
    if (this.#timer !== undefined || this.#closed) return;
    this.#timer = startTimer(this.#s.clock, ms, this.#onTimer);
    this.#timer.unref?.();
  }

  readonly #onTimer = (): void => {
    this.#timer = undefined;
    if (!this.#available) {
      // Requests seen while the store was down: no more than the local window still counts.
      this.#pending = Math.min(this.#pending, this.#local.stats().requests);
    }
    this.#take();
    if (this.#taking) return; // the answer re-arms as needed
    if (this.#tokens > 0) this.#arm(this.#s.leaseMs);
  };
}
