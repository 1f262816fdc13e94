import { storeClosed } from './store-close-hooks.js';
import type {
  BreakerLimits,
  BreakerOutcome,
  BreakerRecord,
} from '../transitions/breaker-record.js';
import { MemoryBreakers } from './breaker-memory.js';
import type { BreakerChangeListener, StoredAdmission } from './breaker-store.js';
import {
  type RetryBudgetGrant,
  type RetryBudgetLimits,
  type RetryBudgetRecord,
  type RetryBudgetTake,
  retryBudgetTakeTransition,
  newRetryBudgetRecord,
} from '../transitions/retry-budget.js';
import type { CheckpointRecord } from './checkpoint-store.js';
import type {
  EscalationDecideResult,
  EscalationDecision,
  EscalationQuery,
  EscalationRecord,
} from './escalation-store.js';
import {
  copyEscalation,
  escalationDecideTransition,
  escalationListTransition,
  escalationOpenTransition,
  escalationReopenTransition,
} from '../transitions/escalation.js';
import {
  leaseAcquireTransition,
  leaseHeldBy,
  type LeaseRecord,
  leaseReleaseTransition,
  leaseRenewTransition,
} from '../transitions/lease.js';
import {
  ledgerClaimTransition,
  ledgerCompleteTransition,
  ledgerReleaseTransition,
  ledgerRenewTransition,
  type LedgerWrite,
} from '../transitions/ledger.js';
import type { LedgerClaim, LedgerEntry } from './ledger-store.js';
import type { SagaLease, SagaLogEntry } from './saga-log-store.js';
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
import { StoreError } from './store-error.js';

// Expired results are also dropped when their key is claimed again; this sweep bounds the rest.
const SWEEP_EVERY = 256;

class MemoryStore implements Store, RateLimitStore, BulkheadStore {
  readonly #breakers = new MemoryBreakers();
  readonly #ledger = new Map<string, LedgerEntry>();
  readonly #checkpoints = new Map<string, CheckpointRecord>();
  readonly #sagaLogs = new Map<string, SagaLogEntry[]>();
  readonly #sagaLeases = new Map<string, LeaseRecord>();
  readonly #escalations = new Map<string, EscalationRecord>();
  readonly #budgets = new Map<string, RetryBudgetRecord>();
  readonly #rateLimits = new Map<string, RateLimitRecord>();
  readonly #bulkheads = new Map<string, BulkheadRecord>();
  #claimsSinceSweep = 0;
  #opensSinceSweep = 0;
  #closed = false;

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

  #write(key: string, write: LedgerWrite): void {
    if (write === 'keep') return;
    if (write === undefined) this.#ledger.delete(key);
    else this.#ledger.set(key, write);
  }

  #sweep(now: number): void {
    if (++this.#claimsSinceSweep < SWEEP_EVERY) return;
    this.#claimsSinceSweep = 0;
    for (const [key, entry] of this.#ledger) {
      if (entry.state === 'completed' && entry.expiresAt <= now) this.#ledger.delete(key);
    }
  }

  async ledgerClaim(
    key: string,
    owner: string,
    now: number,
    leaseMs: number,
  ): Promise<LedgerClaim> {
    this.#open();
    this.#sweep(now);
    const { claim, write } = ledgerClaimTransition(this.#ledger.get(key), key, owner, now, leaseMs);
    this.#write(key, write);
    return claim;
  }

  async ledgerRenew(key: string, owner: string, now: number, leaseMs: number): Promise<boolean> {
    this.#open();
    const { ok, write } = ledgerRenewTransition(this.#ledger.get(key), owner, now, leaseMs);
    this.#write(key, write);
    return ok;
  }

  async ledgerComplete(
    key: string,
    owner: string,
    result: string | undefined,
    now: number,
    expiresAt: number,
  ): Promise<boolean> {
    this.#open();
    const { ok, write } = ledgerCompleteTransition(
      this.#ledger.get(key),
      owner,
      result,
      now,
      expiresAt,
    );
    this.#write(key, write);
    return ok;
  }

  async ledgerRelease(key: string, owner: string): Promise<void> {
    this.#open();
    this.#write(key, ledgerReleaseTransition(this.#ledger.get(key), owner).write);
  }

  async ledgerGet(key: string): Promise<LedgerEntry | undefined> {
    this.#open();
    const entry = this.#ledger.get(key);
    return entry === undefined ? undefined : { ...entry };
  }

  async saveCheckpoint(record: CheckpointRecord): Promise<void> {
    this.#open();
    const { taskId, stepIndex, state, checksum, savedAt } = record;
    this.#checkpoints.set(taskId, { taskId, stepIndex, state, checksum, savedAt });
  }

  async loadCheckpoint(taskId: string): Promise<CheckpointRecord | undefined> {
    this.#open();
    const r = this.#checkpoints.get(taskId);
    return r === undefined ? undefined : { ...r };
  }

  async sagaAcquire(
    sagaId: string,
    owner: string,
    now: number,
    leaseMs: number,
    replacing?: string,
  ): Promise<SagaLease> {
    this.#open();
    const { acquired, leaseUntil, holder, write } = leaseAcquireTransition(
      this.#sagaLeases.get(sagaId),
      owner,
      now,
      leaseMs,
      replacing,
    );
    if (write !== undefined) this.#sagaLeases.set(sagaId, write);
    return { acquired, leaseUntil, holder };
  }

  async sagaRenew(sagaId: string, owner: string, now: number, leaseMs: number): Promise<boolean> {
    this.#open();
    const { ok, write } = leaseRenewTransition(this.#sagaLeases.get(sagaId), owner, now, leaseMs);
    if (write !== undefined) this.#sagaLeases.set(sagaId, write);
    return ok;
  }

  async sagaRelease(sagaId: string, owner: string): Promise<void> {
    this.#open();
    if (leaseReleaseTransition(this.#sagaLeases.get(sagaId), owner).release)
      this.#sagaLeases.delete(sagaId);
  }

  async sagaAppend(sagaId: string, owner: string, entry: SagaLogEntry): Promise<boolean> {
    this.#open();
    if (!leaseHeldBy(this.#sagaLeases.get(sagaId), owner)) return false;
    let log = this.#sagaLogs.get(sagaId);
    if (log === undefined) {
      log = [];
      this.#sagaLogs.set(sagaId, log);
    }
    log.push({ ...entry });
    return true;
  }

  async sagaRead(sagaId: string): Promise<SagaLogEntry[]> {
    this.#open();
    return (this.#sagaLogs.get(sagaId) ?? []).map((e) => ({ ...e }));
  }

  async sagaReset(sagaId: string, owner: string): Promise<boolean> {
    this.#open();
    if (!leaseHeldBy(this.#sagaLeases.get(sagaId), owner)) return false;
    this.#sagaLogs.delete(sagaId);
    return true;
  }

  async escalationOpen(
    record: EscalationRecord,
    now: number,
  ): Promise<{ created: boolean; record: EscalationRecord }> {
    this.#open();
    if (++this.#opensSinceSweep >= SWEEP_EVERY) {
      this.#opensSinceSweep = 0;
      for (const [id, r] of this.#escalations) if (r.keepUntil <= now) this.#escalations.delete(id);
    }
    const {
      created,
      record: answer,
      write,
    } = escalationOpenTransition(this.#escalations.get(record.id), record, now);
    if (write !== undefined) this.#escalations.set(write.id, write);
    return { created, record: answer };
  }

  async escalationGet(id: string): Promise<EscalationRecord | undefined> {
    this.#open();
    const r = this.#escalations.get(id);
    return r === undefined ? undefined : copyEscalation(r);
  }

  async escalationDecide(
    id: string,
    decision: EscalationDecision,
    now: number,
  ): Promise<EscalationDecideResult> {
    this.#open();
    const { result, write } = escalationDecideTransition(this.#escalations.get(id), decision, now);
    if (write !== undefined) this.#escalations.set(id, write);
    return result;
  }

  async escalationReopen(
    id: string,
    round: number,
    reason: string,
    now: number,
    expiresAt: number,
    keepUntil: number,
  ): Promise<EscalationRecord | undefined> {
    this.#open();
    const { record, write } = escalationReopenTransition(
      this.#escalations.get(id),
      round,
      reason,
      now,
      expiresAt,
      keepUntil,
    );
    if (write !== undefined) this.#escalations.set(id, write);
    return record;
  }

  async escalationList(query: EscalationQuery): Promise<EscalationRecord[]> {
    this.#open();
    return escalationListTransition(this.#escalations.values(), query);
  }

  async retryBudgetTake(
    name: string,
    take: RetryBudgetTake,
    now: number,
    limits: RetryBudgetLimits,
  ): Promise<RetryBudgetGrant> {
    this.#open();
    let record = this.#budgets.get(name);
    if (record === undefined) {
      record = newRetryBudgetRecord(now, limits);
      this.#budgets.set(name, record);
    }
    return retryBudgetTakeTransition(record, take, now, limits);
  }

  async retryBudgetGet(name: string): Promise<RetryBudgetRecord | undefined> {
    this.#open();
    const r = this.#budgets.get(name);
    return r === undefined ? undefined : { ...r, buckets: r.buckets.map((b) => ({ ...b })) };
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
  return new MemoryStore();
}
