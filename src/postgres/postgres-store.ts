import { storeClosed } from '../store/store-close-hooks.js';
import { isBulkheadRecord, isObject, parseStored } from '../store/parse-stored.js';
import type { BreakerState } from '../transitions/breaker-record.js';
import { checkMs, checkOptions, type OptionKeys, showValue } from '../options/validate-options.js';
import type { BreakerChangeListener, StoredAdmission } from '../store/breaker-store.js';
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
} from '../store/escalation-store.js';
import type { LedgerClaim, LedgerEntry } from '../store/ledger-store.js';
import type { SagaLease, SagaLogEntry } from '../store/saga-log-store.js';
import { type RateLimitBatchResult, RateLimitBatches } from '../store/rate-limit-batches.js';
import { rateLimitFromJson, rateLimitToJson } from '../store/rate-limit-json.js';
import type { RateLimitStore } from '../store/rate-limit-store.js';
import type { BulkheadStore } from '../store/bulkhead-store.js';
import { type BulkheadRecord, bulkheadRenewTransition } from '../transitions/bulkhead.js';
import type { Store } from '../store/store.js';
import { asStoreError } from '../store/store-error.js';
import type {
  RateLimitAnswer,
  RateLimitRecord,
  RateLimitUpdate,
} from '../transitions/rate-limit.js';
import type {
  BreakerLimits,
  BreakerOutcome,
  BreakerRecord,
} from '../transitions/breaker-record.js';
import {
  announcedChange,
  newBreakerRecord,
  sameBreakerRecord,
} from '../transitions/breaker-record.js';
import {
  admitTransition,
  forceTransition,
  recordTransition,
} from '../transitions/breaker-transitions.js';
import { safeField } from '../text/safe-text.js';
import {
  leaseAcquireTransition,
  type LeaseRecord,
  leaseReleaseTransition,
  leaseRenewTransition,
} from '../transitions/lease.js';
import { ledgerClaimTransition } from '../transitions/ledger.js';
import { BreakerListener, notifyPayload } from './breaker-listener.js';
import { EscalationRows } from './escalation-rows.js';
import { breakerChannel, checkSchemaName, quoteIdent, rowId, textColumn } from './identifiers.js';
import { PgCalls } from './pg-calls.js';
import type { PgClientLike, PgLike } from './pg-like.js';
import { applyToRow, type RowStatements, type Versioned } from './row-cas.js';

/** Options of {@link postgresStore}. */
export interface PostgresStoreOptions {
  /** A connection pool (`new pg.Pool(…)` from `pg` 8+, or anything shaped like {@link PgLike}). It stays yours: `close()` does not end it. */
  pool: PgLike;
  /** The schema holding recourse's tables, created on first use. Default `'recourse'`. */
  schema?: string;
  /** Limit of a ledger, saga or checkpoint call, ms; slower calls reject with `StoreError` `timeout`. Default 5000. */
  timeoutMs?: number;
  /** Limit of a retry-budget, rate-limiter or bulkhead call, ms: the same name and meaning as `retryBudget({ storeTimeoutMs })`, and the shorter of the two applies. Default 250. */
  storeTimeoutMs?: number;
  /** Limit of a breaker call, ms: the same name and meaning as `circuitBreaker({ probeStoreTimeoutMs })`, and the shorter of the two applies. A breaker stops waiting sooner on its own (its `storeTimeoutMs`, for writes and re-reads); the store lets such a call run on up to this limit (a timeout closes its connection, which would lose the write), so a write to a slow server still lands. Default 2000. */
  probeStoreTimeoutMs?: number;
}

const POSTGRES_STORE_KEYS: OptionKeys<PostgresStoreOptions> = {
  pool: true,
  schema: true,
  timeoutMs: true,
  storeTimeoutMs: true,
  probeStoreTimeoutMs: true,
};

/** Expired ledger rows are deleted after every this many claims (and this many at most per sweep). */
const SWEEP_EVERY = 256;
const SWEEP_LIMIT = 1000;
const UNIQUE_VIOLATION = '23505';

interface BreakerRow {
  state: BreakerState;
  epoch: number;
  failures: number;
  opened_at: number;
  probe_until: number;
}
interface LedgerRow {
  state: 'pending' | 'completed';
  owner: string;
  lease_until: number;
  claims: number;
  result: string | null;
  expires_at: number;
}
interface LeaseRow {
  owner: string;
  lease_until: number;
}

const BREAKER_COLUMNS = 'state, epoch::float8 AS epoch, failures, opened_at, probe_until';
const LEDGER_COLUMNS = 'state, owner, lease_until, claims, result, expires_at';

/** A row with its version: bigint comes back as text from pg, so it is read as float8 (exact below 2^53). */
function versioned<Row, V>(
  row: (Row & { version: number }) | undefined,
  value: (row: Row) => V,
): Versioned<V> | undefined {
  return row === undefined ? undefined : { value: value(row), version: row.version };
}

function toBreaker(row: BreakerRow): BreakerRecord {
  return {
    state: row.state,
    epoch: row.epoch,
    failures: row.failures,
    openedAt: row.opened_at,
    probeUntil: row.probe_until,
  };
}

function toEntry(key: string, row: LedgerRow): LedgerEntry {
  const entry: LedgerEntry = {
    key,
    state: row.state,
    owner: row.owner,
    leaseUntil: row.lease_until,
    claims: row.claims,
    expiresAt: row.expires_at,
  };
  if (row.result !== null) entry.result = row.result;
  return entry;
}

function ledgerValues(id: Buffer, e: LedgerEntry): unknown[] {
  return [
    id,
    textColumn(e.key),
    e.state,
    e.owner,
    e.leaseUntil,
    e.claims,
    e.result ?? null,
    e.expiresAt,
  ];
}

/** A breaker row to write, and whether its change is announced to the listening processes. */
interface BreakerWrite {
  record: BreakerRecord;
  announce: boolean;
}

/**
 * Every transition runs on one pooled connection: the row is read, the pure transition recourse
 * exports is applied to it, and the result is written only if the row is still the version read
 * (see `applyToRow` for why that is atomic, absent rows included). A breaker change is written and
 * announced by one statement (`pg_notify` beside the `UPDATE`), so the notification goes out
 * exactly when the change commits; a failure count moving while closed is written unannounced.
 */
class PostgresStore implements Store, RateLimitStore, BulkheadStore {
  readonly #calls: PgCalls;
  readonly #timeoutMs: number;
  readonly #storeTimeoutMs: number;
  readonly #breakerTimeoutMs: number;
  readonly #channel: string;
  readonly #listener: BreakerListener;
  readonly #pool: PgLike;
  readonly #t: {
    breakers: string;
    ledger: string;
    checkpoints: string;
    leases: string;
    log: string;
    budgets: string;
    rateLimits: string;
    bulkheads: string;
  };
  readonly #escalations: EscalationRows;
  readonly #rateLimits = new RateLimitBatches((name, batch) => this.#rateLimitWrite(name, batch));
  #claimsSinceSweep = 0;

  constructor(
    pool: PgLike,
    schema: string,
    timeoutMs: number,
    storeTimeoutMs: number,
    breakerTimeoutMs: number,
  ) {
    this.#pool = pool;
    this.#calls = new PgCalls(pool, schema);
    this.#timeoutMs = timeoutMs;
    this.#storeTimeoutMs = storeTimeoutMs;
    this.#breakerTimeoutMs = breakerTimeoutMs;
    const s = quoteIdent(schema);
    this.#t = {
      breakers: `${s}.breakers`,
      ledger: `${s}.ledger`,
      checkpoints: `${s}.checkpoints`,
      leases: `${s}.saga_leases`,
      log: `${s}.saga_log`,
      budgets: `${s}.budgets`,
      rateLimits: `${s}.rate_limits`,
      bulkheads: `${s}.bulkheads`,
    };
    this.#escalations = new EscalationRows(this.#calls, `${s}.escalations`, timeoutMs);
    this.#channel = breakerChannel(schema);
    this.#listener = new BreakerListener(pool, this.#channel, {
      byIdHex: (idHex) =>
        this.#breakerRows(
          'breakerSubscribe',
          `SELECT name, ${BREAKER_COLUMNS} FROM ${this.#t.breakers} WHERE id = $1`,
          [Buffer.from(idHex, 'hex')],
        ),
      changedSince: (ms, limit) =>
        this.#breakerRows(
          'breakerSubscribe',
          `SELECT name, ${BREAKER_COLUMNS} FROM ${this.#t.breakers} WHERE changed_at >= to_timestamp($1) ORDER BY changed_at LIMIT $2`,
          [ms / 1000, limit],
        ),
    });
    // An idle pooled connection lost while the server restarts makes the pool emit `error`, which
    // would end the process when nobody listens; the pool drops that connection by itself.
    pool.on?.('error', this.#onPoolError);
  }

  readonly #onPoolError = (): void => {};

  #breakerRows(
    operation: string,
    sql: string,
    values: unknown[],
  ): Promise<Array<{ name: string; record: BreakerRecord }>> {
    return this.#calls.run(operation, undefined, this.#timeoutMs, async (client) => {
      const { rows } = await client.query<BreakerRow & { name: string }>(sql, values);
      return rows.map((row) => ({ name: row.name, record: toBreaker(row) }));
    });
  }

  // ── breakers ────────────────────────────────────────────────────────────────────────────────

  #breakerRow(name: string): RowStatements<BreakerRecord, BreakerWrite> {
    const id = rowId(name);
    const t = this.#t.breakers;
    const values = ({ record: r }: BreakerWrite): unknown[] => [
      id,
      textColumn(name),
      r.state,
      r.epoch,
      r.failures,
      r.openedAt,
      r.probeUntil,
    ];
    // Only a change of state, epoch or probe slot is announced (`announcedChange`): a failure
    // count moving while closed would reach every listening process, W² messages for W workers.
    const announce = (w: BreakerWrite, sql: string, n: number): string =>
      w.announce
        ? `WITH w AS (${sql} RETURNING 1) SELECT pg_notify($${n}, $${n + 1}) FROM w`
        : `${sql} RETURNING 1`;
    const notice = (w: BreakerWrite): unknown[] =>
      w.announce ? [this.#channel, notifyPayload(id.toString('hex'), name, w.record)] : [];
    return {
      read: async (client) => {
        const { rows } = await client.query<BreakerRow & { version: number }>(
          `SELECT ${BREAKER_COLUMNS}, version::float8 AS version FROM ${t} WHERE id = $1`,
          [id],
        );
        return versioned(rows[0], toBreaker);
      },
      insert: async (client, w) => {
        const { rows } = await client.query(
          announce(
            w,
            `INSERT INTO ${t} (id, name, state, epoch, failures, opened_at, probe_until) VALUES ($1, $2, $3, $4, $5, $6, $7)
             ON CONFLICT (id) DO NOTHING`,
            8,
          ),
          [...values(w), ...notice(w)],
        );
        return rows.length === 1;
      },
      swap: async (client, expected, w) => {
        const { rows } = await client.query(
          announce(
            w,
            `UPDATE ${t} SET name = $2, state = $3, epoch = $4, failures = $5, opened_at = $6, probe_until = $7, changed_at = now(),
               version = version + 1
             WHERE id = $1 AND version = $8`,
            9,
          ),
          [...values(w), expected, ...notice(w)],
        );
        return rows.length === 1;
      },
      remove: async () => {
        throw new Error('breaker rows are never deleted');
      },
    };
  }

  /** One breaker transition: `apply` changes the record in place; it is written only when it changed, and announced only when `announcedChange` says so. */
  #breakerTransition<R>(
    operation: string,
    name: string,
    apply: (r: BreakerRecord) => R,
  ): Promise<{ out: R; record: BreakerRecord }> {
    const row = this.#breakerRow(name);
    return this.#calls.run(operation, undefined, this.#breakerTimeoutMs, (client) =>
      applyToRow(client, row, (current) => {
        const before = current ?? newBreakerRecord();
        const r = { ...before };
        const out = apply(r);
        const write: BreakerWrite | 'keep' = sameBreakerRecord(before, r)
          ? 'keep'
          : { record: r, announce: announcedChange(before, r) };
        return { result: { out, record: { ...r } }, write };
      }),
    );
  }

  async breakerAdmit(name: string, now: number, limits: BreakerLimits): Promise<StoredAdmission> {
    const { out, record } = await this.#breakerTransition('breakerAdmit', name, (r) =>
      admitTransition(r, now, limits),
    );
    return { admission: out, record };
  }

  async breakerRecord(
    name: string,
    epoch: number,
    outcome: BreakerOutcome,
    now: number,
    limits: BreakerLimits,
  ): Promise<BreakerRecord> {
    return (
      await this.#breakerTransition('breakerRecord', name, (r) =>
        recordTransition(r, epoch, outcome, now, limits),
      )
    ).record;
  }

  async breakerForce(name: string, state: 'closed' | 'isolated'): Promise<BreakerRecord> {
    return (await this.#breakerTransition('breakerForce', name, (r) => forceTransition(r, state)))
      .record;
  }

  breakerGet(name: string): Promise<BreakerRecord | undefined> {
    return this.#calls.run('breakerGet', undefined, this.#breakerTimeoutMs, async (client) => {
      const { rows } = await client.query<BreakerRow>(
        `SELECT ${BREAKER_COLUMNS} FROM ${this.#t.breakers} WHERE id = $1`,
        [rowId(name)],
      );
      return rows[0] === undefined ? undefined : toBreaker(rows[0]);
    });
  }

  breakerSubscribe(listener: BreakerChangeListener): () => void {
    if (this.#calls.closed) throw this.#calls.closedError('breakerSubscribe');
    return this.#listener.subscribe(listener);
  }

  // ── ledger ──────────────────────────────────────────────────────────────────────────────────

  #ledgerRow(key: string): RowStatements<LedgerEntry, LedgerEntry> {
    const id = rowId(key);
    const t = this.#t.ledger;
    return {
      read: async (client) => {
        const { rows } = await client.query<LedgerRow & { version: number }>(
          `SELECT ${LEDGER_COLUMNS}, version::float8 AS version FROM ${t} WHERE id = $1`,
          [id],
        );
        return versioned(rows[0], (row) => toEntry(key, row));
      },
      insert: (client, e) => insertLedger(client, t, id, e),
      swap: async (client, expected, e) => {
        const { rows } = await client.query(
          `UPDATE ${t} SET key = $2, state = $3, owner = $4, lease_until = $5, claims = $6, result = $7, expires_at = $8, version = version + 1
           WHERE id = $1 AND version = $9 RETURNING 1`,
          [...ledgerValues(id, e), expected],
        );
        return rows.length === 1;
      },
      remove: async (client, expected) => {
        const { rows } = await client.query(
          `DELETE FROM ${t} WHERE id = $1 AND version = $2 RETURNING 1`,
          [id, expected],
        );
        return rows.length === 1;
      },
    };
  }

  async ledgerClaim(
    key: string,
    owner: string,
    now: number,
    leaseMs: number,
  ): Promise<LedgerClaim> {
    if (++this.#claimsSinceSweep >= SWEEP_EVERY) {
      this.#claimsSinceSweep = 0;
      this.#sweep(now);
    }
    // A fresh key (the common case) is claimed by one INSERT: the primary key makes it atomic, and
    // it costs one round trip; a key that exists takes the compare-and-swap path.
    const fresh = ledgerClaimTransition(undefined, key, owner, now, leaseMs);
    const id = rowId(key);
    const inserted = await this.#calls.run('ledgerClaim', key, this.#timeoutMs, (client) =>
      insertLedger(client, this.#t.ledger, id, fresh.write as LedgerEntry),
    );
    if (inserted) return fresh.claim;
    const row = this.#ledgerRow(key);
    return this.#calls.run('ledgerClaim', key, this.#timeoutMs, (client) =>
      applyToRow(client, row, (current) => {
        const { claim, write } = ledgerClaimTransition(current, key, owner, now, leaseMs);
        return { result: claim, write };
      }),
    );
  }

  // Renew, complete and release act only on `owner`'s pending claim (ledgerRenewTransition,
  // ledgerCompleteTransition, ledgerReleaseTransition: "held" is `state = 'pending' AND owner = $2`),
  // so each is one UPDATE or DELETE with that condition, atomic on its own: the statement locks the
  // row it changes, and under READ COMMITTED a row changed by a concurrent write is waited for and
  // the condition checked again on the committed version. Each bumps the version, so a claim's
  // compare-and-swap decided before it fails and decides again. One round trip each, so a fresh
  // key's `ledger.run` costs two (the claim's INSERT and the completion).

  ledgerRenew(key: string, owner: string, now: number, leaseMs: number): Promise<boolean> {
    return this.#calls.run('ledgerRenew', key, this.#timeoutMs, async (client) => {
      const { rows } = await client.query(
        `UPDATE ${this.#t.ledger} SET lease_until = $3, version = version + 1 WHERE id = $1 AND state = 'pending' AND owner = $2 RETURNING 1`,
        [rowId(key), owner, now + leaseMs],
      );
      return rows.length === 1;
    });
  }

  ledgerComplete(
    key: string,
    owner: string,
    result: string | undefined,
    now: number,
    expiresAt: number,
  ): Promise<boolean> {
    return this.#calls.run('ledgerComplete', key, this.#timeoutMs, async (client) => {
      const { rows } = await client.query(
        `UPDATE ${this.#t.ledger} SET state = 'completed', lease_until = $3, result = $4, expires_at = $5, version = version + 1
         WHERE id = $1 AND state = 'pending' AND owner = $2 RETURNING 1`,
        [rowId(key), owner, now, result ?? null, expiresAt],
      );
      return rows.length === 1;
    });
  }

  ledgerRelease(key: string, owner: string): Promise<void> {
    return this.#calls.run('ledgerRelease', key, this.#timeoutMs, async (client) => {
      await client.query(
        `DELETE FROM ${this.#t.ledger} WHERE id = $1 AND state = 'pending' AND owner = $2`,
        [rowId(key), owner],
      );
    });
  }

  ledgerGet(key: string): Promise<LedgerEntry | undefined> {
    return this.#calls.run('ledgerGet', key, this.#timeoutMs, async (client) => {
      const { rows } = await client.query<LedgerRow>(
        `SELECT ${LEDGER_COLUMNS} FROM ${this.#t.ledger} WHERE id = $1`,
        [rowId(key)],
      );
      return rows[0] === undefined ? undefined : toEntry(key, rows[0]);
    });
  }

  /**
   * Deletes up to SWEEP_LIMIT expired results, oldest first, in the background. `SKIP LOCKED`: a
   * row some claim is working on is left for the next sweep instead of waited for.
   */
  #sweep(now: number): void {
    const t = this.#t.ledger;
    this.#calls
      .run('sweeping expired ledger entries', undefined, this.#timeoutMs, (client) =>
        client.query(
          `DELETE FROM ${t} WHERE id IN (SELECT id FROM ${t} WHERE state = 'completed' AND expires_at <= $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
          [now, SWEEP_LIMIT],
        ),
      )
      .catch(() => {}); // the next sweep tries again
  }

  // ── checkpoints ─────────────────────────────────────────────────────────────────────────────

  saveCheckpoint(r: CheckpointRecord): Promise<void> {
    // One upsert statement: atomic on its own (the row is locked by the conflict check).
    return this.#calls.run('saveCheckpoint', r.taskId, this.#timeoutMs, async (client) => {
      await client.query(
        `INSERT INTO ${this.#t.checkpoints} (id, task_id, step_index, state, checksum, saved_at) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (id) DO UPDATE SET task_id = excluded.task_id, step_index = excluded.step_index, state = excluded.state,
           checksum = excluded.checksum, saved_at = excluded.saved_at`,
        [rowId(r.taskId), textColumn(r.taskId), r.stepIndex, r.state, r.checksum, r.savedAt],
      );
    });
  }

  loadCheckpoint(taskId: string): Promise<CheckpointRecord | undefined> {
    return this.#calls.run('loadCheckpoint', taskId, this.#timeoutMs, async (client) => {
      const { rows } = await client.query<{
        step_index: number;
        state: string;
        checksum: string;
        saved_at: number;
      }>(`SELECT step_index, state, checksum, saved_at FROM ${this.#t.checkpoints} WHERE id = $1`, [
        rowId(taskId),
      ]);
      const row = rows[0];
      return row === undefined
        ? undefined
        : {
            taskId,
            stepIndex: row.step_index,
            state: row.state,
            checksum: row.checksum,
            savedAt: row.saved_at,
          };
    });
  }

  // ── sagas ───────────────────────────────────────────────────────────────────────────────────

  #leaseRow(sagaId: string): RowStatements<LeaseRecord, LeaseRecord> {
    const id = rowId(sagaId);
    const t = this.#t.leases;
    return {
      read: async (client) => {
        const { rows } = await client.query<LeaseRow & { version: number }>(
          `SELECT owner, lease_until, version::float8 AS version FROM ${t} WHERE id = $1`,
          [id],
        );
        return versioned(rows[0], (row) => ({ owner: row.owner, leaseUntil: row.lease_until }));
      },
      insert: async (client, l) => {
        const { rows } = await client.query(
          `INSERT INTO ${t} (id, saga_id, owner, lease_until) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING RETURNING 1`,
          [id, textColumn(sagaId), l.owner, l.leaseUntil],
        );
        return rows.length === 1;
      },
      swap: async (client, expected, l) => {
        const { rows } = await client.query(
          `UPDATE ${t} SET owner = $2, lease_until = $3, version = version + 1 WHERE id = $1 AND version = $4 RETURNING 1`,
          [id, l.owner, l.leaseUntil, expected],
        );
        return rows.length === 1;
      },
      remove: async (client, expected) => {
        const { rows } = await client.query(
          `DELETE FROM ${t} WHERE id = $1 AND version = $2 RETURNING 1`,
          [id, expected],
        );
        return rows.length === 1;
      },
    };
  }

  sagaAcquire(
    sagaId: string,
    owner: string,
    now: number,
    leaseMs: number,
    replacing?: string,
  ): Promise<SagaLease> {
    const row = this.#leaseRow(sagaId);
    return this.#calls.run('sagaAcquire', sagaId, this.#timeoutMs, (client) =>
      applyToRow(client, row, (current) => {
        const { acquired, leaseUntil, holder, write } = leaseAcquireTransition(
          current,
          owner,
          now,
          leaseMs,
          replacing,
        );
        return { result: { acquired, leaseUntil, holder }, write: write ?? 'keep' };
      }),
    );
  }

  sagaRenew(sagaId: string, owner: string, now: number, leaseMs: number): Promise<boolean> {
    const row = this.#leaseRow(sagaId);
    return this.#calls.run('sagaRenew', sagaId, this.#timeoutMs, (client) =>
      applyToRow(client, row, (current) => {
        const { ok, write } = leaseRenewTransition(current, owner, now, leaseMs);
        return { result: ok, write: write ?? 'keep' };
      }),
    );
  }

  sagaRelease(sagaId: string, owner: string): Promise<void> {
    const row = this.#leaseRow(sagaId);
    return this.#calls.run('sagaRelease', sagaId, this.#timeoutMs, (client) =>
      applyToRow(client, row, (current) => ({
        result: undefined,
        write: leaseReleaseTransition(current, owner).release ? undefined : 'keep',
      })),
    );
  }

  // Fenced writes: one statement that locks the lease row (`FOR UPDATE` in a CTE) only if `owner`
  // holds it, and writes the log only then. A concurrent `sagaAcquire` by another process either
  // commits first (then the lock finds the row changed, checks `owner` again on the new version and
  // writes nothing) or waits for this statement, and reads the log as it left it.

  sagaAppend(sagaId: string, owner: string, e: SagaLogEntry): Promise<boolean> {
    const t = this.#t.log;
    const values = [
      rowId(sagaId),
      owner,
      e.type,
      e.step,
      textColumn(e.name),
      e.data === undefined ? null : textColumn(e.data),
      e.at,
    ];
    return this.#calls.run('sagaAppend', sagaId, this.#timeoutMs, async (client) => {
      for (;;) {
        try {
          const { rows } = await client.query(
            `WITH lease AS (SELECT 1 FROM ${this.#t.leases} WHERE id = $1 AND owner = $2 FOR UPDATE)
             INSERT INTO ${t} (id, seq, type, step, name, data, at)
             SELECT $1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM ${t} WHERE id = $1), $3, $4, $5, $6, $7 FROM lease RETURNING 1`,
            values,
          );
          return rows.length === 1;
        } catch (error) {
          // Two appends of one holder at once: the later one's snapshot missed the earlier line,
          // and the primary key refused its number. Again, with a fresh snapshot.
          if (safeField(error, 'code') !== UNIQUE_VIOLATION) throw error;
        }
      }
    });
  }

  sagaRead(sagaId: string): Promise<SagaLogEntry[]> {
    return this.#calls.run('sagaRead', sagaId, this.#timeoutMs, async (client) => {
      const { rows } = await client.query<{
        type: SagaLogEntry['type'];
        step: number;
        name: string;
        data: string | null;
        at: number;
      }>(`SELECT type, step, name, data, at FROM ${this.#t.log} WHERE id = $1 ORDER BY seq`, [
        rowId(sagaId),
      ]);
      return rows.map((row) => {
        const entry: SagaLogEntry = { type: row.type, step: row.step, name: row.name, at: row.at };
        if (row.data !== null) entry.data = row.data;
        return entry;
      });
    });
  }

  sagaReset(sagaId: string, owner: string): Promise<boolean> {
    return this.#calls.run('sagaReset', sagaId, this.#timeoutMs, async (client) => {
      const { rows } = await client.query<{ held: number }>(
        `WITH lease AS (SELECT 1 FROM ${this.#t.leases} WHERE id = $1 AND owner = $2 FOR UPDATE),
              gone AS (DELETE FROM ${this.#t.log} WHERE id = $1 AND EXISTS (SELECT 1 FROM lease))
         SELECT count(*)::int AS held FROM lease`,
        [rowId(sagaId), owner],
      );
      return rows[0]?.held === 1;
    });
  }

  // ── escalations ─────────────────────────────────────────────────────────────────────────────

  escalationOpen(
    record: EscalationRecord,
    now: number,
  ): Promise<{ created: boolean; record: EscalationRecord }> {
    return this.#escalations.open(record, now);
  }

  escalationGet(id: string): Promise<EscalationRecord | undefined> {
    return this.#escalations.get(id);
  }

  escalationDecide(
    id: string,
    decision: EscalationDecision,
    now: number,
  ): Promise<EscalationDecideResult> {
    return this.#escalations.decide(id, decision, now);
  }

  escalationReopen(
    id: string,
    round: number,
    reason: string,
    now: number,
    expiresAt: number,
    keepUntil: number,
  ): Promise<EscalationRecord | undefined> {
    return this.#escalations.reopen(id, round, reason, now, expiresAt, keepUntil);
  }

  escalationList(query: EscalationQuery): Promise<EscalationRecord[]> {
    return this.#escalations.list(query);
  }

  // ── retry budgets ───────────────────────────────────────────────────────────────────────────

  #budgetRow(name: string): RowStatements<RetryBudgetRecord, RetryBudgetRecord> {
    return jsonRow(
      this.#t.budgets,
      name,
      (r) => JSON.stringify(r),
      (text) =>
        parseStored<RetryBudgetRecord>(
          text,
          { what: 'postgresStore: retry budget', key: name },
          isObject,
          'a retry budget record',
        ),
    );
  }

  retryBudgetTake(
    name: string,
    take: RetryBudgetTake,
    now: number,
    limits: RetryBudgetLimits,
  ): Promise<RetryBudgetGrant> {
    const row = this.#budgetRow(name);
    // A shared budget gives up on the store after its own storeTimeoutMs (250) too.
    return this.#calls.run('retryBudgetTake', undefined, this.#storeTimeoutMs, (client) =>
      applyToRow(client, row, (current) => {
        const r = current ?? newRetryBudgetRecord(now, limits);
        return { result: retryBudgetTakeTransition(r, take, now, limits), write: r };
      }),
    );
  }

  retryBudgetGet(name: string): Promise<RetryBudgetRecord | undefined> {
    return this.#calls.run('retryBudgetGet', undefined, this.#storeTimeoutMs, async (client) => {
      const { rows } = await client.query<{ record: string }>(
        `SELECT record FROM ${this.#t.budgets} WHERE id = $1`,
        [rowId(name)],
      );
      return rows[0] === undefined
        ? undefined
        : parseStored<RetryBudgetRecord>(
            rows[0].record,
            { what: 'postgresStore: retryBudgetGet', key: name },
            isObject,
            'a retry budget record',
          );
    });
  }

  // ── bulkheads: one row per name; renew is a compare-and-swap (see `applyToRow`), acquire and ──
  // ── release one statement each ───────────────────────────────────────────────────────────────

  #bulkhead<R>(
    operation: string,
    name: string,
    transition: (current: BulkheadRecord | undefined) => {
      result: R;
      write: BulkheadRecord | undefined;
    },
  ): Promise<R> {
    const row = jsonRow<BulkheadRecord>(this.#t.bulkheads, name, JSON.stringify, (text) =>
      this.#bulkheadRecord(text, name),
    );
    return this.#calls.run(operation, undefined, this.#storeTimeoutMs, (client) =>
      applyToRow(client, row, (current) => {
        const { result, write } = transition(current);
        return { result, write: write ?? 'keep' };
      }),
    );
  }

  #bulkheadRecord(text: string, name: string): BulkheadRecord {
    return parseStored<BulkheadRecord>(
      text,
      {
        what: `postgresStore: bulkhead in schema ${JSON.stringify(this.#calls.schema)}`,
        key: name,
      },
      isBulkheadRecord,
      'a bulkhead record',
    );
  }

  /**
   * Runs one of the bulkhead's single statements. They read the stored record with PostgreSQL's
   * JSON operators, so a damaged row fails there with a data exception (SQLSTATE class 22); the
   * row is then parsed as the read path would, so the caller gets `corrupt_record` naming it (as
   * from every other record), not an unavailable store.
   */
  async #bulkheadStatement<R>(
    client: PgClientLike,
    name: string,
    statement: () => Promise<R>,
  ): Promise<R> {
    try {
      return await statement();
    } catch (error) {
      if (!String((error as { code?: unknown }).code).startsWith('22')) throw error;
      const { rows } = await client.query<{ record: string }>(
        `SELECT record FROM ${this.#t.bulkheads} WHERE id = $1`,
        [rowId(name)],
      );
      if (rows[0] !== undefined) this.#bulkheadRecord(rows[0].record, name);
      throw error;
    }
  }

  // Acquire and release are one statement each (ARCHITECTURE.md §state.atomic; ≤ 2 round
  // trips per call): the upsert's row lock serialises racing callers, and the statement computes
  // the same transition as `bulkheadAcquireTransition` (lapsed slots dropped; the slot taken when
  // already held or fewer than `max` live others).
  bulkheadAcquire(
    name: string,
    slot: string,
    max: number,
    now: number,
    leaseMs: number,
  ): Promise<boolean> {
    const t = this.#t.bulkheads;
    return this.#calls.run('bulkheadAcquire', undefined, this.#storeTimeoutMs, async (client) => {
      const { rows } = await this.#bulkheadStatement(client, name, () =>
        client.query<{ record: string }>(
          `INSERT INTO ${t} AS b (id, name, record) VALUES ($1, $2, json_build_object('slots', json_build_object($3::text, $5::numeric))::text)
         ON CONFLICT (id) DO UPDATE SET version = b.version + 1, record = (
           WITH live AS (SELECT e.key, e.value::numeric AS until FROM json_each_text((b.record::json)->'slots') e WHERE e.value::numeric > $4::numeric)
           SELECT json_build_object('slots', COALESCE(json_object_agg(x.key, x.until), '{}'::json))::text FROM (
             SELECT key, until FROM live WHERE key <> $3::text
             UNION ALL
             SELECT $3::text, $5::numeric WHERE EXISTS (SELECT 1 FROM live WHERE key = $3::text)
               OR (SELECT count(*) FROM live WHERE key <> $3::text) < $6::int
           ) x)
         RETURNING record`,
          [rowId(name), textColumn(name), slot, now, now + leaseMs, max],
        ),
      );
      // The upsert always returns its row: the slot is in it when it was taken.
      return (
        rows[0] !== undefined &&
        Object.hasOwn(this.#bulkheadRecord(rows[0].record, name).slots, slot)
      );
    });
  }

  bulkheadRenew(name: string, slots: string[], now: number, leaseMs: number): Promise<string[]> {
    return this.#bulkhead('bulkheadRenew', name, (current) => {
      const r = bulkheadRenewTransition(current, slots, now, leaseMs);
      return { result: r.held, write: r.write };
    });
  }

  async bulkheadRelease(name: string, slot: string): Promise<void> {
    const t = this.#t.bulkheads;
    await this.#calls.run('bulkheadRelease', undefined, this.#storeTimeoutMs, async (client) => {
      const { rows } = await this.#bulkheadStatement(client, name, () =>
        client.query(
          `UPDATE ${t} SET record = (record::jsonb #- ARRAY['slots', $2::text])::text, version = version + 1
         WHERE id = $1 AND (record::jsonb -> 'slots') ? $2::text RETURNING id`,
          [rowId(name), slot],
        ),
      );
      if (rows.length > 0) return;
      // Nothing dropped: the slot had lapsed (another caller's acquire dropped it), or the row is
      // JSON the statement cannot see into (slots not an object, a record that is not one). The
      // row is then read as the read path reads it, which says corrupt_record for the latter; the
      // extra round trip is only on this path (ARCHITECTURE.md §state.atomic: the release itself
      // stays one statement).
      const read = await client.query<{ record: string }>(`SELECT record FROM ${t} WHERE id = $1`, [
        rowId(name),
      ]);
      if (read.rows[0] !== undefined) this.#bulkheadRecord(read.rows[0].record, name);
    });
  }

  // ── rate limiters ───────────────────────────────────────────────────────────────────────────

  #rateLimitRow(name: string): RowStatements<RateLimitRecord, RateLimitRecord> {
    return jsonRow(this.#t.rateLimits, name, rateLimitToJson, (text) =>
      this.#rateLimitRecord(text, name),
    );
  }

  #rateLimitRecord(json: string, name: string): RateLimitRecord {
    try {
      return rateLimitFromJson(json, `postgresStore: the rate limiter ${JSON.stringify(name)}`);
    } catch (error) {
      throw asStoreError(
        error,
        `postgresStore: reading a rate limiter in schema ${JSON.stringify(this.#calls.schema)}`,
      );
    }
  }

  /** The batch is applied to the row as read and written only if the row is still that version (see `applyToRow`). */
  #rateLimitWrite(
    name: string,
    batch: (current: RateLimitRecord | undefined) => RateLimitBatchResult,
  ): Promise<RateLimitAnswer[]> {
    const row = this.#rateLimitRow(name);
    return this.#calls.run('rateLimitUpdate', undefined, this.#storeTimeoutMs, (client) =>
      applyToRow(client, row, (current) => {
        const { record, answers } = batch(current);
        return { result: answers, write: record };
      }),
    );
  }

  rateLimitUpdate(name: string, update: RateLimitUpdate, now: number): Promise<RateLimitAnswer> {
    if (this.#calls.closed) return Promise.reject(this.#calls.closedError('rateLimitUpdate'));
    return this.#rateLimits.update(name, update, now);
  }

  rateLimitGet(name: string): Promise<RateLimitRecord | undefined> {
    return this.#calls.run('rateLimitGet', undefined, this.#storeTimeoutMs, async (client) => {
      const { rows } = await client.query<{ record: string }>(
        `SELECT record FROM ${this.#t.rateLimits} WHERE id = $1`,
        [rowId(name)],
      );
      return rows[0] === undefined ? undefined : this.#rateLimitRecord(rows[0].record, name);
    });
  }

  async close(): Promise<void> {
    storeClosed(this);
    this.#listener.stop();
    this.#pool.removeListener?.('error', this.#onPoolError);
    await this.#calls.close();
  }
}

/**
 * A row of a table `(id, name, record, version)` holding one small record per name as JSON text,
 * written by compare-and-swap (retry budgets, rate limiters); such rows are never deleted.
 */
function jsonRow<T>(
  table: string,
  name: string,
  toText: (r: T) => string,
  fromText: (text: string) => T,
): RowStatements<T, T> {
  const id = rowId(name);
  return {
    read: async (client) => {
      const { rows } = await client.query<{ record: string; version: number }>(
        `SELECT record, version::float8 AS version FROM ${table} WHERE id = $1`,
        [id],
      );
      return versioned(rows[0], (row) => fromText(row.record));
    },
    insert: async (client, r) => {
      const { rows } = await client.query(
        `INSERT INTO ${table} (id, name, record) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING RETURNING 1`,
        [id, textColumn(name), toText(r)],
      );
      return rows.length === 1;
    },
    swap: async (client, expected, r) => {
      const { rows } = await client.query(
        `UPDATE ${table} SET record = $2, version = version + 1 WHERE id = $1 AND version = $3 RETURNING 1`,
        [id, toText(r), expected],
      );
      return rows.length === 1;
    },
    remove: async () => {
      throw new Error(`rows of ${table} are never deleted`);
    },
  };
}

async function insertLedger(
  client: PgClientLike,
  table: string,
  id: Buffer,
  e: LedgerEntry,
): Promise<boolean> {
  const { rows } = await client.query(
    `INSERT INTO ${table} (id, key, state, owner, lease_until, claims, result, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (id) DO NOTHING RETURNING 1`,
    ledgerValues(id, e),
  );
  return rows.length === 1;
}

/**
 * A store in PostgreSQL (through `pg` 8+ or any pool shaped like {@link PgLike}), shared by every
 * process that reaches the database: breakers (one probe cluster-wide, changes pushed with
 * `LISTEN/NOTIFY`), the idempotency ledger, checkpoints, saga logs, escalations, retry budgets
 * and rate limiters (`rateLimiter({ store })`, one row per limiter name, never deleted).
 * Every transition applies the pure transition recourse exports to the row as read and writes the
 * result only if the row is still that version (a compare-and-swap; see `applyToRow`), so it holds
 * no lock between round trips; once a method resolves its effect is committed. The schema (default `recourse`) and its tables are created on first use,
 * once even when many processes start together (an advisory lock), and versioned in its
 * `migrations` table. Breaker changes are heard on one connection checked out of the pool while any
 * breaker subscribes (re-opened after an outage). Calls that fail or outlive their limit reject
 * with `StoreError` (breaker, budget and rate-limit calls 250 ms, others `timeoutMs`). Expired ledger results are deleted
 * as claims go by. `close()` waits for running calls and releases the listening connection; the
 * pool stays yours to `end()`. Defaults: schema `'recourse'`, timeoutMs 5000, storeTimeoutMs 250, probeStoreTimeoutMs 2000.
 *
 * @example
 * import pg from 'pg'
 * import { circuitBreaker, IdempotencyLedger } from 'agent-recourse'
 * import { postgresStore } from 'agent-recourse/postgres'
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL })
 * const store = postgresStore({ pool })
 * const model = circuitBreaker({ name: 'claude-opus', store })
 * const ledger = new IdempotencyLedger(store)
 */
export function postgresStore(
  options: PostgresStoreOptions,
): Store & RateLimitStore & BulkheadStore {
  const o = checkOptions('postgresStore', options, POSTGRES_STORE_KEYS);
  const pool = o.pool as Partial<PgLike> | undefined;
  if (typeof pool !== 'object' || pool === null || typeof pool.connect !== 'function') {
    throw new TypeError(
      `pool must be a connection pool with connect() (new pg.Pool(...)), got ${showValue(o.pool)}`,
    );
  }
  const schema = checkSchemaName(o.schema ?? 'recourse');
  const timeoutMs = o.timeoutMs === undefined ? 5000 : checkMs('timeoutMs', o.timeoutMs, 1);
  const storeTimeoutMs =
    o.storeTimeoutMs === undefined ? 250 : checkMs('storeTimeoutMs', o.storeTimeoutMs, 1);
  const probeStoreTimeoutMs =
    o.probeStoreTimeoutMs === undefined
      ? 2000
      : checkMs('probeStoreTimeoutMs', o.probeStoreTimeoutMs, 1);
  return new PostgresStore(pool as PgLike, schema, timeoutMs, storeTimeoutMs, probeStoreTimeoutMs);
}
