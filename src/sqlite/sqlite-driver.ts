import type Database from 'better-sqlite3';
import type {
  Collection,
  ScanOptions,
  ScannedRecord,
  StateDriver,
  Versioned,
  WriteOptions,
} from '../state/engine/driver.js';
import { parseStored } from '../state/engine/parse-stored.js';
import {
  layoutColumn,
  layoutColumns,
  layoutValue,
  type SqlLayout,
} from '../state/engine/sql-layout.js';

type Db = Database.Database;
type Row = Record<string, unknown>;

/** A collection's statements on one key: a versioned read, and writes that assume the caller checked the version. */
interface Table {
  read(key: string): Row | undefined;
  put(key: string, value: Row, options: WriteOptions | undefined, fresh: boolean): void;
  delete(key: string): void;
  scan(prefix: string): Array<{ key: string; value: Row }>;
  /** Deletes up to `limit` rows whose `field` is at most `atMost` and whose fields equal `where`: the keys deleted. */
  purge?(field: string, atMost: number, where: Row, limit: number): string[];
}

function layoutTable(db: Db, l: SqlLayout): Table {
  const t = `recourse_${l.table}`;
  const cols = l.columns.map(([, c]) => c);
  const all = [l.key, ...cols];
  const select = `SELECT ${all.join(', ')} FROM ${t}`;
  const get = db.prepare(`${select} WHERE ${l.key} = ?`);
  const list = db.prepare(`${select} WHERE substr(${l.key}, 1, length(@p)) = @p`);
  const upsert = db.prepare(
    `INSERT INTO ${t} (${all.join(', ')}) VALUES (${all.map(() => '?').join(', ')})
     ON CONFLICT (${l.key}) DO UPDATE SET ${cols.map((c) => `${c} = excluded.${c}`).join(', ')}`,
  );
  const remove = db.prepare(`DELETE FROM ${t} WHERE ${l.key} = ?`);
  const toValue = (row: Row): Row => layoutValue(l, row, String(row[l.key]), `sqliteStore: ${t}`);
  const toColumns = (value: Row): unknown[] => layoutColumns(l, value);
  return {
    read: (key) => {
      const row = get.get(key) as Row | undefined;
      return row === undefined ? undefined : toValue(row);
    },
    put: (key, value) => {
      upsert.run(key, ...toColumns(value));
    },
    delete: (key) => {
      remove.run(key);
    },
    scan: (prefix) =>
      (list.all({ p: prefix }) as Row[]).map((row) => ({
        key: String(row[l.key]),
        value: toValue(row),
      })),
    purge: (field, atMost, where, limit) => {
      const match = Object.keys(where).map((f) => ` AND ${layoutColumn(l, f)} = ?`);
      const sql = `DELETE FROM ${t} WHERE ${l.key} IN (SELECT ${l.key} FROM ${t} WHERE ${layoutColumn(l, field)} <= ?${match.join('')} LIMIT ?) RETURNING ${l.key} AS k`;
      const rows = db.prepare(sql).all(atMost, ...Object.values(where), limit) as Array<{
        k: string;
      }>;
      return rows.map((r) => r.k);
    },
  };
}

/**
 * A saga as two tables: its writer's lease (`recourse_saga_leases`) and its log, one row per line
 * in append order (`recourse_saga_log`). The saga port only appends lines or empties the log, so
 * a write adds the lines past those stored, or deletes them all.
 */
function sagaTable(db: Db): Table {
  const lease = db.prepare('SELECT owner, lease_until FROM recourse_saga_leases WHERE saga_id = ?');
  const lines = db.prepare(
    'SELECT type, step, name, data, at FROM recourse_saga_log WHERE saga_id = ? ORDER BY seq',
  );
  const count = db.prepare('SELECT COUNT(*) AS n FROM recourse_saga_log WHERE saga_id = ?');
  const putLease = db.prepare(
    'INSERT INTO recourse_saga_leases (saga_id, owner, lease_until) VALUES (?, ?, ?) ON CONFLICT (saga_id) DO UPDATE SET owner = excluded.owner, lease_until = excluded.lease_until',
  );
  const dropLease = db.prepare('DELETE FROM recourse_saga_leases WHERE saga_id = ?');
  const append = db.prepare(
    'INSERT INTO recourse_saga_log (saga_id, seq, type, step, name, data, at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const dropLines = db.prepare('DELETE FROM recourse_saga_log WHERE saga_id = ?');
  const ids = db.prepare(
    'SELECT saga_id FROM recourse_saga_leases WHERE substr(saga_id, 1, length(@p)) = @p UNION SELECT saga_id FROM recourse_saga_log WHERE substr(saga_id, 1, length(@p)) = @p',
  );
  const read = (key: string): Row | undefined => {
    const held = lease.get(key) as { owner: string; lease_until: number } | undefined;
    const entries = (lines.all(key) as Row[]).map((r) => {
      const e: Row = { type: r.type, step: r.step, name: r.name, at: r.at };
      if (r.data !== null) e.data = r.data;
      return e;
    });
    if (held === undefined && entries.length === 0) return undefined;
    return held === undefined
      ? { entries }
      : { lease: { owner: held.owner, leaseUntil: held.lease_until }, entries };
  };
  return {
    read,
    put: (key, value) => {
      const l = value.lease as { owner: string; leaseUntil: number } | undefined;
      if (l === undefined) dropLease.run(key);
      else putLease.run(key, l.owner, l.leaseUntil);
      const entries = (value.entries ?? []) as Row[];
      if (entries.length === 0) return void dropLines.run(key);
      const stored = (count.get(key) as { n: number }).n;
      for (let i = stored; i < entries.length; i++) {
        const e = entries[i]!;
        append.run(key, i + 1, e.type, e.step, e.name, e.data ?? null, e.at);
      }
    },
    delete: (key) => {
      dropLease.run(key);
      dropLines.run(key);
    },
    scan: (prefix) =>
      (ids.all({ p: prefix }) as Array<{ saga_id: string }>).flatMap(({ saga_id: key }) => {
        const value = read(key);
        return value === undefined ? [] : [{ key, value }];
      }),
  };
}

/** Any other collection (the driver conformance cases): one JSON record per key, with expiry. */
function recordsTable(db: Db, collection: string, now: () => number): Table {
  const live = `collection = @c AND (expires_at IS NULL OR expires_at > @now)`;
  const get = db.prepare(`SELECT value FROM _recourse_records WHERE ${live} AND key = @k`);
  const list = db.prepare(
    `SELECT key, value FROM _recourse_records WHERE ${live} AND substr(key, 1, length(@k)) = @k`,
  );
  const upsert = db.prepare(
    `INSERT INTO _recourse_records (collection, key, value, expires_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (collection, key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`,
  );
  const remove = db.prepare('DELETE FROM _recourse_records WHERE collection = ? AND key = ?');
  const decode = (key: string, text: string): Row =>
    parseStored<Row>(text, { what: `sqliteStore: ${collection}`, key });
  return {
    read: (key) => {
      const row = get.get({ c: collection, now: now(), k: key }) as { value: string } | undefined;
      return row === undefined ? undefined : decode(key, row.value);
    },
    put: (key, value, options) => {
      upsert.run(collection, key, JSON.stringify(value), options?.expiresAt ?? null);
    },
    delete: (key) => {
      remove.run(collection, key);
    },
    scan: (prefix) =>
      (
        list.all({ c: collection, now: now(), k: prefix }) as Array<{ key: string; value: string }>
      ).map((r) => ({
        key: r.key,
        value: decode(r.key, r.value),
      })),
  };
}

/**
 * @internal The SQLite {@link StateDriver} (ARCHITECTURE.md §state.drivers) over an open database:
 * recourse's tables as they have been since schema version 1, each key's version kept beside them
 * in `_recourse_versions` (a row written by an older recourse reads as version 0). Every write
 * checks the version and writes in one transaction, so it is atomic on its own; inside a caller's
 * transaction it becomes a savepoint. Collections without a table of their own (the conformance
 * cases) share `_recourse_records`, where `expiresAt` is kept. Errors are the driver's own:
 * `sqliteStore` names them.
 *
 * @example
 * const driver = sqliteDriver(openDatabase('.agent/state.db', 5000))
 */
export function sqliteDriver(
  db: Db,
  now: () => number = Date.now,
): StateDriver & { readonly writes: number } {
  let writes = 0;
  const tables = new Map<string, Table>();
  const table = ({ name, sql }: Collection<unknown>): Table => {
    let t = tables.get(name);
    if (t === undefined) {
      t =
        name === 'sagas'
          ? sagaTable(db)
          : sql === undefined
            ? recordsTable(db, name, now)
            : layoutTable(db, sql);
      tables.set(name, t);
    }
    return t;
  };
  const versionOf = db.prepare(
    'SELECT version FROM _recourse_versions WHERE collection = ? AND key = ?',
  );
  const setVersion = db.prepare(
    'INSERT INTO _recourse_versions (collection, key, version) VALUES (?, ?, ?) ON CONFLICT (collection, key) DO UPDATE SET version = excluded.version',
  );
  const dropVersion = db.prepare('DELETE FROM _recourse_versions WHERE collection = ? AND key = ?');
  const version = (name: string, key: string): number =>
    (versionOf.get(name, key) as { version: number } | undefined)?.version ?? 0;
  const read = <R>(c: Collection<R>, key: string): Versioned<R> | undefined => {
    const value = table(c).read(key);
    return value === undefined
      ? undefined
      : { value: c.parse(value, key), version: version(c.name, key) };
  };
  const insert = db.transaction(
    (c: Collection<unknown>, key: string, value: unknown, o: WriteOptions | undefined) => {
      writes++;
      if (table(c).read(key) !== undefined) return false;
      table(c).put(key, value as Row, o, true);
      setVersion.run(c.name, key, 0);
      return true;
    },
  );
  const swap = db.transaction(
    (c: Collection<unknown>, key: string, expected: number, value: unknown, o?: WriteOptions) => {
      writes++;
      if (table(c).read(key) === undefined || version(c.name, key) !== expected) return false;
      table(c).put(key, value as Row, o, false);
      setVersion.run(c.name, key, expected + 1);
      return true;
    },
  );
  const remove = db.transaction((c: Collection<unknown>, key: string, expected: number) => {
    writes++;
    if (table(c).read(key) === undefined || version(c.name, key) !== expected) return false;
    table(c).delete(key);
    dropVersion.run(c.name, key);
    return true;
  });
  const put = db.transaction((c: Collection<unknown>, key: string, value: unknown) => {
    writes++;
    const fresh = table(c).read(key) === undefined;
    table(c).put(key, value as Row, undefined, fresh);
    setVersion.run(c.name, key, fresh ? 0 : version(c.name, key) + 1);
  });
  const purge = db.transaction(
    (c: Collection<unknown>, field: string, atMost: number, where: Row, limit: number) => {
      const t = table(c);
      const gone =
        t.purge?.(field, atMost, where, limit) ??
        t
          .scan('')
          .filter(({ value: v }) => {
            const at = v[field];
            if (typeof at !== 'number' || at > atMost) return false;
            return Object.entries(where).every(([f, want]) => v[f] === want);
          })
          .slice(0, limit)
          .map(({ key }) => {
            t.delete(key);
            return key;
          });
      for (const key of gone) dropVersion.run(c.name, key);
    },
  );
  // Every write takes the write lock (a transaction), whether it lands or not: `writes` counts them.
  return {
    get writes() {
      return writes;
    },
    read: async (c, key) => read(c, key),
    put: async (c, key, value) => put.immediate(c, key, value),
    purge: async (c, o) => purge.immediate(c, o.field, o.atMost, (o.where ?? {}) as Row, o.limit),
    insert: async (c, key, value, o) => insert.immediate(c, key, value, o),
    compareAndSwap: async (c, key, expected, value, o) =>
      swap.immediate(c, key, expected, value, o),
    remove: async (c, key, expected) => remove.immediate(c, key, expected),
    async scan<R>(c: Collection<R>, options: ScanOptions = {}) {
      const t = table(c);
      const prefix = options.prefix ?? '';
      // Known keys: one indexed lookup each, in-process.
      const found =
        options.keys === undefined
          ? t.scan(prefix)
          : options.keys.flatMap((key) => {
              const value = key.startsWith(prefix) ? t.read(key) : undefined;
              return value === undefined ? [] : [{ key, value }];
            });
      return found.map(
        ({ key, value }): ScannedRecord<R> => ({
          key,
          record: { value: c.parse(value, key), version: version(c.name, key) },
        }),
      );
    },
    async close() {},
  };
}
