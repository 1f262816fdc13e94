import { createServer, type Server, type Socket } from 'node:net';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { postgresStore } from '../../src/postgres/index.js';
import { isStoreError, type StoreError } from '../../src/store/store-error.js';
import type { RateLimitStore } from '../../src/store/rate-limit-store.js';
import type { Store } from '../../src/store/store.js';
import type { BreakerLimits, BreakerRecord } from '../../src/transitions/breaker-record.js';
import { dropSchemas, endPools, newPool, PG_URL, pgAvailable, uniqueSchema } from './pg-helpers.js';
import { collectGarbage } from '../helpers/collect-garbage.js';

const T0 = 1_700_000_000_000;
const LIMITS: BreakerLimits = { failureThreshold: 1, cooldownMs: 1000, probeTimeoutMs: 500 };
const schemas = new Set<string>();
const stores: Store[] = [];

function fresh(prefix: string): string {
  const s = uniqueSchema(prefix);
  schemas.add(s);
  return s;
}

function open(
  pool: pg.Pool,
  schema: string,
  extra: Record<string, unknown> = {},
): Store & RateLimitStore {
  // What a store does is checked here, not how fast: on a loaded machine a breaker call (the first
  // one of a fresh schema makes it) may pass the 250 ms default; the timeout tests set their own.
  const store = postgresStore({ pool, schema, storeTimeoutMs: 5_000, ...extra });
  stores.push(store);
  return store;
}

async function rejection(promise: Promise<unknown>): Promise<StoreError> {
  try {
    await promise;
  } catch (error) {
    if (isStoreError(error)) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

async function admin<R extends pg.QueryResultRow>(
  sql: string,
  values: unknown[] = [],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    return (await client.query<R>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

const wait = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await wait(10)) if (await check()) return;
  throw new Error('condition not met in time');
}

describe.runIf(pgAvailable)('postgresStore', () => {
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
  });
  afterAll(async () => {
    await endPools();
    await dropSchemas(schemas);
  });

  describe('schema', () => {
    it('creates its schema and tables on first use, records the version, and leaves nothing else behind', async () => {
      const schema = fresh('mig');
      const store = open(newPool(), schema);
      expect(await admin('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])).toEqual([]); // nothing before the first call
      expect(await store.breakerGet('b')).toBeUndefined();
      const tables = await admin<{ table_name: string }>(
        'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1',
        [schema],
      );
      expect(tables.map((t) => t.table_name)).toEqual([
        'breaker_changes',
        'breakers',
        'budgets',
        'bulkheads',
        'checkpoints',
        'escalations',
        'ledger',
        'migrations',
        'rate_limits',
        'saga_leases',
        'saga_log',
      ]);
      expect(
        await admin(`SELECT version, description FROM "${schema}".migrations ORDER BY version`),
      ).toEqual([
        {
          version: 1,
          description: 'breakers, ledger, checkpoints, saga leases and logs, escalations',
        },
        { version: 2, description: 'retry budgets' },
        { version: 3, description: 'row versions for compare-and-swap transitions' },
        { version: 4, description: 'rate limiters' },
        { version: 5, description: 'bulkheads' },
        { version: 6, description: 'breaker change log' },
      ]);
    });

    it('upgrades a version 1 schema (before retry budgets, row versions and rate limiters) in place, keeping its data', async () => {
      const schema = fresh('v1');
      const old = open(newPool(), schema);
      await old.saveCheckpoint({
        taskId: 't',
        stepIndex: 4,
        state: '{}',
        checksum: 'c'.repeat(64),
        savedAt: 1.5,
      });
      await old.ledgerClaim('k', 'a', T0, 1000);
      await old.breakerForce('b', 'isolated');
      // Back to what version 1 created: no budgets or rate limits table, no version columns.
      await admin(
        `DROP TABLE "${schema}".budgets; DROP TABLE "${schema}".rate_limits; DROP TABLE "${schema}".bulkheads; DROP TABLE "${schema}".breaker_changes; DELETE FROM "${schema}".migrations WHERE version > 1`,
      );
      for (const t of ['breakers', 'ledger', 'saga_leases', 'escalations'])
        await admin(`ALTER TABLE "${schema}".${t} DROP COLUMN version`);
      const store = open(newPool(), schema);
      expect((await store.loadCheckpoint('t'))?.stepIndex).toBe(4);
      expect(await store.ledgerClaim('k', 'b', T0 + 1, 1000)).toEqual({
        kind: 'held',
        leaseUntil: T0 + 1000,
      });
      expect(await store.ledgerComplete('k', 'a', '"done"', T0 + 2, T0 + 10_000)).toBe(true);
      expect((await store.breakerForce('b', 'closed')).epoch).toBe(2);
      const limits = { ratio: 0.1, minPerSecond: 2, windowMs: 10_000 };
      expect(
        (
          await store.retryBudgetTake(
            'b',
            { requests: 0, returned: 0, returnedAt: 0, want: 5 },
            T0,
            limits,
          )
        ).granted,
      ).toBe(2);
      const take = {
        type: 'take' as const,
        cost: { requests: 1, tokens: 0, inputTokens: 0, outputTokens: 0 },
        guess: { requests: 50 },
        probeMs: 30_000,
      };
      expect((await store.rateLimitUpdate('claude', take, T0)).kind).toBe('go');
      expect(
        await admin(
          `SELECT version, description FROM "${schema}".migrations WHERE version > 1 ORDER BY version`,
        ),
      ).toEqual([
        { version: 2, description: 'retry budgets' },
        { version: 3, description: 'row versions for compare-and-swap transitions' },
        { version: 4, description: 'rate limiters' },
        { version: 5, description: 'bulkheads' },
        { version: 6, description: 'breaker change log' },
      ]);
    });

    it('upgrades a version 3 schema (before rate limiters) in place, keeping its data', async () => {
      const schema = fresh('v3');
      const old = open(newPool(), schema);
      await old.ledgerClaim('k', 'a', T0, 1000);
      await admin(
        `DROP TABLE "${schema}".rate_limits; DROP TABLE "${schema}".bulkheads; DROP TABLE "${schema}".breaker_changes; DELETE FROM "${schema}".migrations WHERE version > 3`,
      );
      const store = open(newPool(), schema);
      expect(await store.rateLimitGet('claude')).toBeUndefined();
      const take = {
        type: 'take' as const,
        cost: { requests: 1, tokens: 0, inputTokens: 0, outputTokens: 0 },
        guess: { requests: 50 },
        probeMs: 30_000,
      };
      expect(await store.rateLimitUpdate('claude', take, T0)).toMatchObject({
        kind: 'go',
        sendAt: T0,
        waitMs: 0,
      });
      expect((await store.rateLimitGet('claude'))?.buckets.requests).toEqual({
        limit: 50,
        level: 49,
      });
      expect(await store.ledgerClaim('k', 'b', T0 + 1, 1000)).toEqual({
        kind: 'held',
        leaseUntil: T0 + 1000,
      });
      expect(await admin(`SELECT count(*)::int AS n FROM "${schema}".migrations`)).toEqual([
        { n: 6 },
      ]);
    });

    it('is created once when 12 stores on separate pools start at the same moment', async () => {
      const schema = fresh('race');
      const racers = Array.from({ length: 12 }, () => open(newPool({ max: 1 }), schema));
      const answers = await Promise.all(
        racers.map((s, i) => s.ledgerClaim('k', `o${i}`, T0, 1000)),
      );
      expect(answers.filter((a) => a.kind === 'claimed').length).toBe(1);
      expect(await admin(`SELECT count(*)::int AS n FROM "${schema}".migrations`)).toEqual([
        { n: 6 },
      ]);
    });

    it('refuses a schema written by a newer recourse, naming both versions', async () => {
      const schema = fresh('new');
      await open(newPool(), schema).breakerGet('b');
      await admin(`INSERT INTO "${schema}".migrations (version, description) VALUES (8, 'future')`);
      const error = await rejection(open(newPool(), schema).ledgerGet('k'));
      expect(error.code).toBe('schema_too_new');
      expect(error.message).toContain(
        'version 8, newer than this version of recourse understands (6)',
      );
    });

    it('names the owner and the grant when the schema belongs to another role', async () => {
      const schema = fresh('owned');
      const suffix = schema.slice(-8);
      const owner = `recourse_owner_${suffix}`;
      const user = `recourse_user_${suffix}`;
      await admin(`CREATE ROLE ${owner} NOLOGIN`);
      await admin(`CREATE ROLE ${user} LOGIN`);
      try {
        await admin(`CREATE SCHEMA "${schema}" AUTHORIZATION ${owner}`);
        const url = new URL(PG_URL);
        url.username = user;
        const pool = newPool({ connectionString: url.toString() });
        const error = await rejection(open(pool, schema).ledgerClaim('k', 'a', T0, 1000));
        expect(error.code).toBe('open_failed');
        expect(error.message).toContain(
          `schema "${schema}" belongs to role "${owner}" and cannot be used by "${user}"`,
        );
        expect(error.message).toContain(`GRANT USAGE, CREATE ON SCHEMA "${schema}" TO "${user}"`);
        // Granted, the same store works on the next call (a failed schema check is not remembered).
        await admin(`GRANT USAGE, CREATE ON SCHEMA "${schema}" TO ${user}`);
        const store = stores.at(-1)!;
        expect(await store.ledgerClaim('k', 'a', T0, 1000)).toEqual({
          kind: 'claimed',
          takeover: false,
        });
        await store.close();
        await pool.end();
      } finally {
        await dropSchemas([schema]);
        await admin(`DROP ROLE IF EXISTS ${user}`);
        await admin(`DROP ROLE IF EXISTS ${owner}`);
      }
    });
  });

  describe('bad input and unreachable servers', () => {
    it('checks its options', () => {
      const pool = newPool();
      expect(() => postgresStore({ pool: {} as never })).toThrow(
        'pool must be a connection pool with connect() (new pg.Pool(...)), got {}',
      );
      expect(() => postgresStore({ pool, schema: '' })).toThrow(
        'schema must be a non-empty string of at most 63 bytes',
      );
      expect(() => postgresStore({ pool, schema: 'x'.repeat(64) })).toThrow('of at most 63 bytes');
      expect(() => postgresStore({ pool, storeTimeoutMs: 0 })).toThrow('storeTimeoutMs');
      expect(() => postgresStore({ pool, shema: 'x' } as never)).toThrow('unknown option "shema"');
    });

    it('says what is wrong with a wrong port, database or user', async () => {
      const port = await rejection(
        open(
          newPool({ connectionString: 'postgres://postgres@127.0.0.1:1/test' }),
          'x',
        ).ledgerClaim('k', 'a', T0, 1000),
      );
      expect(port.code).toBe('unavailable');
      expect(port.message).toMatch(
        /ECONNREFUSED 127\.0\.0\.1:1 \(is the server running, and are the host and port of the pool right\?\)/,
      );
      const db = await rejection(
        open(
          newPool({ connectionString: PG_URL.replace(/\/test$/, '/no_such_db_recourse') }),
          'x',
        ).ledgerGet('k'),
      );
      expect([db.code, db.message]).toEqual([
        'open_failed',
        expect.stringContaining(
          'database "no_such_db_recourse" does not exist (the database named in the connection settings does not exist)',
        ),
      ]);
      const url = new URL(PG_URL);
      url.username = 'no_such_role_recourse';
      const role = await rejection(
        open(newPool({ connectionString: url.toString() }), 'x').breakerGet('b'),
      );
      expect([role.code, role.message]).toEqual([
        'open_failed',
        expect.stringContaining('role "no_such_role_recourse" does not exist'),
      ]);
    });

    it('times out against a server that accepts connections and never answers, and frees the caller', async () => {
      const sockets: Socket[] = [];
      const silent: Server = createServer((s) => sockets.push(s));
      await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
      const { port } = silent.address() as { port: number };
      try {
        const store = open(
          newPool({ connectionString: `postgres://postgres@127.0.0.1:${port}/test` }),
          'x',
          { timeoutMs: 300, storeTimeoutMs: 120 },
        );
        const started = performance.now();
        const breaker = await rejection(store.breakerGet('b'));
        const breakerMs = performance.now() - started;
        expect([breaker.code, breakerMs >= 110 && breakerMs < 5_000]).toEqual(['timeout', true]);
        const ledger = await rejection(store.ledgerClaim('k', 'a', T0, 1000));
        expect([ledger.code, ledger.key]).toEqual(['timeout', 'k']);
      } finally {
        for (const s of sockets) s.destroy();
        silent.close();
      }
    });

    it('times out a write stuck behind a foreign row lock; like any lost reply, it may still land once the lock is gone', async () => {
      const schema = fresh('lock');
      // The schema is made first, on a store with the default limits: making it is not under test.
      await open(newPool(), schema).ledgerGet('warm-up');
      const store = open(newPool(), schema, { timeoutMs: 300 });
      await store.ledgerClaim('k', 'a', T0, 1000);
      const holder = new pg.Client({ connectionString: PG_URL });
      await holder.connect();
      try {
        await holder.query('BEGIN');
        await holder.query(`SELECT * FROM "${schema}".ledger FOR UPDATE`);
        const started = performance.now();
        const error = await rejection(store.ledgerRenew('k', 'a', T0 + 1, 1000));
        expect([error.code, error.key, performance.now() - started < 5_000]).toEqual([
          'timeout',
          'k',
          true,
        ]);
        // A read needs no lock: the store still answers meanwhile.
        expect((await store.ledgerGet('k'))?.leaseUntil).toBe(T0 + 1000);
        await holder.query('ROLLBACK');
        // The server ran the renewal once the lock was free: the caller was told "timeout", which
        // means "unknown", never "not done" (the ledger treats it so: it runs nothing on it).
        await until(async () => (await store.ledgerGet('k'))?.leaseUntil === T0 + 1 + 1000);
        expect(await store.ledgerRenew('k', 'a', T0 + 2, 1000)).toBe(true);
      } finally {
        await holder.end();
      }
    });
  });

  describe('breaker notifications', () => {
    it('delivers a change of a breaker with a 10 KB name (too long for a NOTIFY payload) by reading its row', async () => {
      const schema = fresh('longname');
      const store = open(newPool(), schema);
      const heard: Array<[string, BreakerRecord]> = [];
      const stop = store.breakerSubscribe!((name, record) => heard.push([name, record]));
      // The LISTEN connection is up once a change of another breaker is heard (a ledger call first:
      // it waits for the fresh schema to be made, a breaker call would not).
      await store.ledgerGet('warm-up');
      await store.breakerForce('warm-up', 'closed');
      await until(() => heard.some(([n]) => n === 'warm-up'), 20_000);
      heard.length = 0;
      const name = `b/${'n'.repeat(10_240)}`;
      const { admission } = await store.breakerAdmit(name, T0, LIMITS);
      if (admission.kind !== 'call') throw new Error('expected a call');
      const opened = await store.breakerRecord(name, admission.epoch, 'failure', T0, LIMITS);
      await until(() => heard.length === 1);
      expect(heard[0]).toEqual([name, opened]);
      stop();
    });

    it('re-listens after its connection is killed, and delivers the changes made while it was gone', async () => {
      const schema = fresh('relisten');
      const app = `recourse-listen-${schema.slice(-8)}`;
      const listening = open(newPool({ application_name: app }), schema);
      const writer = open(newPool(), schema);
      const heard: Array<[string, BreakerRecord]> = [];
      listening.breakerSubscribe!((name, record) => heard.push([name, record]));
      const listenerPid = async (): Promise<number | undefined> =>
        (
          await admin<{ pid: number }>(
            "SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN%'",
            [app],
          )
        )[0]?.pid;
      await until(async () => (await listenerPid()) !== undefined);
      await writer.breakerForce('before', 'isolated');
      await until(() => heard.length === 1);

      await admin('SELECT pg_terminate_backend($1)', [await listenerPid()]);
      const whileGone = await writer.breakerForce('during', 'isolated'); // likely before the reconnect: caught up from the table
      await until(() => heard.some(([n]) => n === 'during'));
      expect(heard.find(([n]) => n === 'during')?.[1]).toEqual(whileGone);
      await until(async () => (await listenerPid()) !== undefined);
      const after = await writer.breakerForce('after', 'closed');
      await until(() => heard.some(([n]) => n === 'after'));
      expect(heard.find(([n]) => n === 'after')?.[1]).toEqual(after);
    });

    it('ignores foreign or malformed payloads on its channel, and a throwing subscriber does not stop the others', async () => {
      const schema = fresh('garbage');
      const store = open(
        newPool({ application_name: `recourse-garbage-${schema.slice(-8)}` }),
        schema,
      );
      const heard: string[] = [];
      const warnings: string[] = [];
      const onWarning = (w: Error): void => {
        warnings.push(w.message);
      };
      process.on('warning', onWarning);
      store.breakerSubscribe!(() => {
        throw new Error('subscriber bug');
      });
      store.breakerSubscribe!((name) => heard.push(name));
      await until(
        async () =>
          (
            await admin(
              "SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN%'",
              [`recourse-garbage-${schema.slice(-8)}`],
            )
          ).length === 1,
      );
      for (const payload of [
        'garbage',
        '[]',
        '["open",1,0,0,0]',
        '["weird",1,0,0,0,"x"]',
        '{"a":1}',
        '["#",5]',
      ]) {
        await admin('SELECT pg_notify($1, $2)', [`${schema}_breakers`, payload]);
      }
      await store.breakerForce('real', 'isolated');
      await until(() => heard.length === 1);
      await wait(50);
      process.off('warning', onWarning);
      expect(heard).toEqual(['real']);
      expect(warnings.some((m) => m.includes('subscriber bug'))).toBe(true);
    });

    it('checks out one connection while subscribed and gives it back when the last subscriber leaves', async () => {
      const schema = fresh('sub');
      const pool = newPool();
      // the first call creates the schema: more than 250 ms on a loaded machine
      const store = open(pool, schema, { storeTimeoutMs: 5000 });
      await store.breakerGet('b');
      const stopA = store.breakerSubscribe!(() => {});
      const stopB = store.breakerSubscribe!(() => {});
      await until(() => pool.totalCount - pool.idleCount === 1);
      stopA();
      stopA();
      expect(pool.totalCount - pool.idleCount).toBe(1);
      stopB();
      await until(() => pool.totalCount - pool.idleCount === 0);
    });
  });

  describe('bounded', () => {
    it('deletes expired ledger results as claims go by', async () => {
      const schema = fresh('sweep');
      const store = open(newPool(), schema);
      await Promise.all(
        Array.from({ length: 300 }, async (_, i) => {
          await store.ledgerClaim(`old-${i}`, 'a', T0, 1000);
          await store.ledgerComplete(`old-${i}`, 'a', '"r"', T0, T0 + 10);
        }),
      );
      const count = async (): Promise<number> =>
        (await admin<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".ledger`))[0]!.n;
      expect(await count()).toBe(300);
      // 300 claims above; the sweep after claim 512 runs at T0 + 20, past every expiry.
      for (let i = 0; i < 212; i++) await store.ledgerClaim(`new-${i}`, 'b', T0 + 20, 1000);
      await until(async () => (await count()) === 212);
    });

    // ARCHITECTURE.md §state.bounded: 100,000 breaker names stay small (one row each on the server, nothing kept in this process).
    it('keeps many breaker names small: one row of about 240 bytes each, nothing in the process', async () => {
      const schema = fresh('many');
      // Size, not speed, is measured here: a generous limit keeps a loaded machine from failing writes.
      const store = open(newPool({ max: 8 }), schema, { storeTimeoutMs: 10_000 });
      await store.breakerGet('warm');
      collectGarbage();
      const before = process.memoryUsage().heapUsed;
      // 20,000 names show the size per name as well as 100,000 did, in a fifth of the writes.
      const N = 20_000;
      let next = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < N) await store.breakerForce(`agent-tool-${next++}`, 'isolated');
        }),
      );
      const [{ rows, bytes }] = (await admin<{ rows: number; bytes: string }>(
        `SELECT (SELECT count(*)::int FROM "${schema}".breakers) AS rows, pg_total_relation_size('"${schema}".breakers') AS bytes`,
      )) as [{ rows: number; bytes: string }];
      expect(rows).toBe(N);
      expect(Number(bytes) / N).toBeLessThan(400);
      collectGarbage();
      expect(process.memoryUsage().heapUsed - before).toBeLessThan(N * 200); // 200 bytes a name, as before
    }, 300_000);
  });

  describe('close', () => {
    it('waits for running calls, leaves the pool to its owner, and rejects later calls', async () => {
      const schema = fresh('close');
      const pool = newPool();
      const store = postgresStore({ pool, schema, storeTimeoutMs: 5_000 });
      await store.breakerGet('b');
      store.breakerSubscribe!(() => {});
      const running = store.ledgerClaim('k', 'a', T0, 1000);
      await store.close();
      expect(await running).toEqual({ kind: 'claimed', takeover: false });
      expect(pool.totalCount - pool.idleCount).toBe(0);
      expect((await rejection(store.ledgerGet('k'))).code).toBe('closed');
      expect(() => store.breakerSubscribe!(() => {})).toThrow(/closed/);
      expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    });

    it('survives idle connections lost under it (a server restart) without an unheard pool error', async () => {
      const schema = fresh('idle');
      const app = `recourse-idle-${schema.slice(-8)}`;
      const pool = new pg.Pool({ connectionString: PG_URL, application_name: app, max: 2 }); // no 'error' listener of its own
      const store = open(pool, schema);
      try {
        await Promise.all([store.breakerGet('a'), store.breakerGet('b')]);
        await admin(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
          [app],
        );
        await wait(100);
        expect(await store.breakerGet('a')).toBeUndefined();
      } finally {
        await store.close();
        await pool.end();
      }
    });
  });
});
