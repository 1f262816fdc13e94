import { checkMs, checkOptions, type OptionKeys, showValue } from '../options/validate-options.js';
import { checkpointPort } from '../state/checkpoint/checkpoint-port.js';
import { escalationPort } from '../state/escalation/escalation-port.js';
import { ledgerPort } from '../state/ledger/ledger-port.js';
import { retryBudgetPort } from '../state/retry-budget/retry-budget-port.js';
import { sagaLogPort } from '../state/saga-log/saga-log-port.js';
import type {
  BreakerChangeListener,
  BreakerStore,
  StoredAdmission,
} from '../store/breaker-store.js';
import type { BulkheadStore } from '../store/bulkhead-store.js';
import { isBulkheadRecord, parseStored } from '../store/parse-stored.js';
import { type RateLimitBatchResult, RateLimitBatches } from '../store/rate-limit-batches.js';
import { rateLimitFromJson, rateLimitToJson } from '../store/rate-limit-json.js';
import type { RateLimitStore } from '../store/rate-limit-store.js';
import { storeClosed } from '../store/store-close-hooks.js';
import { asStoreError } from '../store/store-error.js';
import type { Store } from '../store/store.js';
import type {
  BreakerLimits,
  BreakerOutcome,
  BreakerRecord,
  BreakerState,
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
import { type BulkheadRecord, bulkheadRenewTransition } from '../transitions/bulkhead.js';
import type {
  RateLimitAnswer,
  RateLimitRecord,
  RateLimitUpdate,
} from '../transitions/rate-limit.js';
import { BreakerListener, notifyPayload } from './breaker-listener.js';
import { BreakerPoller } from './breaker-poller.js';
import { breakerChannel, checkSchemaName, quoteIdent, rowId, textColumn } from './identifiers.js';
import { PgCalls } from './pg-calls.js';
import { pgDriver } from './pg-driver.js';
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
  /**
   * How this store hears other processes' breaker changes. `'listen'` (default): one connection of
   * the pool held with `LISTEN` while any breaker subscribes, changes heard at once. `'poll'`: one
   * query on the breakers' change time every `pollIntervalMs`, no connection held, for a pooler in
   * transaction mode (PgBouncer, RDS Proxy, Supabase's pooler), which cannot pass `LISTEN`.
   */
  changes?: 'listen' | 'poll';
  /** With `changes: 'poll'`: how often to ask, ms; a change is heard within about this long. Default 500. */
  pollIntervalMs?: number;
}

const POSTGRES_STORE_KEYS: OptionKeys<PostgresStoreOptions> = {
  pool: true,
  schema: true,
  timeoutMs: true,
  storeTimeoutMs: true,
  probeStoreTimeoutMs: true,
  changes: true,
  pollIntervalMs: true,
};

/** The breaker columns a change-log row keeps. */
const BREAKER_LOG_COLUMNS = 'name, state, epoch, failures, opened_at, probe_until';
/** Change-log rows older than this are deleted, every PRUNE_EVERY announced changes of a process. */
const PRUNE_AFTER_S = 300;
const PRUNE_EVERY = 32;

interface BreakerRow {
  state: BreakerState;
  epoch: number;
  failures: number;
  opened_at: number;
  probe_until: number;
}

const BREAKER_COLUMNS = 'state, epoch::float8 AS epoch, failures, opened_at, probe_until';

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
class PostgresStore implements BreakerStore, RateLimitStore, BulkheadStore {
  readonly #calls: PgCalls;
  /** @internal The pooled calls, shared with the driver of the ported capabilities. */
  get calls(): PgCalls {
    return this.#calls;
  }
  readonly #timeoutMs: number;
  readonly #storeTimeoutMs: number;
  readonly #breakerTimeoutMs: number;
  readonly #channel: string;
  readonly #listener: BreakerListener | BreakerPoller;
  readonly #pool: PgLike;
  readonly #t: {
    breakers: string;
    changes: string;
    leases: string;
    log: string;
    rateLimits: string;
    bulkheads: string;
  };
  readonly #rateLimits = new RateLimitBatches((name, batch) => this.#rateLimitWrite(name, batch));
  #changesLogged = 0;

  constructor(
    pool: PgLike,
    schema: string,
    timeoutMs: number,
    storeTimeoutMs: number,
    breakerTimeoutMs: number,
    pollIntervalMs: number | undefined,
  ) {
    this.#pool = pool;
    this.#calls = new PgCalls(pool, schema);
    this.#timeoutMs = timeoutMs;
    this.#storeTimeoutMs = storeTimeoutMs;
    this.#breakerTimeoutMs = breakerTimeoutMs;
    const s = quoteIdent(schema);
    this.#t = {
      breakers: `${s}.breakers`,
      changes: `${s}.breaker_changes`,
      leases: `${s}.saga_leases`,
      log: `${s}.saga_log`,
      rateLimits: `${s}.rate_limits`,
      bulkheads: `${s}.bulkheads`,
    };
    this.#channel = breakerChannel(schema);
    this.#listener =
      pollIntervalMs === undefined
        ? new BreakerListener(pool, this.#channel, {
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
          })
        : new BreakerPoller(
            (ms, limit) =>
              this.#calls.run('breakerSubscribe', undefined, this.#timeoutMs, async (client) => {
                const { rows } = await client.query<
                  BreakerRow & { name: string; seq: number; at: number }
                >(
                  `SELECT seq::float8 AS seq, extract(epoch FROM at)::float8 * 1000 AS at, name, ${BREAKER_COLUMNS}
                   FROM ${this.#t.changes} WHERE at >= to_timestamp($1) ORDER BY seq LIMIT $2`,
                  [ms / 1000, limit],
                );
                return rows.map((row) => ({
                  seq: row.seq,
                  name: row.name,
                  record: toBreaker(row),
                  at: row.at,
                }));
              }),
            pollIntervalMs,
          );
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
    // An announced change is also appended to the change log in the same statement, for the
    // processes that poll it (`changes: 'poll'`), whichever way the writer itself hears changes.
    const announce = (w: BreakerWrite, sql: string, n: number): string =>
      w.announce
        ? `WITH w AS (${sql} RETURNING ${BREAKER_LOG_COLUMNS}),
             c AS (INSERT INTO ${this.#t.changes} (${BREAKER_LOG_COLUMNS}) SELECT ${BREAKER_LOG_COLUMNS} FROM w)
           SELECT pg_notify($${n}, $${n + 1}) FROM w`
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
    return this.#calls
      .run(operation, undefined, this.#breakerTimeoutMs, (client) =>
        applyToRow(
          client,
          row,
          (current) => {
            const before = current ?? newBreakerRecord();
            const r = { ...before };
            const out = apply(r);
            const write: BreakerWrite | 'keep' = sameBreakerRecord(before, r)
              ? 'keep'
              : { record: r, announce: announcedChange(before, r) };
            if (write !== 'keep' && write.announce) this.#changesLogged++;
            return { result: { out, record: { ...r } }, write };
          },
          name,
        ),
      )
      .finally(() => this.#pruneChanges());
  }

  /** Every PRUNE_EVERY announced changes this process wrote, deletes log rows older than PRUNE_AFTER_S. */
  #pruneChanges(): void {
    if (this.#changesLogged < PRUNE_EVERY || this.#calls.closed) return;
    this.#changesLogged = 0;
    void this.#calls
      .run('breakerPrune', undefined, this.#timeoutMs, (client) =>
        client.query(
          `DELETE FROM ${this.#t.changes} WHERE at < now() - interval '${PRUNE_AFTER_S} seconds'`,
        ),
      )
      .catch(() => {}); // the next prune deletes them
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
      applyToRow(
        client,
        row,
        (current) => {
          const { result, write } = transition(current);
          return { result, write: write ?? 'keep' };
        },
        name,
      ),
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
      applyToRow(
        client,
        row,
        (current) => {
          const { record, answers } = batch(current);
          return { result: answers, write: record };
        },
        name,
      ),
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

/**
 * A store in PostgreSQL (through `pg` 8+ or any pool shaped like {@link PgLike}), shared by every
 * process that reaches the database: breakers (one probe cluster-wide, changes pushed with
 * `LISTEN/NOTIFY`, or polled with `changes: 'poll'` behind a pooler in transaction mode), the idempotency ledger, checkpoints, saga logs, escalations, retry budgets
 * and rate limiters (`rateLimiter({ store })`, one row per limiter name, never deleted).
 * Every transition applies the pure transition recourse exports to the row as read and writes the
 * result only if the row is still that version (a compare-and-swap; see `applyToRow`), so it holds
 * no lock between round trips; once a method resolves its effect is committed. The schema (default `recourse`) and its tables are created on first use,
 * once even when many processes start together (an advisory lock), and versioned in its
 * `migrations` table. Breaker changes are heard on one connection checked out of the pool while any
 * breaker subscribes (re-opened after an outage). Calls that fail or outlive their limit reject
 * with `StoreError` (breaker, budget and rate-limit calls 250 ms, others `timeoutMs`). Expired ledger results are deleted
 * as claims go by. `close()` waits for running calls and releases the listening connection; the
 * pool stays yours to `end()`. Defaults: schema `'recourse'`, timeoutMs 5000, storeTimeoutMs 250, probeStoreTimeoutMs 2000, changes `'listen'` (pollIntervalMs 500 with `'poll'`).
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
  if (o.changes !== undefined && o.changes !== 'listen' && o.changes !== 'poll')
    throw new TypeError(`changes must be 'listen' or 'poll', got ${showValue(o.changes)}`);
  if (o.pollIntervalMs !== undefined && o.changes !== 'poll')
    throw new TypeError(
      `pollIntervalMs applies only with changes: 'poll' (changes is ${showValue(o.changes ?? 'listen')})`,
    );
  const pollIntervalMs =
    o.changes !== 'poll'
      ? undefined
      : o.pollIntervalMs === undefined
        ? 500
        : checkMs('pollIntervalMs', o.pollIntervalMs, 10);
  const store = new PostgresStore(
    pool as PgLike,
    schema,
    timeoutMs,
    storeTimeoutMs,
    probeStoreTimeoutMs,
    pollIntervalMs,
  );
  // The ledger, checkpoints, escalations and budgets are the ports over the PostgreSQL driver; a
  // budget call has the budget's limit (storeTimeoutMs), the others timeoutMs.
  const driver = pgDriver(store.calls, schema, {
    timeoutMs: (collection) => (collection === 'budgets' ? storeTimeoutMs : timeoutMs),
  });
  return Object.assign(store, {
    ...ledgerPort(driver),
    ...checkpointPort(driver),
    ...escalationPort(driver),
    ...retryBudgetPort(driver),
    ...sagaLogPort(driver),
  });
}
