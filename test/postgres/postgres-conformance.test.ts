import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { postgresStore } from '../../src/postgres/index.js';
import { storeConformance } from '../../src/store/conformance.js';
import { dropSchemas, endPools, pgAvailable, storeOnOwnPool, uniqueSchema } from './pg-helpers.js';

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
      return storeOnOwnPool((pool) => postgresStore({ pool, schema }));
    },
    { describe, it, expect, beforeEach, afterEach },
    { openAnother: () => storeOnOwnPool((pool) => postgresStore({ pool, schema })) },
  );
});
