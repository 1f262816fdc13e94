import type { BreakerOpenReason } from './breaker-events.js';
import type { BreakerStore, StoredAdmission } from '../store/breaker-store.js';
import {
  type Admission,
  type BreakerOutcome,
  type BreakerRecord,
  copyBreakerRecord,
  newBreakerRecord,
} from '../transitions/breaker-record.js';
import {
  applyAdmit,
  applyForce,
  applyRecord,
  type BreakerPort,
  PortFields,
  type PortOwner,
} from './breaker-port.js';
import { tripLimits } from './breaker-trip.js';
import { type HubMember, StoreHub } from './store-hub.js';

const ISOLATED: Admission = {
  kind: 'reject',
  retryAfterMs: Number.POSITIVE_INFINITY,
  state: 'isolated',
};
const noop = (): void => {};

/**
 * @internal A breaker whose state a store shares between processes. It decides from a **local
 * copy** of the stored record: closed calls never wait on the store; only when the copy says the
 * cooldown is over (or the probe's time is up) does it ask the store, atomically, for the probe —
 * one question per process at a time. This process's outcomes move the copy at once (the call
 * that reaches the threshold opens it here) and are written behind (failures and probe outcomes
 * at once, successes only when they clear a failure count); every answer, change notification
 * and periodic re-read refreshes the copy, keeping the record with the higher epoch, and none of
 * the same epoch is taken while this process's own writes are still unanswered.
 *
 * A store call slower than `storeTimeoutMs` is given up on by its caller (writes are behind the
 * call anyway); the probe question and the first read wait up to `probeStoreTimeoutMs`, so a
 * store that is slow but up still decides who probes, one process fleet-wide. When the store is
 * **down** (an error such as a refused connection, or a probe question unanswered for its whole
 * limit) the port applies the same transitions to its copy alone (this process keeps protecting
 * itself, with its own single probe), never failing or delaying a call for it; when the store
 * answers again the copy is re-read and a state forced meanwhile is written.
 */
export class SharedPort extends PortFields implements BreakerPort, HubMember {
  slow = true;
  readonly countsSuccesses = false;
  readonly name: string;
  readonly syncIntervalMs: number;
  syncedAt = Number.NEGATIVE_INFINITY;
  readonly #owner: PortOwner;
  readonly #store: BreakerStore;
  readonly #hub: StoreHub;
  // Bumped on every change of the local copy: an answer to a request issued at the current value
  // is the newest thing known and is taken as it is; anything else must not lower the epoch.
  #gen = 0;
  // True once this process moved its copy alone (during an outage): its epochs are
  // then its own, and the next record from the store is taken as it is, whatever its epoch.
  #diverged = false;
  #loading: Promise<void> | undefined;
  #asking: Promise<Admission> | undefined;
  #syncing: Promise<void> | undefined;
  #pendingForce: 'closed' | 'isolated' | undefined;
  // Outcomes written behind and not answered yet: the copy already counts them, a record of the
  // same epoch from the store may not (an earlier answer, a late notification), so none is taken
  // until the last one answers.
  #writes = 0;

  constructor(owner: PortOwner, store: BreakerStore) {
    super();
    this.name = owner.name;
    this.#owner = owner;
    const options = owner.options;
    this.#store = store;
    this.syncIntervalMs = options.syncIntervalMs;
    this.#hub = StoreHub.of(store, options.clock);
    this.#hub.attach(this);
    if (this.#hub.down) {
      this.slow = false; // the store is down: start from a closed copy and re-sync when it is back
      return;
    }
    // A process joining late must not send a call to a dependency the others found dead: the
    // first admission waits (at most probeStoreTimeoutMs) for the stored record.
    this.#loading = this.sync(true).then(() => {
      this.slow = false;
      this.#loading = undefined;
    });
  }

  admit(now: number): Admission | Promise<Admission> {
    if (this.#loading !== undefined)
      return this.#loading.then(() => this.#admitNow(this.#owner.options.clock.now()));
    return this.#admitNow(now);
  }

  settle(epoch: number, outcome: BreakerOutcome, now: number): void {
    if (epoch !== this.epoch) return;
    if (this.#hub.down) {
      this.#applyRecord(epoch, outcome, now);
      return;
    }
    // Successes matter only when they clear a count; the first one after a failure says so for
    // all that follow, so a run of successes costs one write.
    if (
      this.state === 'closed' &&
      (outcome === 'neutral' || (outcome === 'success' && this.failures === 0))
    )
      return;
    // This process's own outcome moves its copy at once, so the call that reaches the threshold
    // opens the breaker here before the store answers (ARCHITECTURE.md §state.local); the store
    // applies the same transition, and its answer reconciles the copy with other processes.
    const limits = this.#owner.options;
    this.#gen++;
    applyRecord(this, this.#owner, epoch, outcome, now, limits);
    // The answer to this write is the newest record known unless the copy moved since: it is then
    // taken as it is, even one epoch back. A count is not announced while closed (a success
    // elsewhere cleared it unheard), so a copy that tripped here on a count the store no longer
    // has is closed again by the store's answer (ARCHITECTURE.md §state.push).
    const gen = this.#gen;
    this.#writes++;
    const { name } = this;
    this.#hub
      .call(limits.storeTimeoutMs, () =>
        this.#store.breakerRecord(name, epoch, outcome, now, limits),
      )
      .then(
        (record) => {
          this.#writes--;
          this.#adopt(record, gen);
        },
        () => {
          this.#writes--;
          this.#diverged = true; // the store is down: this copy goes on alone until it is back
        },
      );
  }

  trip(now: number, reason: BreakerOpenReason): void {
    if (this.state !== 'closed') return;
    // A copy still loading may be behind the store: trip the stored period once it is known.
    if (this.#loading !== undefined) {
      void this.#loading.then(() => this.#owner.trip(reason));
      return;
    }
    const epoch = this.epoch;
    const diverged = this.#diverged;
    // Open here at once, so this process sends nothing more while the store is written.
    this.#applyRecord(epoch, 'failure', now, true);
    if (this.#hub.down) return;
    this.#diverged = diverged;
    this.#writeTrip(epoch, now, true);
  }

  /**
   * The trip as a failure under threshold-1 limits, in the store. When the stored record was newer
   * than this copy and closed (the failure was stale there), that period is tripped, once.
   */
  #writeTrip(epoch: number, now: number, again: boolean): void {
    const gen = this.#gen;
    const { name } = this;
    const limits = tripLimits(this.#owner.options);
    this.#hub
      .call(this.#owner.options.storeTimeoutMs, () =>
        this.#store.breakerRecord(name, epoch, 'failure', now, limits),
      )
      .then(
        (record) => {
          if (again && record.state === 'closed' && record.epoch !== epoch && gen === this.#gen)
            this.#writeTrip(record.epoch, now, false);
          else this.#adopt(record, gen);
        },
        () => {
          this.#diverged = true; // the store is down: this copy is open on its own until it is back
        },
      );
  }

  force(state: 'closed' | 'isolated'): Promise<void> {
    applyForce(this, this.#owner, state);
    // An answer to an earlier force (or a notification of it) must not undo this one; the store
    // will answer this one with the same epoch or a higher one.
    this.#gen++;
    this.#pendingForce = state;
    const written = this.#writeForce(state);
    written.catch(noop); // a caller who does not await is not crashed; the state is written later
    return written;
  }

  idle(): boolean {
    return (
      this.state === 'closed' &&
      this.failures === 0 &&
      this.#pendingForce === undefined &&
      this.#writes === 0 &&
      this.#asking === undefined &&
      this.#loading === undefined
    );
  }

  describe(): object {
    return {
      failureThreshold: this.#owner.options.failureThreshold,
      store: {
        available: this.#hub.available,
        notifies: typeof this.#store.breakerSubscribe === 'function',
        syncIntervalMs: this.syncIntervalMs,
      },
    };
  }

  /** Re-reads the record; `decisive` (the first read, which the first admission waits for) waits up to `probeStoreTimeoutMs`. */
  sync(decisive = false): Promise<void> {
    if (this.#syncing !== undefined) return this.#syncing;
    const options = this.#owner.options;
    const gen = this.#gen;
    const done = (): void => {
      this.syncedAt = this.#owner.options.clock.now();
      this.#syncing = undefined;
    };
    this.#syncing = this.#hub
      .call(
        decisive ? options.probeStoreTimeoutMs : options.storeTimeoutMs,
        () => this.#store.breakerGet(this.name),
        undefined,
        decisive,
      )
      .then((record) => {
        done();
        this.#adopt(record ?? newBreakerRecord(), gen);
      }, done);
    return this.#syncing;
  }

  notify(record: BreakerRecord): void {
    this.#adopt(record, undefined);
  }

  storeUnavailable(error: unknown): void {
    this.#owner.emit('store_unavailable', { name: this.name, error });
  }

  storeRecovered(downMs: number): void {
    this.#owner.emit('store_recovered', { name: this.name, downMs });
    const pending = this.#pendingForce;
    if (pending === undefined) void this.sync();
    else this.#writeForce(pending).catch(noop);
  }

  #admitNow(now: number): Admission | Promise<Admission> {
    const limits = this.#owner.options;
    switch (this.state) {
      case 'closed':
        return { kind: 'call', epoch: this.epoch };
      case 'isolated':
        return ISOLATED;
      case 'open': {
        const wait = this.openedAt + limits.cooldownMs - now;
        if (wait > 0) return { kind: 'reject', retryAfterMs: wait, state: 'open' };
        break;
      }
      case 'half-open':
        if (this.probeUntil > now)
          return { kind: 'reject', retryAfterMs: this.probeUntil - now, state: 'half-open' };
        break;
    }
    // The cooldown is over (or the probe's time is up): the store decides who probes, unless it is
    // known down. A store that is only slow (its writes time out) is asked too, and waited for up
    // to probeStoreTimeoutMs: a process that gave up sooner would probe on its own beside the one
    // the store picked (ARCHITECTURE.md §P4).
    if (this.#hub.down) return this.#applyAdmit(now);
    // This process already asked: its other callers wait for that answer like any non-probe.
    if (this.#asking !== undefined)
      return { kind: 'reject', retryAfterMs: limits.probeTimeoutMs, state: 'half-open' };
    const gen = this.#gen;
    const { name } = this;
    const asking = this.#hub
      .call(
        limits.probeStoreTimeoutMs,
        () => this.#store.breakerAdmit(name, now, limits),
        (late) => this.#giveBack(late),
        true,
      )
      .then(
        (stored): Admission => {
          this.#asking = undefined;
          this.#adopt(stored.record, gen);
          return stored.admission;
        },
        (): Admission => {
          this.#asking = undefined;
          return this.#applyAdmit(this.#owner.options.clock.now());
        },
      );
    this.#asking = asking;
    return asking;
  }

  /** A probe the store granted after we stopped waiting: nobody runs it, so free the slot. */
  #giveBack(late: StoredAdmission): void {
    if (late.admission.kind !== 'probe') return;
    const { name } = this;
    const limits = this.#owner.options;
    const epoch = late.admission.epoch;
    this.#hub
      .call(this.#owner.options.storeTimeoutMs, () =>
        this.#store.breakerRecord(name, epoch, 'neutral', this.#owner.options.clock.now(), limits),
      )
      .catch(noop);
  }

  #writeForce(state: 'closed' | 'isolated'): Promise<void> {
    const gen = this.#gen;
    return this.#hub
      .call(this.#owner.options.storeTimeoutMs, () => this.#store.breakerForce(this.name, state))
      .then((record) => {
        if (this.#pendingForce === state) this.#pendingForce = undefined;
        this.#adopt(record, gen);
      });
  }

  #applyAdmit(now: number): Admission {
    this.#gen++;
    this.#diverged = true;
    return applyAdmit(this, this.#owner, now, this.#owner.options);
  }

  #applyRecord(epoch: number, outcome: BreakerOutcome, now: number, trip?: boolean): void {
    this.#gen++;
    this.#diverged = true;
    applyRecord(this, this.#owner, epoch, outcome, now, this.#owner.options, trip);
  }

  #adopt(record: BreakerRecord, issuedAt: number | undefined): void {
    if (this.#writes > 0 && record.epoch <= this.epoch) return;
    if (!this.#diverged && issuedAt !== this.#gen && record.epoch < this.epoch) return;
    this.#diverged = false;
    this.#gen++;
    const before = this.state;
    copyBreakerRecord(this, record);
    if (before !== this.state) this.#owner.changed(before, this.state);
  }
}
