import { memoryDriver } from '../state/engine/memory-driver.js';
import type { StateDriver } from '../state/engine/driver.js';
import type {
  BreakerLimits,
  BreakerOutcome,
  BreakerRecord,
} from '../transitions/breaker-record.js';
import { MemoryBreakers } from './breaker-memory.js';
import type { BreakerChangeListener, BreakerStore, StoredAdmission } from './breaker-store.js';
import type { RateLimitStore } from './rate-limit-store.js';
import type { Store } from './store.js';
import {
  copyRateLimitRecord,
  newRateLimitRecord,
  type RateLimitAnswer,
  type RateLimitRecord,
  rateLimitTransition,
  type RateLimitUpdate,
} from '../transitions/rate-limit.js';
import {
  type BulkheadRecord,
  bulkheadAcquireTransition,
  bulkheadReleaseTransition,
  bulkheadRenewTransition,
} from '../transitions/bulkhead.js';
import type { BulkheadStore } from './bulkhead-store.js';
import { capabilityPorts } from './capability-ports.js';
import { storeClosed } from './store-close-hooks.js';
import { StoreError } from './store-error.js';

class MemoryStore implements BreakerStore, RateLimitStore, BulkheadStore {
  readonly #driver: StateDriver;
  readonly #breakers = new MemoryBreakers();
  readonly #rateLimits = new Map<string, RateLimitRecord>();
  readonly #bulkheads = new Map<string, BulkheadRecord>();
  #closed = false;

  constructor(driver: StateDriver) {
    this.#driver = driver;
  }

  // Every method runs synchronously between two awaits, so each is atomic within the process.
  #open(): void {
    if (this.#closed) throw new StoreError('closed', 'memoryStore: the store is closed');
  }

  async breakerAdmit(name: string, now: number, limits: BreakerLimits): Promise<StoredAdmission> {
    this.#open();
    return this.#breakers.admit(name, now, limits);
  }

  async breakerRecord(
    name: string,
    epoch: number,
    outcome: BreakerOutcome,
    now: number,
    limits: BreakerLimits,
  ): Promise<BreakerRecord> {
    this.#open();
    return this.#breakers.record(name, epoch, outcome, now, limits);
  }

  async breakerGet(name: string): Promise<BreakerRecord | undefined> {
    this.#open();
    return this.#breakers.get(name);
  }

  async breakerForce(name: string, state: 'closed' | 'isolated'): Promise<BreakerRecord> {
    this.#open();
    return this.#breakers.force(name, state);
  }

  breakerSubscribe(listener: BreakerChangeListener): () => void {
    return this.#breakers.subscribe(listener);
  }

  async rateLimitUpdate(
    name: string,
    update: RateLimitUpdate,
    now: number,
  ): Promise<RateLimitAnswer> {
    this.#open();
    let record = this.#rateLimits.get(name);
    if (record === undefined) {
      record = newRateLimitRecord(now);
      this.#rateLimits.set(name, record);
    }
    return rateLimitTransition(record, update, now);
  }

  async rateLimitGet(name: string): Promise<RateLimitRecord | undefined> {
    this.#open();
    const r = this.#rateLimits.get(name);
    return r === undefined ? undefined : copyRateLimitRecord(r);
  }

  #bulkheadWrite(name: string, write: BulkheadRecord | undefined): void {
    if (write === undefined) return;
    if (Object.keys(write.slots).length === 0) this.#bulkheads.delete(name);
    else this.#bulkheads.set(name, write);
  }

  async bulkheadAcquire(
    name: string,
    slot: string,
    max: number,
    now: number,
    leaseMs: number,
  ): Promise<boolean> {
    this.#open();
    const a = bulkheadAcquireTransition(this.#bulkheads.get(name), slot, max, now, leaseMs);
    this.#bulkheadWrite(name, a.write);
    return a.acquired;
  }

  async bulkheadRenew(
    name: string,
    slots: string[],
    now: number,
    leaseMs: number,
  ): Promise<string[]> {
    this.#open();
    const r = bulkheadRenewTransition(this.#bulkheads.get(name), slots, now, leaseMs);
    this.#bulkheadWrite(name, r.write);
    return r.held;
  }

  async bulkheadRelease(name: string, slot: string): Promise<void> {
    this.#open();
    this.#bulkheadWrite(name, bulkheadReleaseTransition(this.#bulkheads.get(name), slot).write);
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#driver.close();
    storeClosed(this);
  }
}

/**
 * A store in this process's memory: breakers, ledger, checkpoints, saga logs, escalations, retry
 * budgets and rate limiters shared by
 * everything in the process that uses this object, atomic per call, and lost when the process
 * exits. Use `sqliteStore` (`agent-recourse/sqlite`) to share state between processes or survive a crash.
 *
 * @example
 * const store = memoryStore()
 * const ledger = new IdempotencyLedger(store)
 * const steps = new Checkpointer(store)
 */
export function memoryStore(): Store & RateLimitStore & BulkheadStore {
  // The ledger, checkpoints, sagas, escalations and budgets are the ports over the memory driver.
  const driver = memoryDriver({ label: 'memoryStore' });
  return Object.assign(new MemoryStore(driver), capabilityPorts(driver));
}
