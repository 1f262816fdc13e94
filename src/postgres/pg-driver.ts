import type {
  Collection,
  ScanOptions,
  ScannedRecord,
  StateDriver,
  Versioned,
  WriteOptions,
} from '../state/engine/driver.js';
import {
  layoutColumn,
  layoutColumns,
  layoutValue,
  type SqlLayout,
} from '../state/engine/sql-layout.js';
import { quoteIdent, rowId, textColumn } from './identifiers.js';
import type { PgCalls } from './pg-calls.js';
import type { PgClientLike } from './pg-like.js';

type Row = Record<string, unknown>;

/** A table's layout; `scoped`: the shared table of JSON records, one `collection` column per collection. */
type Layout = SqlLayout & { readonly scoped?: true };

/** Every table is keyed by `id`, the key's sha256 (`rowId`), so a key column named `id` is kept as `id_text`. */
const pgLayouts = new WeakMap<SqlLayout, Layout>();
function pgLayout(l: SqlLayout): Layout {
  let found = pgLayouts.get(l);
  if (found === undefined)
    pgLayouts.set(l, (found = l.key === 'id' ? { ...l, key: 'id_text' } : l));
  return found;
}

const RECORDS: Layout = {
  table: '_records',
  key: 'key',
  scoped: true,
  columns: [['*', 'value', 'json']],
};

interface SagaRow {
  lease: { owner: string; leaseUntil: number; version: number } | null;
  entries: Row[] | null;
}

/**
 * The sagas collection on the tables it has had since version 1: the writer's lease in
 * `saga_leases` (whose version is the record's; a saga whose lease was given up reads as version 0),
 * its log one row per line in `saga_log`. Every write is one statement: the lease row's
 * compare-and-swap, and only when it lands, the log's new lines (the port only appends lines or
 * empties the log) — so an append or reset is fenced by the lease as one atomic step.
 */
function sagaStatements(s: string) {
  const leases = `${s}.saga_leases`;
  const log = `${s}.saga_log`;
  const write = async (
    client: PgClientLike,
    key: string,
    expected: number | undefined,
    value: Row | undefined,
  ): Promise<boolean> => {
    const args: unknown[] = [rowId(key)];
    const p = (v: unknown, type: string): string => {
      args.push(v);
      return `$${args.length}::${type}`;
    };
    const lease = value?.lease as { owner: string; leaseUntil: number } | undefined;
    let change: string;
    if (expected === undefined) {
      if (lease === undefined) throw new Error('postgresStore: a saga is inserted with its lease');
      change = `u AS (INSERT INTO ${leases} (id, saga_id, owner, lease_until) VALUES ($1, ${p(textColumn(key), 'text')}, ${p(lease.owner, 'text')}, ${p(lease.leaseUntil, 'float8')}) ON CONFLICT (id) DO NOTHING RETURNING 1)`;
    } else if (lease === undefined) {
      change = `u AS (DELETE FROM ${leases} WHERE id = $1 AND version = ${p(expected, 'bigint')} RETURNING 1)`;
    } else {
      const [owner, until, exp] = [
        p(lease.owner, 'text'),
        p(lease.leaseUntil, 'float8'),
        p(expected, 'bigint'),
      ];
      // A saga whose lease was given up has no lease row: taking it inserts one at version 1.
      change = `u1 AS (UPDATE ${leases} SET owner = ${owner}, lease_until = ${until}, version = version + 1 WHERE id = $1 AND version = ${exp} RETURNING 1),
        u2 AS (INSERT INTO ${leases} (id, saga_id, owner, lease_until, version) SELECT $1, ${p(textColumn(key), 'text')}, ${owner}, ${until}, 1
          WHERE ${exp} = 0 AND NOT EXISTS (SELECT 1 FROM u1) ON CONFLICT (id) DO NOTHING RETURNING 1),
        u AS (SELECT 1 FROM u1 UNION ALL SELECT 1 FROM u2)`;
    }
    const entries = (value?.entries ?? []) as Row[];
    const column = (field: string, type: string, text = false) =>
      p(
        entries.map((e) => {
          const v = e[field];
          return v === undefined ? null : text && typeof v === 'string' ? textColumn(v) : v;
        }),
        `${type}[]`,
      );
    const lines =
      entries.length === 0
        ? `DELETE FROM ${log} WHERE id = $1 AND EXISTS (SELECT 1 FROM u)`
        : `INSERT INTO ${log} (id, seq, type, step, name, data, at) SELECT $1, e.n, e.type, e.step, e.name, e.data, e.at
           FROM unnest(${column('type', 'text')}, ${column('step', 'int')}, ${column('name', 'text', true)}, ${column('data', 'text', true)}, ${column('at', 'float8')})
             WITH ORDINALITY AS e(type, step, name, data, at, n)
           WHERE EXISTS (SELECT 1 FROM u) AND e.n > (SELECT count(*) FROM ${log} WHERE id = $1)`;
    const { rows } = await client.query<{ n: number }>(
      `WITH ${change}, lines AS (${lines}) SELECT count(*)::int AS n FROM u`,
      args,
    );
    return rows[0]?.n === 1;
  };
  return {
    async read(client: PgClientLike, key: string): Promise<Versioned<Row> | undefined> {
      const { rows } = await client.query<SagaRow>(
        `SELECT (SELECT json_build_object('owner', owner, 'leaseUntil', lease_until, 'version', version) FROM ${leases} WHERE id = $1) AS lease,
          (SELECT json_agg(json_build_object('type', type, 'step', step, 'name', name, 'data', data, 'at', at) ORDER BY seq) FROM ${log} WHERE id = $1) AS entries`,
        [rowId(key)],
      );
      const { lease, entries } = rows[0] ?? { lease: null, entries: null };
      if (lease === null && entries === null) return undefined;
      const value: Row = {
        entries: (entries ?? []).map(({ data, ...line }) =>
          data === null ? line : { ...line, data },
        ),
      };
      if (lease !== null) value.lease = { owner: lease.owner, leaseUntil: lease.leaseUntil };
      return { value, version: lease?.version ?? 0 };
    },
    write,
  };
}

type Work<R> = (client: PgClientLike, l: Layout, t: string) => Promise<R>;
type Run = <R>(
  c: Collection<unknown>,
  operation: string,
  key: string | undefined,
  work: Work<R>,
) => Promise<R>;
type PgDriver = StateDriver & Required<Pick<StateDriver, 'put' | 'update' | 'purge'>>;

/** Options of {@link pgDriver}. */
export interface PgDriverOptions {
  /** The limit of one statement on records of `collection`, ms. */
  timeoutMs(collection: string): number;
  /** The clock `expiresAt` is judged by (collections without a table only). Default `Date.now`. */
  now?: () => number;
}

/**
 * @internal The PostgreSQL {@link StateDriver} over recourse's tables as migrated (`schema.ts`):
 * each operation is one statement, atomic on its own — a compare-and-swap is
 * `UPDATE … WHERE version = $expected` (READ COMMITTED re-checks it on the committed row), an
 * insert `ON CONFLICT DO NOTHING`. Besides the contract: `put` (one upsert), `update` (one
 * conditional `UPDATE`/`DELETE` on fields, the ledger's renew, complete and release in one round
 * trip) and `purge` (an indexed delete of expired rows, `SKIP LOCKED`). Collections without a
 * table of their own (the conformance cases) share `_records`, created the first time one is used.
 * Errors are `StoreError`s naming the statement and key (see `PgCalls`).
 *
 * @example
 * const driver = pgDriver(calls, 'recourse', { timeoutMs: () => 5000 })
 */
export function pgDriver(
  calls: PgCalls,
  schema: string,
  options: PgDriverOptions,
): PgDriver & Required<Pick<StateDriver, 'session'>> {
  const s = quoteIdent(schema);
  const now = options.now ?? Date.now;
  let records: Promise<void> | undefined;
  const sagas = sagaStatements(s);
  const columnOf = layoutColumn;
  /** Runs `work` on `client` for collection `c`: its layout and table (the shared one made on first use). */
  const onClient = async <R>(client: PgClientLike, c: Collection<unknown>, work: Work<R>) => {
    const l = c.sql === undefined ? RECORDS : pgLayout(c.sql);
    // The sagas have tables of their own (`sagaStatements`), not the shared one.
    if (l === RECORDS && c.name !== 'sagas') {
      records ??= client
        .query(
          `CREATE TABLE IF NOT EXISTS ${s}._records (collection text NOT NULL, id bytea NOT NULL, key text NOT NULL, value text NOT NULL, version bigint NOT NULL DEFAULT 0, expires_at double precision, PRIMARY KEY (collection, id))`,
        )
        .then(() => {});
      await records.catch((error: unknown) => {
        records = undefined;
        throw error;
      });
    }
    return work(client, l, `${s}.${quoteIdent(l.table)}`);
  };
  /** Each statement on a connection of its own, within the collection's limit. */
  const direct: Run = (c, operation, key, work) =>
    calls.run(`${operation} ${c.name}`, key, options.timeoutMs(c.name), (client) =>
      onClient(client, c, work),
    );
  // `$1` is always the id, `$2` the collection of a shared table; the rest follow.
  const where = (l: Layout): string => (l.scoped ? 'id = $1 AND collection = $2' : 'id = $1');
  const head = (l: Layout, name: string, key: string): unknown[] =>
    l.scoped ? [rowId(key), name] : [rowId(key)];
  const live = (l: Layout, n: number): string =>
    l.scoped ? ` AND (expires_at IS NULL OR expires_at > $${n})` : '';
  const select = (l: Layout): string =>
    `SELECT ${l.key} AS k, ${l.columns.map(([, c]) => c).join(', ')}${l.versioned === false ? ', 0' : ', version::float8'} AS version`;
  const toValue = (l: Layout, row: Row, key: string): Row =>
    layoutValue(l, row, key, `postgresStore: ${l.table}`);
  const values = (l: Layout, key: string, value: unknown): unknown[] => [
    textColumn(key),
    ...layoutColumns(l, value as Row, textColumn),
  ];
  const insertSql = (l: Layout, t: string): string => {
    const cols = [
      ...(l.scoped ? ['id', 'collection'] : ['id']),
      l.key,
      ...l.columns.map(([, c]) => c),
    ];
    const extra = l.scoped ? ', expires_at' : '';
    return `INSERT INTO ${t} AS r (${cols.join(', ')}${extra}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(', ')}${l.scoped ? `, $${cols.length + 1}` : ''})`;
  };
  const setSql = (l: Layout, from: number): string =>
    [l.key, ...l.columns.map(([, c]) => c)].map((c, i) => `${c} = $${from + i}`).join(', ');
  const expiry = (l: Layout, o: WriteOptions | undefined): unknown[] =>
    l.scoped ? [o?.expiresAt ?? null] : [];

  const methods = (run: Run): PgDriver => ({
    read: <R>(c: Collection<R>, key: string) =>
      run(c as Collection<unknown>, 'read', key, async (client, l, t) => {
        if (c.name === 'sagas') {
          const read = await sagas.read(client, key);
          return read && { value: c.parse(read.value, key), version: read.version };
        }
        const args = [...head(l, c.name, key), ...(l.scoped ? [now()] : [])];
        const { rows } = await client.query<Row & { version: number }>(
          `${select(l)} FROM ${t} WHERE ${where(l)}${live(l, args.length)}`,
          args,
        );
        const row = rows[0];
        if (row === undefined) return undefined;
        return { value: c.parse(toValue(l, row, key), key), version: row.version } as Versioned<R>;
      }),
    insert: (c, key, value, o) =>
      run(c as Collection<unknown>, 'insert', key, async (client, l, t) => {
        if (c.name === 'sagas') return sagas.write(client, key, undefined, value as Row);
        const args = [...head(l, c.name, key), ...values(l, key, value), ...expiry(l, o)];
        // A shared-table row past its expiry counts as absent: the insert replaces it.
        const conflict = l.scoped
          ? ` ON CONFLICT (collection, id) DO UPDATE SET ${setSql(l, 3)}, expires_at = $${args.length}, version = 0 WHERE r.expires_at <= $${args.length + 1}`
          : ' ON CONFLICT (id) DO NOTHING';
        const { rows } = await client.query(`${insertSql(l, t)}${conflict} RETURNING 1`, [
          ...args,
          ...(l.scoped ? [now()] : []),
        ]);
        return rows.length === 1;
      }),
    compareAndSwap: (c, key, expected, value, o) =>
      run(c as Collection<unknown>, 'compareAndSwap', key, async (client, l, t) => {
        if (c.name === 'sagas') return sagas.write(client, key, expected, value as Row);
        if (l.versioned === false) throw new Error(`postgresStore: ${l.table} rows are only put`);
        const h = head(l, c.name, key);
        const args = [...h, ...values(l, key, value), expected, ...expiry(l, o)];
        const n = h.length + 1 + l.columns.length + 1;
        const expires = l.scoped ? `, expires_at = $${n + 1}` : '';
        const { rows } = await client.query(
          `UPDATE ${t} SET ${setSql(l, h.length + 1)}${expires}, version = version + 1 WHERE ${where(l)} AND version = $${n}${live(l, args.length + 1)} RETURNING 1`,
          [...args, ...(l.scoped ? [now()] : [])],
        );
        return rows.length === 1;
      }),
    remove: (c, key, expected) =>
      run(c as Collection<unknown>, 'remove', key, async (client, l, t) => {
        if (c.name === 'sagas') return sagas.write(client, key, expected, undefined);
        const args = [...head(l, c.name, key), expected];
        const { rows } = await client.query(
          `DELETE FROM ${t} WHERE ${where(l)} AND version = $${args.length} RETURNING 1`,
          args,
        );
        return rows.length === 1;
      }),
    scan: <R>(c: Collection<R>, scan: ScanOptions = {}) =>
      run(c as Collection<unknown>, 'scan', undefined, async (client, l, t) => {
        const args: unknown[] = [scan.prefix ?? ''];
        let sql = `${select(l)} FROM ${t} WHERE left(${l.key}, length($1)) = $1`;
        if (l.scoped) {
          args.push(c.name, now());
          sql += ' AND collection = $2 AND (expires_at IS NULL OR expires_at > $3)';
        }
        // Known keys by their ids: the primary key's index, not the whole table.
        if (scan.keys !== undefined) {
          args.push(scan.keys.map(rowId));
          sql += ` AND id = ANY($${args.length})`;
        }
        const { rows } = await client.query<Row & { k: string; version: number }>(sql, args);
        return rows.map(
          (row): ScannedRecord<R> => ({
            key: row.k,
            record: { value: c.parse(toValue(l, row, row.k), row.k), version: row.version },
          }),
        );
      }),
    put: (c, key, value) =>
      run(c as Collection<unknown>, 'put', key, async (client, l, t) => {
        const cols = [l.key, ...l.columns.map(([, col]) => col)];
        const bump = l.versioned === false ? '' : ', version = r.version + 1';
        await client.query(
          `${insertSql(l, t)} ON CONFLICT (${l.scoped ? 'collection, id' : 'id'}) DO UPDATE SET ${cols.map((col) => `${col} = excluded.${col}`).join(', ')}${bump}`,
          [...head(l, c.name, key), ...values(l, key, value), ...expiry(l, undefined)],
        );
      }),
    update: (c, key, match, set) =>
      run(c as Collection<unknown>, 'update', key, async (client, l, t) => {
        const args: unknown[] = [rowId(key)];
        const cond = Object.entries(match as Row).map(([field, v]) => {
          args.push(typeof v === 'string' ? textColumn(v) : v);
          return `${columnOf(l, field)} = $${args.length}`;
        });
        const changes = Object.entries((set ?? {}) as Row).map(([field, v]) => {
          args.push(v === undefined ? null : typeof v === 'string' ? textColumn(v) : v);
          return `${columnOf(l, field)} = $${args.length}`;
        });
        const sql =
          set === undefined
            ? `DELETE FROM ${t} WHERE id = $1 AND ${cond.join(' AND ')} RETURNING 1`
            : `UPDATE ${t} SET ${changes.join(', ')}, version = version + 1 WHERE id = $1 AND ${cond.join(' AND ')} RETURNING 1`;
        const { rows } = await client.query(sql, args);
        return rows.length === 1;
      }),
    purge: (c, o) =>
      run(c as Collection<unknown>, 'purge', undefined, async (client, l, t) => {
        const args: unknown[] = [o.atMost, o.limit];
        const field = columnOf(l, String(o.field));
        const cond = Object.entries((o.where ?? {}) as Row).map(([f, v]) => {
          args.push(typeof v === 'string' ? textColumn(v) : v);
          return ` AND ${columnOf(l, f)} = $${args.length}`;
        });
        await client.query(
          `DELETE FROM ${t} WHERE id IN (SELECT id FROM ${t} WHERE ${field} <= $1${cond.join('')} ORDER BY ${field} LIMIT $2 FOR UPDATE SKIP LOCKED)`,
          args,
        );
      }),
    async close() {},
  });
  return {
    ...methods(direct),
    // A whole transition (read, then swap) on one connection, within one limit, as one call.
    session: (c, key, work) =>
      calls.run(`${c.name} transition`, key, options.timeoutMs(c.name), (client) =>
        work(methods((c2, _operation, _key, w) => onClient(client, c2, w))),
      ),
  };
}
