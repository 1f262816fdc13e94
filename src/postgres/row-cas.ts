import { applyToSlot, type Decision } from '../state/engine/apply-transition.js';
import type { Versioned } from '../state/engine/driver.js';
import type { PgClientLike } from './pg-like.js';

export type { Decision, Versioned };

/** @internal The statements a transition may need on one table's row, bound to one key. */
export interface RowStatements<Row, Write> {
  /** A plain `SELECT` (no lock): the row and its version, or undefined. */
  read(client: PgClientLike): Promise<Versioned<Row> | undefined>;
  /** `INSERT … ON CONFLICT DO NOTHING` (version 0): true when this call inserted the row. */
  insert(client: PgClientLike, write: Write): Promise<boolean>;
  /** `UPDATE … SET …, version = version + 1 WHERE id = … AND version = $expected`: true when it was still that version. */
  swap(client: PgClientLike, expected: number, write: Write): Promise<boolean>;
  /** `DELETE … WHERE id = … AND version = $expected`: true when it was still that version. */
  remove(client: PgClientLike, expected: number): Promise<boolean>;
}

/**
 * @internal Applies one pure transition to one row as a compare-and-swap through the generic
 * engine (`state/engine/apply-transition.ts`, ARCHITECTURE.md §state.drivers), the statements bound to `client`. Why it is atomic on PostgreSQL: a concurrent
 * writer's `UPDATE` holds the row until it commits, and PostgreSQL then checks
 * `WHERE version = $read` again on the committed row (READ COMMITTED update rule), failing it; a
 * missing row is settled by the primary key. Two round trips when uncontended, no lock held.
 * `key` names the row in the `busy` error of a row that kept changing (see `applyToSlot`).
 */
export function applyToRow<Row, Write, R>(
  client: PgClientLike,
  row: RowStatements<Row, Write>,
  transition: (current: Row | undefined) => Decision<R, Write>,
  key?: string,
): Promise<R> {
  return applyToSlot(
    {
      ...(key === undefined ? {} : { key }),
      read: () => row.read(client),
      insert: (write) => row.insert(client, write),
      swap: (expected, write) => row.swap(client, expected, write),
      remove: (expected) => row.remove(client, expected),
    },
    transition,
  );
}
