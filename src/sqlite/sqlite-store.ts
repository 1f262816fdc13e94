import { storeClosed } from '../store/store-close-hooks.js';
import {
  decodeEach,
  isBulkheadRecord,
  isObject,
  isStringArray,
  parseStored,
} from '../store/parse-stored.js';
import { resolve } from 'node:path';
import type Database from 'better-sqlite3';
import type {
  BreakerLimits,
  BreakerOutcome,
  BreakerRecord,
} from '../transitions/breaker-record.js';
import { newBreakerRecord, sameBreakerRecord } from '../transitions/breaker-record.js';
import {
  admitTransition,
  forceTransition,
  recordTransition,
} from '../transitions/breaker-transitions.js';
import type { BreakerState } from '../transitions/breaker-record.js';
import { checkMs, checkOptions, showValue, type OptionKeys } from '../options/validate-options.js';
import type { StoredAdmission } from '../store/breaker-store.js';
import {
  type RetryBudgetGrant,
  type RetryBudgetLimits,
  type RetryBudgetRecord,
  type RetryBudgetTake,
  retryBudgetTakeTransition,
  newRetryBudgetRecord,
} from '../transitions/retry-budget.js';
import type { CheckpointRecord } from '../store/checkpoint-store.js';
import type {
  EscalationDecideResult,
  EscalationDecision,
  EscalationQuery,
  EscalationRecord,
  EscalationState,
} from '../store/escalation-store.js';
import {
  escalationDecideTransition,
  escalationListTransition,
  escalationOpenTransition,
  escalationReopenTransition,
} from '../transitions/escalation.js';
import type { LedgerClaim, LedgerEntry } from '../store/ledger-store.js';
import type { SagaLease, SagaLogEntry } from '../store/saga-log-store.js';
import type { Store } from '../store/store.js';
import type { BulkheadStore } from '../store/bulkhead-store.js';
import {
  type BulkheadRecord,
  bulkheadAcquireTransition,
  bulkheadReleaseTransition,
  bulkheadRenewTransition,
} from '../transitions/bulkhead.js';
import { StoreError } from '../store/store-error.js';
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
import { driverError, type FileIdentity, fileIdentity, sameFile } from './driver-error.js';
import { openDatabase } from './open-database.js';

/** Options of {@link sqliteStore}. */
export interface SqliteStoreOptions {
  /** The database file, created with recourse's tables when missing (its directory must exist). */
  path: string;
  /** How long a transition waits for another process's write lock before failing, ms. Default 5000. */
  busyTimeoutMs?: number;
}

const SQLITE_STORE_KEYS: OptionKeys<SqliteStoreOptions> = { path: true, busyTimeoutMs: true };

interface BreakerRow {
  state: BreakerState;
  epoch: number;
  failures: number;
  opened_at: number;
  probe_until: number;
}
interface LedgerRow {
  key: string;
  state: 'pending' | 'completed';
  owner: string;
  lease_until: number;
  claims: number;
  result: string | null;
  expires_at: number;
}
interface CheckpointRow {
  task_id: string;
  step_index: number;
  state: string;
  checksum: string;
  saved_at: number;
}
interface EscalationRow {
  id: string;
  action: string;
  args: string;
  reason: string;
  deciders: string;
  state: EscalationState;
  round: number;
  created_at: number;
  expires_at: number;
  decided_at: number | null;
  decided_by: string | null;
  note: string | null;
  keep_until: number;
}
interface SagaRow {
  type: SagaLogEntry['type'];
  step: number;
  name: string;
  data: string | null;
  at: number;
}

const SWEEP_EVERY = 256;

function toEntry(row: LedgerRow | undefined): LedgerEntry | undefined {
  if (row === undefined) return undefined;
  const entry: LedgerEntry = {
    key: row.key,
    state: row.state,
    owner: row.owner,
    leaseUntil: row.lease_until,
    claims: row.claims,
    expiresAt: row.expires_at,
  };
  if (row.result !== null) entry.result = row.result;
  return entry;
}

function toEscalation(row: EscalationRow | undefined): EscalationRecord | undefined {
  if (row === undefined) return undefined;
  const r: EscalationRecord = {
    id: row.id,
    action: row.action,
    args: row.args,
    reason: row.reason,
    deciders: parseStored<string[]>(
      row.deciders,
      { what: 'sqliteStore: escalation deciders', key: row.id },
      isStringArray,
      'an array of names',
    ),
    state: row.state,
    round: row.round,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    keepUntil: row.keep_until,
  };
  if (row.decided_at !== null) r.decidedAt = row.decided_at;
  if (row.decided_by !== null) r.decidedBy = row.decided_by;
  if (row.note !== null) r.note = row.note;
  return r;
}

function toBreaker(row: BreakerRow | undefined): BreakerRecord | undefined {
  if (row === undefined) return undefined;
  return {
    state: row.state,
    epoch: row.epoch,
    failures: row.failures,
    openedAt: row.opened_at,
    probeUntil: row.probe_until,
  };
}

// Every transition reads the row, applies the same pure function the memory store uses, and writes
// the result back inside one BEGIN IMMEDIATE transaction: the write lock is taken before the read,
// so concurrent processes are serialised and no two see the same "before".
class SqliteStore implements Store, BulkheadStore {
  readonly #db: Database.Database;
  readonly #path: string;
  readonly #busyTimeoutMs: number;
  /** Absolute, so a later `process.chdir` cannot make the file look gone. */
  readonly #absolutePath: string;
  /** The file opened; undefined for `:memory:`. */
  readonly #identity: FileIdentity | undefined;
  #claimsSinceSweep = 0;
  #closed = false;
  /** Set once the file is found deleted or replaced: every later call fails with it. */
  #gone: StoreError | undefined;

  readonly #breakerAdmit;
  readonly #breakerRecord;
  readonly #breakerForce;
  readonly #breakerGet;
  readonly #ledgerClaim;
  readonly #ledgerRenew;
  readonly #ledgerComplete;
  readonly #ledgerRelease;
  readonly #ledgerGet;
  readonly #saveCheckpoint;
  readonly #loadCheckpoint;
  readonly #sagaAcquire;
  readonly #sagaRenew;
  readonly #sagaRelease;
  readonly #sagaAppend;
  readonly #sagaRead;
  readonly #sagaReset;
  readonly #escalationOpen;
  readonly #escalationGet;
  readonly #escalationDecide;
  readonly #escalationReopen;
  readonly #escalationList;
  #opensSinceSweep = 0;
  readonly #retryBudgetTake;
  readonly #retryBudgetGet;
  readonly #bulkheadApply;

  constructor(db: Database.Database, path: string, busyTimeoutMs: number) {
    this.#db = db;
    this.#path = path;
    this.#busyTimeoutMs = busyTimeoutMs;
    this.#absolutePath = resolve(path);
    this.#identity = path === ':memory:' ? undefined : fileIdentity(this.#absolutePath);

    const getBreaker = db.prepare<[string], BreakerRow>(
      'SELECT state, epoch, failures, opened_at, probe_until FROM recourse_breakers WHERE name = ?',
    );
    const putBreaker = db.prepare<[string, string, number, number, number, number]>(
      `INSERT INTO recourse_breakers (name, state, epoch, failures, opened_at, probe_until) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET state = excluded.state, epoch = excluded.epoch, failures = excluded.failures,
         opened_at = excluded.opened_at, probe_until = excluded.probe_until`,
    );
    const withBreaker = <R>(name: string, apply: (r: BreakerRecord) => R): R => {
      const r = toBreaker(getBreaker.get(name)) ?? newBreakerRecord();
      const before = { ...r };
      const out = apply(r);
      if (!sameBreakerRecord(before, r))
        putBreaker.run(name, r.state, r.epoch, r.failures, r.openedAt, r.probeUntil);
      return out;
    };
    this.#breakerAdmit = db.transaction((name: string, now: number, limits: BreakerLimits) =>
      withBreaker(
        name,
        (r): StoredAdmission => ({ admission: admitTransition(r, now, limits), record: { ...r } }),
      ),
    );
    this.#breakerRecord = db.transaction(
      (name: string, epoch: number, outcome: BreakerOutcome, now: number, limits: BreakerLimits) =>
        withBreaker(name, (r) => {
          recordTransition(r, epoch, outcome, now, limits);
          return { ...r };
        }),
    );
    this.#breakerForce = db.transaction((name: string, state: 'closed' | 'isolated') =>
      withBreaker(name, (r) => {
        forceTransition(r, state);
        return { ...r };
      }),
    );
    this.#breakerGet = (name: string): BreakerRecord | undefined => toBreaker(getBreaker.get(name));

    const getLedger = db.prepare<[string], LedgerRow>(
      'SELECT key, state, owner, lease_until, claims, result, expires_at FROM recourse_ledger WHERE key = ?',
    );
    const putLedger = db.prepare<[string, string, string, number, number, string | null, number]>(
      `INSERT INTO recourse_ledger (key, state, owner, lease_until, claims, result, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET state = excluded.state, owner = excluded.owner, lease_until = excluded.lease_until,
         claims = excluded.claims, result = excluded.result, expires_at = excluded.expires_at`,
    );
    const deleteLedger = db.prepare<[string]>('DELETE FROM recourse_ledger WHERE key = ?');
    const sweepLedger = db.prepare<[number]>(
      "DELETE FROM recourse_ledger WHERE state = 'completed' AND expires_at <= ?",
    );
    const writeLedger = (key: string, write: LedgerWrite): void => {
      if (write === 'keep') return;
      if (write === undefined) deleteLedger.run(key);
      else
        putLedger.run(
          key,
          write.state,
          write.owner,
          write.leaseUntil,
          write.claims,
          write.result ?? null,
          write.expiresAt,
        );
    };
    this.#ledgerClaim = db.transaction(
      (key: string, owner: string, now: number, leaseMs: number): LedgerClaim => {
        if (++this.#claimsSinceSweep >= SWEEP_EVERY) {
          this.#claimsSinceSweep = 0;
          sweepLedger.run(now);
        }
        const { claim, write } = ledgerClaimTransition(
          toEntry(getLedger.get(key)),
          key,
          owner,
          now,
          leaseMs,
        );
        writeLedger(key, write);
        return claim;
      },
    );
    this.#ledgerRenew = db.transaction(
      (key: string, owner: string, now: number, leaseMs: number): boolean => {
        const { ok, write } = ledgerRenewTransition(
          toEntry(getLedger.get(key)),
          owner,
          now,
          leaseMs,
        );
        writeLedger(key, write);
        return ok;
      },
    );
    this.#ledgerComplete = db.transaction(
      (
        key: string,
        owner: string,
        result: string | undefined,
        now: number,
        expiresAt: number,
      ): boolean => {
        const { ok, write } = ledgerCompleteTransition(
          toEntry(getLedger.get(key)),
          owner,
          result,
          now,
          expiresAt,
        );
        writeLedger(key, write);
        return ok;
      },
    );
    this.#ledgerRelease = db.transaction((key: string, owner: string): void => {
      writeLedger(key, ledgerReleaseTransition(toEntry(getLedger.get(key)), owner).write);
    });
    this.#ledgerGet = (key: string): LedgerEntry | undefined => toEntry(getLedger.get(key));

    const putCheckpoint = db.prepare<[string, number, string, string, number]>(
      `INSERT INTO recourse_checkpoints (task_id, step_index, state, checksum, saved_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (task_id) DO UPDATE SET step_index = excluded.step_index, state = excluded.state,
         checksum = excluded.checksum, saved_at = excluded.saved_at`,
    );
    const getCheckpoint = db.prepare<[string], CheckpointRow>(
      'SELECT task_id, step_index, state, checksum, saved_at FROM recourse_checkpoints WHERE task_id = ?',
    );
    this.#saveCheckpoint = (r: CheckpointRecord): void => {
      putCheckpoint.run(r.taskId, r.stepIndex, r.state, r.checksum, r.savedAt);
    };
    this.#loadCheckpoint = (taskId: string): CheckpointRecord | undefined => {
      const row = getCheckpoint.get(taskId);
      if (row === undefined) return undefined;
      return {
        taskId: row.task_id,
        stepIndex: row.step_index,
        state: row.state,
        checksum: row.checksum,
        savedAt: row.saved_at,
      };
    };

    const getLease = db.prepare<[string], { owner: string; lease_until: number }>(
      'SELECT owner, lease_until FROM recourse_saga_leases WHERE saga_id = ?',
    );
    const leaseOf = (sagaId: string): LeaseRecord | undefined => {
      const row = getLease.get(sagaId);
      return row === undefined ? undefined : { owner: row.owner, leaseUntil: row.lease_until };
    };
    const putLease = db.prepare<[string, string, number]>(
      'INSERT INTO recourse_saga_leases (saga_id, owner, lease_until) VALUES (?, ?, ?) ON CONFLICT (saga_id) DO UPDATE SET owner = excluded.owner, lease_until = excluded.lease_until',
    );
    const deleteLease = db.prepare<[string]>('DELETE FROM recourse_saga_leases WHERE saga_id = ?');
    const appendLog = db.prepare<[string, string, string, number, string, string | null, number]>(
      `INSERT INTO recourse_saga_log (saga_id, seq, type, step, name, data, at)
       VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM recourse_saga_log WHERE saga_id = ?), ?, ?, ?, ?, ?)`,
    );
    const readLog = db.prepare<[string], SagaRow>(
      'SELECT type, step, name, data, at FROM recourse_saga_log WHERE saga_id = ? ORDER BY seq',
    );
    const deleteLog = db.prepare<[string]>('DELETE FROM recourse_saga_log WHERE saga_id = ?');
    this.#sagaAcquire = db.transaction(
      (
        sagaId: string,
        owner: string,
        now: number,
        leaseMs: number,
        replacing: string | undefined,
      ): SagaLease => {
        const { acquired, leaseUntil, holder, write } = leaseAcquireTransition(
          leaseOf(sagaId),
          owner,
          now,
          leaseMs,
          replacing,
        );
        if (write !== undefined) putLease.run(sagaId, write.owner, write.leaseUntil);
        return { acquired, leaseUntil, holder };
      },
    );
    this.#sagaRenew = db.transaction(
      (sagaId: string, owner: string, now: number, leaseMs: number): boolean => {
        const { ok, write } = leaseRenewTransition(leaseOf(sagaId), owner, now, leaseMs);
        if (write !== undefined) putLease.run(sagaId, write.owner, write.leaseUntil);
        return ok;
      },
    );
    this.#sagaRelease = db.transaction((sagaId: string, owner: string): void => {
      if (leaseReleaseTransition(leaseOf(sagaId), owner).release) deleteLease.run(sagaId);
    });
    this.#sagaAppend = db.transaction((sagaId: string, owner: string, e: SagaLogEntry): boolean => {
      if (!leaseHeldBy(leaseOf(sagaId), owner)) return false;
      appendLog.run(sagaId, sagaId, e.type, e.step, e.name, e.data ?? null, e.at);
      return true;
    });
    this.#sagaRead = (sagaId: string): SagaLogEntry[] =>
      readLog.all(sagaId).map((row) => {
        const entry: SagaLogEntry = { type: row.type, step: row.step, name: row.name, at: row.at };
        if (row.data !== null) entry.data = row.data;
        return entry;
      });
    this.#sagaReset = db.transaction((sagaId: string, owner: string): boolean => {
      if (!leaseHeldBy(leaseOf(sagaId), owner)) return false;
      deleteLog.run(sagaId);
      return true;
    });

    const getEscalation = db.prepare<[string], EscalationRow>(
      'SELECT * FROM recourse_escalations WHERE id = ?',
    );
    const putEscalation = db.prepare<
      [
        string,
        string,
        string,
        string,
        string,
        string,
        number,
        number,
        number,
        number | null,
        string | null,
        string | null,
        number,
      ]
    >(
      `INSERT INTO recourse_escalations (id, action, args, reason, deciders, state, round, created_at, expires_at, decided_at, decided_by, note, keep_until)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET action = excluded.action, args = excluded.args, reason = excluded.reason, deciders = excluded.deciders,
         state = excluded.state, round = excluded.round, created_at = excluded.created_at, expires_at = excluded.expires_at,
         decided_at = excluded.decided_at, decided_by = excluded.decided_by, note = excluded.note, keep_until = excluded.keep_until`,
    );
    const sweepEscalations = db.prepare<[number]>(
      'DELETE FROM recourse_escalations WHERE keep_until <= ?',
    );
    const keptEscalations = db.prepare<[number], EscalationRow>(
      'SELECT * FROM recourse_escalations WHERE keep_until > ? ORDER BY created_at, id',
    );
    const writeEscalation = (r: EscalationRecord): void => {
      putEscalation.run(
        r.id,
        r.action,
        r.args,
        r.reason,
        JSON.stringify(r.deciders),
        r.state,
        r.round,
        r.createdAt,
        r.expiresAt,
        r.decidedAt ?? null,
        r.decidedBy ?? null,
        r.note ?? null,
        r.keepUntil,
      );
    };
    this.#escalationOpen = db.transaction(
      (record: EscalationRecord, now: number): { created: boolean; record: EscalationRecord } => {
        if (++this.#opensSinceSweep >= SWEEP_EVERY) {
          this.#opensSinceSweep = 0;
          sweepEscalations.run(now);
        }
        const {
          created,
          record: answer,
          write,
        } = escalationOpenTransition(toEscalation(getEscalation.get(record.id)), record, now);
        if (write !== undefined) writeEscalation(write);
        return { created, record: answer };
      },
    );
    this.#escalationGet = (id: string): EscalationRecord | undefined =>
      toEscalation(getEscalation.get(id));
    this.#escalationDecide = db.transaction(
      (id: string, decision: EscalationDecision, now: number): EscalationDecideResult => {
        const { result, write } = escalationDecideTransition(
          toEscalation(getEscalation.get(id)),
          decision,
          now,
        );
        if (write !== undefined) writeEscalation(write);
        return result;
      },
    );
    this.#escalationReopen = db.transaction(
      (
        id: string,
        round: number,
        reason: string,
        now: number,
        expiresAt: number,
        keepUntil: number,
      ): EscalationRecord | undefined => {
        const { record, write } = escalationReopenTransition(
          toEscalation(getEscalation.get(id)),
          round,
          reason,
          now,
          expiresAt,
          keepUntil,
        );
        if (write !== undefined) writeEscalation(write);
        return record;
      },
    );
    // Kept records are few (people decide them); the state as seen at `now` is applied in code.
    this.#escalationList = (query: EscalationQuery): EscalationRecord[] =>
      escalationListTransition(
        decodeEach(keptEscalations.all(query.now), (row) => toEscalation(row)!, query.onCorrupt),
        query,
      );
    // A budget is one small record; JSON keeps its doubles exact (refilledAt with a fraction).
    const getBudget = db.prepare<[string], { record: string }>(
      'SELECT record FROM recourse_budgets WHERE name = ?',
    );
    const putBudget = db.prepare<[string, string]>(
      'INSERT INTO recourse_budgets (name, record) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET record = excluded.record',
    );
    const readBudget = (name: string): RetryBudgetRecord | undefined => {
      const row = getBudget.get(name);
      return row === undefined
        ? undefined
        : parseStored<RetryBudgetRecord>(
            row.record,
            { what: 'sqliteStore: retry budget', key: name, path },
            isObject,
            'a retry budget record',
          );
    };
    this.#retryBudgetTake = db.transaction(
      (
        name: string,
        take: RetryBudgetTake,
        now: number,
        limits: RetryBudgetLimits,
      ): RetryBudgetGrant => {
        const record = readBudget(name) ?? newRetryBudgetRecord(now, limits);
        const grant = retryBudgetTakeTransition(record, take, now, limits);
        putBudget.run(name, JSON.stringify(record));
        return grant;
      },
    );
    this.#retryBudgetGet = readBudget;
    // A bulkhead is one small JSON record; each transition reads and writes it in one transaction.
    const getBulkhead = db.prepare<[string], { record: string }>(
      'SELECT record FROM recourse_bulkheads WHERE name = ?',
    );
    const putBulkhead = db.prepare<[string, string]>(
      'INSERT INTO recourse_bulkheads (name, record) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET record = excluded.record',
    );
    const dropBulkhead = db.prepare<[string]>('DELETE FROM recourse_bulkheads WHERE name = ?');
    this.#bulkheadApply = db.transaction(
      (
        name: string,
        transition: (r: BulkheadRecord | undefined) => BulkheadRecord | undefined,
      ): void => {
        const row = getBulkhead.get(name);
        const write = transition(
          row === undefined
            ? undefined
            : parseStored<BulkheadRecord>(
                row.record,
                { what: 'sqliteStore: bulkhead', key: name, path },
                isBulkheadRecord,
                'a bulkhead record',
              ),
        );
        if (write === undefined) return;
        if (Object.keys(write.slots).length === 0) dropBulkhead.run(name);
        else putBulkhead.run(name, JSON.stringify(write));
      },
    );
  }

  bulkheadAcquire(
    name: string,
    slot: string,
    max: number,
    now: number,
    leaseMs: number,
  ): Promise<boolean> {
    return this.#use('bulkheadAcquire', () => {
      let acquired = false;
      this.#bulkheadApply.immediate(name, (r) => {
        const a = bulkheadAcquireTransition(r, slot, max, now, leaseMs);
        acquired = a.acquired;
        return a.write;
      });
      return acquired;
    });
  }

  bulkheadRenew(name: string, slots: string[], now: number, leaseMs: number): Promise<string[]> {
    return this.#use('bulkheadRenew', () => {
      let held: string[] = [];
      this.#bulkheadApply.immediate(name, (r) => {
        const renewed = bulkheadRenewTransition(r, slots, now, leaseMs);
        held = renewed.held;
        return renewed.write;
      });
      return held;
    });
  }

  bulkheadRelease(name: string, slot: string): Promise<void> {
    return this.#use('bulkheadRelease', () => {
      this.#bulkheadApply.immediate(name, (r) => bulkheadReleaseTransition(r, slot).write);
    });
  }

  /**
   * Runs one operation on the database: refuses when the store is closed or its file is gone, and
   * turns any driver error into a `StoreError` naming the operation and the path.
   */
  #use<R>(operation: string, run: () => R): Promise<R> {
    try {
      if (this.#closed)
        throw new StoreError(
          'closed',
          `sqliteStore: the store for ${JSON.stringify(this.#path)} is closed`,
          this.#path,
        );
      if (this.#gone !== undefined) throw this.#gone;
      if (this.#identity !== undefined) {
        this.#gone = sameFile(this.#absolutePath, this.#path, this.#identity);
        if (this.#gone !== undefined) throw this.#gone;
      }
      return Promise.resolve(run());
    } catch (error) {
      return Promise.reject(driverError(error, operation, this.#path, this.#busyTimeoutMs));
    }
  }

  breakerAdmit(name: string, now: number, limits: BreakerLimits): Promise<StoredAdmission> {
    return this.#use('breakerAdmit', () => this.#breakerAdmit.immediate(name, now, limits));
  }

  breakerRecord(
    name: string,
    epoch: number,
    outcome: BreakerOutcome,
    now: number,
    limits: BreakerLimits,
  ): Promise<BreakerRecord> {
    return this.#use('breakerRecord', () =>
      this.#breakerRecord.immediate(name, epoch, outcome, now, limits),
    );
  }

  breakerGet(name: string): Promise<BreakerRecord | undefined> {
    return this.#use('breakerGet', () => this.#breakerGet(name));
  }

  breakerForce(name: string, state: 'closed' | 'isolated'): Promise<BreakerRecord> {
    return this.#use('breakerForce', () => this.#breakerForce.immediate(name, state));
  }

  ledgerClaim(key: string, owner: string, now: number, leaseMs: number): Promise<LedgerClaim> {
    return this.#use('ledgerClaim', () => this.#ledgerClaim.immediate(key, owner, now, leaseMs));
  }

  ledgerRenew(key: string, owner: string, now: number, leaseMs: number): Promise<boolean> {
    return this.#use('ledgerRenew', () => this.#ledgerRenew.immediate(key, owner, now, leaseMs));
  }

  ledgerComplete(
    key: string,
    owner: string,
    result: string | undefined,
    now: number,
    expiresAt: number,
  ): Promise<boolean> {
    return this.#use('ledgerComplete', () =>
      this.#ledgerComplete.immediate(key, owner, result, now, expiresAt),
    );
  }

  ledgerRelease(key: string, owner: string): Promise<void> {
    return this.#use('ledgerRelease', () => this.#ledgerRelease.immediate(key, owner));
  }

  ledgerGet(key: string): Promise<LedgerEntry | undefined> {
    return this.#use('ledgerGet', () => this.#ledgerGet(key));
  }

  saveCheckpoint(record: CheckpointRecord): Promise<void> {
    return this.#use('saveCheckpoint', () => this.#saveCheckpoint(record));
  }

  loadCheckpoint(taskId: string): Promise<CheckpointRecord | undefined> {
    return this.#use('loadCheckpoint', () => this.#loadCheckpoint(taskId));
  }

  sagaAcquire(
    sagaId: string,
    owner: string,
    now: number,
    leaseMs: number,
    replacing?: string,
  ): Promise<SagaLease> {
    return this.#use('sagaAcquire', () =>
      this.#sagaAcquire.immediate(sagaId, owner, now, leaseMs, replacing),
    );
  }

  sagaRenew(sagaId: string, owner: string, now: number, leaseMs: number): Promise<boolean> {
    return this.#use('sagaRenew', () => this.#sagaRenew.immediate(sagaId, owner, now, leaseMs));
  }

  sagaRelease(sagaId: string, owner: string): Promise<void> {
    return this.#use('sagaRelease', () => this.#sagaRelease.immediate(sagaId, owner));
  }

  sagaAppend(sagaId: string, owner: string, entry: SagaLogEntry): Promise<boolean> {
    return this.#use('sagaAppend', () => this.#sagaAppend.immediate(sagaId, owner, entry));
  }

  sagaRead(sagaId: string): Promise<SagaLogEntry[]> {
    return this.#use('sagaRead', () => this.#sagaRead(sagaId));
  }

  sagaReset(sagaId: string, owner: string): Promise<boolean> {
    return this.#use('sagaReset', () => this.#sagaReset.immediate(sagaId, owner));
  }

  escalationOpen(
    record: EscalationRecord,
    now: number,
  ): Promise<{ created: boolean; record: EscalationRecord }> {
    return this.#use('escalationOpen', () => this.#escalationOpen.immediate(record, now));
  }

  escalationGet(id: string): Promise<EscalationRecord | undefined> {
    return this.#use('escalationGet', () => this.#escalationGet(id));
  }

  escalationDecide(
    id: string,
    decision: EscalationDecision,
    now: number,
  ): Promise<EscalationDecideResult> {
    return this.#use('escalationDecide', () => this.#escalationDecide.immediate(id, decision, now));
  }

  escalationReopen(
    id: string,
    round: number,
    reason: string,
    now: number,
    expiresAt: number,
    keepUntil: number,
  ): Promise<EscalationRecord | undefined> {
    return this.#use('escalationReopen', () =>
      this.#escalationReopen.immediate(id, round, reason, now, expiresAt, keepUntil),
    );
  }

  escalationList(query: EscalationQuery): Promise<EscalationRecord[]> {
    return this.#use('escalationList', () => this.#escalationList(query));
  }

  retryBudgetTake(
    name: string,
    take: RetryBudgetTake,
    now: number,
    limits: RetryBudgetLimits,
  ): Promise<RetryBudgetGrant> {
    return this.#use('retryBudgetTake', () =>
      this.#retryBudgetTake.immediate(name, take, now, limits),
    );
  }

  retryBudgetGet(name: string): Promise<RetryBudgetRecord | undefined> {
    return this.#use('retryBudgetGet', () => this.#retryBudgetGet(name));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    storeClosed(this);
    this.#db.close();
  }
}

/**
 * A store in one SQLite file (better-sqlite3 12), shared by every process on this machine that
 * opens the same path. WAL journal, `busyTimeoutMs` wait for the write lock, and every transition
 * (breaker admission, ledger claim, saga append, …) in one `BEGIN IMMEDIATE` transaction, fsynced
 * on commit: once a method resolves, its effect survives a crash of the process (or the machine).
 * The tables are created, or upgraded, on open. Opening throws `StoreError` (naming the path) when
 * the directory is missing, the file is not a SQLite database (it is left untouched), or it cannot
 * be written. Not for network file systems (SQLite's locking needs a local disk). better-sqlite3 is
 * synchronous: a transition that waits for another process's write lock holds this thread for up
 * to `busyTimeoutMs` (transitions are short, so waits are too). Defaults: busyTimeoutMs 5000.
 *
 * @example
 * import { sqliteStore } from 'agent-recourse/sqlite'
 * const store = sqliteStore({ path: '.agent/state.db' })
 * const ledger = new IdempotencyLedger(store)
 */
export function sqliteStore(options: SqliteStoreOptions): Store & BulkheadStore {
  const o = checkOptions('sqliteStore', options, SQLITE_STORE_KEYS);
  if (typeof o.path !== 'string' || o.path.trim() === '') {
    throw new TypeError(
      `path must be a non-empty string naming the database file, got ${showValue(o.path)}`,
    );
  }
  const busyTimeoutMs =
    o.busyTimeoutMs === undefined ? 5000 : checkMs('busyTimeoutMs', o.busyTimeoutMs);
  return new SqliteStore(openDatabase(o.path, busyTimeoutMs), o.path, busyTimeoutMs);
}
