// The ledger port's one-statement renew, complete and release (the PostgreSQL driver's `update`,
// ARCHITECTURE.md §state.drivers: a backend's own statement kept for a round-trip goal is held to
// the pure function by a property) against the same port over the memory driver, where every
// method is the pure ledger transition read and swapped: the same random operations give the same
// answers and leave the same entries.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ledgerPort } from '../../src/state/ledger/ledger-port.js';
import { dropSchemas, endPools, newPool, pgAndMemory, pgAvailable } from './pg-helpers.js';

const KEYS = ['a', 'b'];
const OWNERS = ['x', 'y', 'z'];
const op = fc.record({
  kind: fc.constantFrom('claim', 'renew', 'complete', 'release'),
  key: fc.constantFrom(...KEYS),
  owner: fc.constantFrom(...OWNERS),
  at: fc.integer({ min: 0, max: 40 }),
  leaseMs: fc.constantFrom(0, 5, 20),
  result: fc.option(fc.constantFrom('"ok"', '1'), { nil: undefined }),
});

describe.runIf(pgAvailable)('the ledger port on PostgreSQL does what the transitions do', () => {
  const schemas: string[] = [];
  afterAll(async () => {
    await dropSchemas(schemas);
    await endPools();
  });

  it('claim, renew, complete and release', async () => {
    const pool = newPool();
    let runs = 0;
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(op, { maxLength: 25 }), async (ops) => {
          const { pg, model, close } = pgAndMemory(
            pool,
            `ledger_prop_${runs++}`,
            schemas,
            ledgerPort,
          );
          let now = 1_000;
          try {
            for (const o of ops) {
              now += o.at;
              const answers = await Promise.all(
                [pg, model].map((l) => {
                  if (o.kind === 'claim') return l.ledgerClaim(o.key, o.owner, now, o.leaseMs);
                  if (o.kind === 'renew') return l.ledgerRenew(o.key, o.owner, now, o.leaseMs);
                  if (o.kind === 'release') return l.ledgerRelease(o.key, o.owner);
                  return l.ledgerComplete(o.key, o.owner, o.result, now, now + 30);
                }),
              );
              expect(answers[0]).toEqual(answers[1]);
            }
            for (const key of KEYS)
              expect(await pg.ledgerGet(key)).toEqual(await model.ledgerGet(key));
          } finally {
            await close();
          }
        }),
        { numRuns: 40 },
      );
    } finally {
      await pool.end();
    }
  }, 180_000);
});
