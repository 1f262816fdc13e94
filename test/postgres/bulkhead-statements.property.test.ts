// PostgreSQL's one-statement bulkhead acquire and release (the acquire transition computed in SQL)
// against the pure transitions they mirror (test/helpers/bulkhead-parity.ts; ARCHITECTURE.md
// §state.atomic: a port of the pure function is held to it by this property).
import { afterAll, describe, it } from 'vitest';
import { postgresStore } from '../../src/postgres/postgres-store.js';
import { assertBulkheadParity } from '../helpers/bulkhead-parity.js';
import { dropSchemas, endPools, newPool, pgAvailable, uniqueSchema } from './pg-helpers.js';

describe.runIf(pgAvailable)('the PostgreSQL bulkhead statements do what the transitions do', () => {
  const schema = uniqueSchema('bulkhead_prop');
  afterAll(async () => {
    await dropSchemas([schema]);
    await endPools();
  });

  it('acquire, renew and release', async () => {
    const pool = newPool();
    const store = postgresStore({ pool, schema, storeTimeoutMs: 5_000 });
    try {
      await assertBulkheadParity(store, async (name) => {
        const { rows } = await pool.query<{ record: string }>(
          `SELECT record FROM "${schema}".bulkheads WHERE name = $1`,
          [name],
        );
        return rows[0] === undefined ? {} : JSON.parse(rows[0].record).slots;
      });
    } finally {
      await store.close();
    }
  }, 120_000);
});
