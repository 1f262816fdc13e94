// Issue 28 item 1: postgresStore through PgBouncer in transaction pooling mode (Debian's
// pgbouncer in front of a private cluster, both on free ports). A server connection is lent for one
// transaction: LISTEN cannot work there, so breaker changes are polled (`changes: 'poll'`). The
// whole Store contract runs through it, and a trip reaches every handle by polling.
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { circuitBreaker } from '../../src/circuit-breaker/circuit-breaker.js';
import { postgresStore } from '../../src/postgres/index.js';
import { storeConformance } from '../../src/store/conformance.js';
import type { Store } from '../../src/store/store.js';
import { PGBOUNCER, PrivatePgBouncer } from './private-pgbouncer.js';
import { uniqueSchema } from './pg-helpers.js';

const required = process.env.RECOURSE_REQUIRE_SERVICES === '1';
if (PGBOUNCER === undefined)
  console.warn(
    `${required ? 'FAILING' : 'skipping'} the pgbouncer tests: no pgbouncer binary (apt-get install -y pgbouncer)`,
  );

let bouncer: PrivatePgBouncer | undefined;
const pools: pg.Pool[] = [];

/** A store of its own pool through PgBouncer, polling for breaker changes. */
function throughBouncer(schema: string, o: { storeTimeoutMs?: number } = {}): Store {
  const pool = new pg.Pool({ connectionString: bouncer!.url, max: 2 });
  pool.on('error', () => {});
  pools.push(pool);
  return postgresStore({ pool, schema, changes: 'poll', pollIntervalMs: 100, ...o });
}

describe.runIf(PGBOUNCER !== undefined || required)(
  'postgresStore through PgBouncer (transaction pooling)',
  () => {
    beforeAll(async () => {
      bouncer = await PrivatePgBouncer.create({ poolSize: 10, maxConnections: 40 });
    }, 120_000);
    afterAll(async () => {
      await Promise.all(pools.splice(0).map((p) => p.end().catch(() => {})));
      await bouncer?.destroy();
    });

    let schema = uniqueSchema('bouncer');
    const fresh = (): Store => {
      schema = uniqueSchema('bouncer');
      return throughBouncer(schema, { storeTimeoutMs: 5_000 });
    };
    storeConformance(
      'postgres through pgbouncer',
      fresh,
      { describe, it, expect, beforeEach, afterEach },
      { openAnother: () => throughBouncer(schema, { storeTimeoutMs: 5_000 }) },
    );

    it('a trip in one of 40 handles reaches every other by polling, through 10 server connections', async () => {
      const shared = uniqueSchema('bouncer_trip');
      const handles = Array.from({ length: 40 }, () =>
        throughBouncer(shared, { storeTimeoutMs: 5_000 }),
      );
      try {
        await handles[0]!.ledgerGet('warm-up'); // creates the schema before the breakers' first reads
        const limits = { failureThreshold: 1, cooldownMs: 60_000, storeTimeoutMs: 5_000 };
        const breakers = handles.map((store) => circuitBreaker({ name: 'dep', store, ...limits }));
        await Promise.all(breakers.map((b) => b.execute(async () => 'warm')));
        const opened = breakers.slice(1).map(
          (b) =>
            new Promise<void>((resolve) =>
              b.on('state', (e) => {
                if (e.to === 'open') resolve();
              }),
            ),
        );
        await expect(
          breakers[0]!.execute(async () => {
            throw Object.assign(new Error('503'), { status: 503 });
          }),
        ).rejects.toThrow('503');
        await Promise.all(opened);
        expect(breakers.map((b) => b.state)).toEqual(breakers.map(() => 'open'));
      } finally {
        await Promise.all(handles.map((h) => h.close()));
      }
    }, 60_000);
  },
);

describe('postgresStore changes option', () => {
  const pool = { connect: async () => ({}) } as unknown as pg.Pool;
  it('names the option and the value it refuses', () => {
    expect(() => postgresStore({ pool, changes: 'push' as never })).toThrow(
      /^changes must be 'listen' or 'poll', got .push.$/,
    );
    expect(() => postgresStore({ pool, pollIntervalMs: 200 })).toThrow(
      /^pollIntervalMs applies only with changes: 'poll' \(changes is .listen.\)$/,
    );
    expect(() => postgresStore({ pool, changes: 'poll', pollIntervalMs: 1 })).toThrow(
      /pollIntervalMs/,
    );
  });
});
