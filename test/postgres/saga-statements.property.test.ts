// PostgreSQL's one-statement saga writes (the lease's compare-and-swap with the log's new lines in
// the same statement, ARCHITECTURE.md §state.drivers) against the saga port over the memory
// driver: the same random operations give the same answers and leave the same logs.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { sagaLogPort } from '../../src/state/saga-log/saga-log-port.js';
import { dropSchemas, endPools, newPool, pgAndMemory, pgAvailable } from './pg-helpers.js';

const SAGAS = ['s1', 's2'];
const op = fc.record({
  kind: fc.constantFrom('acquire', 'replace', 'renew', 'release', 'append', 'reset'),
  saga: fc.constantFrom(...SAGAS),
  owner: fc.constantFrom('x', 'y'),
  at: fc.integer({ min: 0, max: 30 }),
  leaseMs: fc.constantFrom(0, 10, 40),
  data: fc.option(fc.constantFrom('"r"', 'boom'), { nil: undefined }),
});

describe.runIf(pgAvailable)('the saga port on PostgreSQL does what it does over memory', () => {
  const schemas: string[] = [];
  afterAll(async () => {
    await dropSchemas(schemas);
    await endPools();
  });

  it('acquire, renew, release, append and reset', async () => {
    const pool = newPool();
    let runs = 0;
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(op, { maxLength: 25 }), async (ops) => {
          const { pg, model, close } = pgAndMemory(
            pool,
            `saga_prop_${runs++}`,
            schemas,
            sagaLogPort,
          );
          let now = 1_000;
          let step = 0;
          try {
            for (const o of ops) {
              now += o.at;
              const other = o.owner === 'x' ? 'y' : 'x';
              const entry = { type: 'step' as const, step: step++, name: `n${step}`, at: now };
              const line = o.data === undefined ? entry : { ...entry, data: o.data };
              const answers = await Promise.all(
                [pg, model].map((s) => {
                  if (o.kind === 'acquire') return s.sagaAcquire(o.saga, o.owner, now, o.leaseMs);
                  if (o.kind === 'replace')
                    return s.sagaAcquire(o.saga, o.owner, now, o.leaseMs, other);
                  if (o.kind === 'renew') return s.sagaRenew(o.saga, o.owner, now, o.leaseMs);
                  if (o.kind === 'release') return s.sagaRelease(o.saga, o.owner);
                  if (o.kind === 'append') return s.sagaAppend(o.saga, o.owner, line);
                  return s.sagaReset(o.saga, o.owner);
                }),
              );
              expect(answers[0]).toEqual(answers[1]);
            }
            for (const saga of SAGAS)
              expect(await pg.sagaRead(saga)).toEqual(await model.sagaRead(saga));
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
