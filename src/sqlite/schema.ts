import type { Database } from 'better-sqlite3';
import { StoreError } from '../store/store-error.js';

/** The schema version this code writes. Bump it and add a step to MIGRATIONS when tables change. */
export const SCHEMA_VERSION = 5;

const V1 = `
CREATE TABLE recourse_breakers (
  name TEXT PRIMARY KEY,
  state TEXT NOT NULL,
  epoch INTEGER NOT NULL,
  failures INTEGER NOT NULL,
  opened_at REAL NOT NULL,
  probe_until REAL NOT NULL
);
CREATE TABLE recourse_ledger (
  key TEXT PRIMARY KEY,
  state TEXT NOT NULL,
  owner TEXT NOT NULL,
  lease_until REAL NOT NULL,
  claims INTEGER NOT NULL,
  result TEXT,
  expires_at REAL NOT NULL
);
CREATE INDEX recourse_ledger_expiry ON recourse_ledger (expires_at) WHERE state = 'completed';
CREATE TABLE recourse_checkpoints (
  task_id TEXT PRIMARY KEY,
  step_index INTEGER NOT NULL,
  state TEXT NOT NULL,
  checksum TEXT NOT NULL,
  saved_at REAL NOT NULL
);
CREATE TABLE recourse_saga_log (
  saga_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  type TEXT NOT NULL,
  step INTEGER NOT NULL,
  name TEXT NOT NULL,
  data TEXT,
  at REAL NOT NULL,
  PRIMARY KEY (saga_id, seq)
);
CREATE TABLE recourse_saga_leases (
  saga_id TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  lease_until REAL NOT NULL
);
`;

// Escalations to a person (recourse 0.2). `deciders` is a JSON array of names.
const V2 = `
CREATE TABLE recourse_escalations (
  id TEXT PRIMARY KEY,
  action TEXT NOT NULL,
  args TEXT NOT NULL,
  reason TEXT NOT NULL,
  deciders TEXT NOT NULL,
  state TEXT NOT NULL,
  round INTEGER NOT NULL,
  created_at REAL NOT NULL,
  expires_at REAL NOT NULL,
  decided_at REAL,
  decided_by TEXT,
  note TEXT,
  keep_until REAL NOT NULL
);
CREATE INDEX recourse_escalations_keep ON recourse_escalations (keep_until);
CREATE INDEX recourse_escalations_created ON recourse_escalations (created_at, id);
`;

// Version 3: shared retry budgets (one JSON record per budget name: window buckets and floor bucket).
const V3 = `
CREATE TABLE recourse_budgets (
  name TEXT PRIMARY KEY,
  record TEXT NOT NULL
);
`;

// Version 4: shared bulkheads (one JSON record per bulkhead name: its slots, slot id → leaseUntil).
const V4 = `
CREATE TABLE recourse_bulkheads (
  name TEXT PRIMARY KEY,
  record TEXT NOT NULL
);
`;

// Version 5: the tables become one driver's (ARCHITECTURE.md §state.drivers). Each key's version
// sits beside them, so recourse's own tables keep their columns (a row without a version reads as
// version 0); collections without a table of their own share one of JSON records. Both are named
// outside `recourse_*`, which stays the capabilities' tables. IF NOT EXISTS: an upgrade from
// version 1 or 2 may run on a file that had them before its tables were dropped.
const V5 = `
CREATE TABLE IF NOT EXISTS _recourse_versions (
  collection TEXT NOT NULL,
  key TEXT NOT NULL,
  version INTEGER NOT NULL,
  PRIMARY KEY (collection, key)
);
CREATE TABLE IF NOT EXISTS _recourse_records (
  collection TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  expires_at REAL,
  PRIMARY KEY (collection, key)
);
`;

/** MIGRATIONS[n] takes the schema from version n to n + 1. */
const MIGRATIONS: readonly string[] = [V1, V2, V3, V4, V5];

/**
 * @internal Creates or upgrades recourse's tables in one immediate transaction, so processes
 * opening a new file at the same moment create them once. Writes on every open (the open time), so
 * a database that cannot be written fails here, not at the first transition.
 */
export function migrate(db: Database, path: string): void {
  db.transaction(() => {
    db.exec(
      'CREATE TABLE IF NOT EXISTS recourse_schema (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL, opened_at INTEGER NOT NULL)',
    );
    const row = db.prepare('SELECT version FROM recourse_schema WHERE id = 1').get() as
      | { version: number }
      | undefined;
    const from = row?.version ?? 0;
    if (from > SCHEMA_VERSION) {
      throw new StoreError(
        'schema_too_new',
        `sqliteStore: ${path} has recourse schema version ${from}, newer than this version of recourse understands (${SCHEMA_VERSION}); upgrade recourse`,
        path,
      );
    }
    for (let v = from; v < SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v]!);
    db.prepare(
      'INSERT INTO recourse_schema (id, version, opened_at) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET version = excluded.version, opened_at = excluded.opened_at',
    ).run(SCHEMA_VERSION, Date.now());
  }).immediate();
}
