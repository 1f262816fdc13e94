import type { PgClientLike } from './pg-like.js';

/** @internal The four statements a transition may need on one table's row, bound to one key. */
export interface RowStatements<Row, Write> {
  /** `SELECT … FOR UPDATE`: the row, locked until the transaction ends, or undefined. */
  read(client: PgClientLike): Promise<Row | undefined>;
  /** `INSERT … ON CONFLICT DO NOTHING`: true when this call inserted the row. */
  insert(client: PgClientLike, write: Write): Promise<boolean>;
  update(client: PgClientLike, write: Write): Promise<void>;
  remove(client: PgClientLike): Promise<void>;
}

/** What a transition decided: the caller's answer and what to do with the row (`'keep'`: nothing; `undefined`: delete it). */
export interface Decision<R, Write> {
  result: R;
  write: Write | undefined | 'keep';
}

/**
 * @internal Applies one pure transition to one row inside the caller's transaction (READ
 * COMMITTED). Why it is atomic: a row that exists is locked by `SELECT … FOR UPDATE` before the
 * transition reads it, so a concurrent transition on the same key waits for this one to commit and
 * then reads the row as written. A row that does not exist cannot be locked, so two callers may
 * both read "absent"; the insert settles it — the primary key lets one insert, and
 * `ON CONFLICT DO NOTHING` makes the other wait for that commit and insert nothing. The loser then
 * reads again (a new statement sees the committed row, locked this time) and decides afresh, so no
 * decision is ever made on a row that another transaction changed.
 */
export async function applyToRow<Row, Write, R>(
  client: PgClientLike,
  row: RowStatements<Row, Write>,
  transition: (current: Row | undefined) => Decision<R, Write>,
): Promise<R> {
  for (;;) {
    const current = await row.read(client);
    const { result, write } = transition(current);
    if (write === 'keep') return result;
    if (write === undefined) {
      if (current !== undefined) await row.remove(client);
      return result;
    }
    if (current !== undefined) {
      await row.update(client, write);
      return result;
    }
    if (await row.insert(client, write)) return result;
    // Another transaction inserted the row after our read: decide again on its row.
  }
}
