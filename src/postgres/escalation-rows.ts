import { decodeEach, isStringArray, parseStored } from '../store/parse-stored.js';
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
import { rowId, textColumn } from './identifiers.js';
import type { PgCalls } from './pg-calls.js';
import type { PgClientLike } from './pg-like.js';
import { applyToRow, type RowStatements } from './row-cas.js';

interface EscalationRow {
  id_text: string;
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

const COLUMNS =
  'id_text, action, args, reason, deciders, state, round, created_at, expires_at, decided_at, decided_by, note, keep_until';

/** Records past `keepUntil` are deleted after every this many opens. */
const SWEEP_EVERY = 256;

function toRecord(row: EscalationRow): EscalationRecord {
  const r: EscalationRecord = {
    id: row.id_text,
    action: row.action,
    args: row.args,
    reason: row.reason,
    deciders: parseStored<string[]>(
      row.deciders,
      { what: 'postgresStore: escalation deciders', key: row.id_text },
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

function values(id: Buffer, r: EscalationRecord): unknown[] {
  return [
    id,
    textColumn(r.id),
    textColumn(r.action),
    r.args,
    textColumn(r.reason),
    JSON.stringify(r.deciders),
    r.state,
    r.round,
    r.createdAt,
    r.expiresAt,
    r.decidedAt ?? null,
    r.decidedBy === undefined ? null : textColumn(r.decidedBy),
    r.note === undefined ? null : textColumn(r.note),
    r.keepUntil,
  ];
}

/**
 * @internal The `EscalationStore` half of `postgresStore`: each method applies recourse's
 * escalation transitions to the row as a compare-and-swap (see `applyToRow`), so of two people
 * deciding at once exactly one decision is kept.
 */
export class EscalationRows {
  readonly #calls: PgCalls;
  readonly #table: string;
  readonly #timeoutMs: number;
  #opensSinceSweep = 0;

  constructor(calls: PgCalls, table: string, timeoutMs: number) {
    this.#calls = calls;
    this.#table = table;
    this.#timeoutMs = timeoutMs;
  }

  #row(id: string): RowStatements<EscalationRecord, EscalationRecord> {
    const key = rowId(id);
    const t = this.#table;
    return {
      read: async (client) => {
        const { rows } = await client.query<EscalationRow & { version: number }>(
          `SELECT ${COLUMNS}, version::float8 AS version FROM ${t} WHERE id = $1`,
          [key],
        );
        return rows[0] === undefined
          ? undefined
          : { value: toRecord(rows[0]), version: rows[0].version };
      },
      insert: async (client, r) => {
        const { rows } = await client.query(
          `INSERT INTO ${t} (id, ${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) ON CONFLICT (id) DO NOTHING RETURNING 1`,
          values(key, r),
        );
        return rows.length === 1;
      },
      swap: async (client, expected, r) => {
        const { rows } = await client.query(
          `UPDATE ${t} SET id_text = $2, action = $3, args = $4, reason = $5, deciders = $6, state = $7, round = $8, created_at = $9,
             expires_at = $10, decided_at = $11, decided_by = $12, note = $13, keep_until = $14, version = version + 1
           WHERE id = $1 AND version = $15 RETURNING 1`,
          [...values(key, r), expected],
        );
        return rows.length === 1;
      },
      remove: async (client, expected) => {
        const { rows } = await client.query(
          `DELETE FROM ${t} WHERE id = $1 AND version = $2 RETURNING 1`,
          [key, expected],
        );
        return rows.length === 1;
      },
    };
  }

  #transition<R>(
    operation: string,
    id: string,
    decide: (current: EscalationRecord | undefined) => {
      result: R;
      write: EscalationRecord | undefined;
    },
  ): Promise<R> {
    const row = this.#row(id);
    return this.#calls.run(operation, id, this.#timeoutMs, (client) =>
      applyToRow(client, row, (current) => {
        const { result, write } = decide(current);
        return { result, write: write ?? 'keep' };
      }),
    );
  }

  open(
    record: EscalationRecord,
    now: number,
  ): Promise<{ created: boolean; record: EscalationRecord }> {
    if (++this.#opensSinceSweep >= SWEEP_EVERY) {
      this.#opensSinceSweep = 0;
      this.#calls
        .run('sweeping escalations', undefined, this.#timeoutMs, (client) =>
          client.query(`DELETE FROM ${this.#table} WHERE keep_until <= $1`, [now]),
        )
        .catch(() => {});
    }
    return this.#transition('escalationOpen', record.id, (current) => {
      const { created, record: answer, write } = escalationOpenTransition(current, record, now);
      return { result: { created, record: answer }, write };
    });
  }

  get(id: string): Promise<EscalationRecord | undefined> {
    return this.#calls.run('escalationGet', id, this.#timeoutMs, async (client: PgClientLike) => {
      const { rows } = await client.query<EscalationRow>(
        `SELECT ${COLUMNS} FROM ${this.#table} WHERE id = $1`,
        [rowId(id)],
      );
      return rows[0] === undefined ? undefined : toRecord(rows[0]);
    });
  }

  decide(id: string, decision: EscalationDecision, now: number): Promise<EscalationDecideResult> {
    return this.#transition('escalationDecide', id, (current) =>
      escalationDecideTransition(current, decision, now),
    );
  }

  reopen(
    id: string,
    round: number,
    reason: string,
    now: number,
    expiresAt: number,
    keepUntil: number,
  ): Promise<EscalationRecord | undefined> {
    return this.#transition('escalationReopen', id, (current) => {
      const { record, write } = escalationReopenTransition(
        current,
        round,
        reason,
        now,
        expiresAt,
        keepUntil,
      );
      return { result: record, write };
    });
  }

  /** Kept records are few (people decide them): read in order, states as seen at `now` applied in code. */
  list(query: EscalationQuery): Promise<EscalationRecord[]> {
    return this.#calls.run('escalationList', undefined, this.#timeoutMs, async (client) => {
      const { rows } = await client.query<EscalationRow>(
        `SELECT ${COLUMNS} FROM ${this.#table} WHERE keep_until > $1 ORDER BY created_at, id_text`,
        [query.now],
      );
      return escalationListTransition(decodeEach(rows, toRecord, query.onCorrupt), query);
    });
  }
}
