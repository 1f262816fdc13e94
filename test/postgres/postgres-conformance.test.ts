import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { postgresStore } from '../../src/postgres/index.js';
import { storeConformance } from '../../src/store/conformance.js';
import { rateLimitStoreConformance } from '../../src/store/rate-limit-conformance.js';
import { dropSchemas, endPools, pgAvailable, storeOnOwnPool, uniqueSchema } from './pg-helpers.js';

// The conformance suite checks what the store does, not how fast: breaker calls get the ledger's
// limit instead of 250 ms, which a loaded 2-core machine can exceed (the 250 ms limit is tested in
// postgres-store.test.ts and the outage tests).
const LIMIT = 5000;
const schemas = new Set<string>();
let schema = '';

describe.runIf(pgAvailable)('postgres', () => {
  afterAll(async () => {
    await endPools();
    await dropSchemas(schemas);
  });

  storeConformance(
    'postgres',
    () => {
      schema = uniqueSchema('conf');
      schemas.add(schema);
      return storeOnOwnPool((pool) => postgresStore({ pool, schema, storeTimeoutMs: LIMIT }));
    },
    { describe, it, expect, beforeEach, afterEach },
    {
      openAnother: () =>
        storeOnOwnPool((pool) => postgresStore({ pool, schema, storeTimeoutMs: LIMIT })),
    },
  );

  rateLimitStoreConformance(
    'postgres',
    () => {
      schema = uniqueSchema('conf_rl');
      schemas.add(schema);
      return storeOnOwnPool((pool) => postgresStore({ pool, schema, storeTimeoutMs: LIMIT }));
    },
    { describe, it, expect, beforeEach, afterEach },
    {
      openAnother: () =>
        storeOnOwnPool((pool) => postgresStore({ pool, schema, storeTimeoutMs: LIMIT })),
    },
  );
});
