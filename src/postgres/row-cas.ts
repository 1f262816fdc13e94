import type { PgClientLike } from './pg-like.js';

/** @internal A row as read, with its version (a counter every write increments). */
export interface Versioned<Row> {
  value: Row;
  version: number;
}

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

/** What a transition decided: the caller's answer and what to do with the row (`'keep'`: nothing; `undefined`: delete it). */
export interface Decision<R, Write> {
  result: R;
  write: Write | undefined | 'keep';
}

/**
 * @internal Applies one pure transition to one row as a compare-and-swap, each statement
 * atomic on its own (autocommit). Why the whole is atomic: the transition decides on the row as
 * read; its write is conditional on the row still being that version (`WHERE version = $read`),
 * so it lands only if no other write came between — a concurrent writer's `UPDATE` holds the row
 * until it commits, and PostgreSQL then checks the condition again on the committed row (READ
 * COMMITTED update rule), failing it. A missing row is settled by the primary key: of two
 * `INSERT … ON CONFLICT DO NOTHING`, one inserts. Whoever lost reads again and decides afresh,
 * so every write is decided on the row it replaces, and of many callers racing for one probe or
 * one claim exactly one wins. A decision that writes nothing answers from the row as read (the
 * state at that moment). Two round trips when uncontended, no lock held between them, so a
 * frozen process never blocks a row.
 */
export async function applyToRow<Row, Write, R>(
  client: PgClientLike,
  row: RowStatements<Row, Write>,
  transition: (current: Row | undefined) => Decision<R, Write>,
): Promise<R> {
  for (;;) {
    const current = await row.read(client);
    const { result, write } = transition(current?.value);
    if (write === 'keep') return result;
    if (write === undefined) {
      if (current === undefined || (await row.remove(client, current.version))) return result;
      continue;
    }
    if (
      current === undefined
        ? await row.insert(client, write)
        : await row.swap(client, current.version, write)
    )
      return result;
    // Another write came between our read and ours: decide again on the row as it is now.
  }
}
