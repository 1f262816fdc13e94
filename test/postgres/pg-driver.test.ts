import { afterAll, describe, it } from 'vitest';
import { driverCases } from '../../src/state/engine/driver-conformance.js';
import { dropSchemas, endPools, newPool, pgAvailable, uniqueSchema } from './pg-helpers.js';
import { PgCalls } from '../../src/postgres/pg-calls.js';
import { pgDriver } from '../../src/postgres/pg-driver.js';

const schemas: string[] = [];
afterAll(async () => {
  if (!pgAvailable) return;
  await dropSchemas(schemas);
  await endPools();
});

describe.runIf(pgAvailable)('pgDriver meets the driver contract', () => {
  for (const c of driverCases)
    it(c.name, async () => {
      const schema = uniqueSchema('drv');
      schemas.push(schema);
      const calls = new PgCalls(newPool(), schema);
      try {
        await c.run(pgDriver(calls, schema, { timeoutMs: () => 5000 }), 'p:');
      } finally {
        await calls.close();
      }
    });
});
