import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { Checkpointer } from '../../src/checkpoint/checkpointer.js';
import { IdempotencyLedger } from '../../src/idempotency/idempotency-ledger.js';
import { postgresStore } from '../../src/postgres/index.js';
import { escalate } from '../../src/recovery/escalate.js';
import { Saga } from '../../src/saga/saga.js';
import { escalations } from '../../src/recovery/escalations.js';
import { redisStore } from '../../src/redis/index.js';
import { sqliteStore } from '../../src/sqlite/index.js';
import { memoryStore } from '../../src/store/memory-store.js';
import { isStoreError, type StoreError } from '../../src/store/store-error.js';
import type { Store } from '../../src/store/store.js';
import { httpError } from '../helpers/http-error.js';
import {
  dropSchemas,
  endPools,
  newPool,
  pgAvailable,
  uniqueSchema,
} from '../postgres/pg-helpers.js';
import { REDIS_URL, redisAvailable, uniquePrefix } from '../redis/redis-helpers.js';

// A stored value that cannot be decoded is damage, reported as StoreError `corrupt_record` naming
// the record (or `checkpoint_corrupted`), never a raw SyntaxError/TypeError from a backend. Each
// corrupt value is written straight into the real backend.

const dir = mkdtempSync(join(tmpdir(), 'recourse-corrupt-'));
const schemas: string[] = [];
const redis = new Redis(REDIS_URL, { lazyConnect: true });
redis.on('error', () => {});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  redis.disconnect();
  if (pgAvailable) {
    await dropSchemas(schemas);
    await endPools();
  }
});
let files = 0;

interface Backend {
  store: Store;
  /** Overwrites the escalation's stored `deciders` with `raw`. */
  corruptDeciders(id: string, raw: string): Promise<void>;
}

const backends: Array<[string, boolean, () => Promise<Backend>]> = [
  [
    'sqlite',
    true,
    async () => {
      const path = join(dir, `s-${files++}.db`);
      return {
        store: sqliteStore({ path }),
        async corruptDeciders(id, raw) {
          const db = new Database(path);
          db.prepare('UPDATE recourse_escalations SET deciders = ? WHERE id = ?').run(raw, id);
          db.close();
        },
      };
    },
  ],
  [
    'redis',
    redisAvailable,
    async () => {
      const prefix = uniquePrefix('corrupt');
      if (redis.status === 'wait') await redis.connect();
      const client = new Redis(REDIS_URL);
      client.on('error', () => {});
      const store = redisStore({ client, prefix });
      const close = store.close.bind(store);
      store.close = async () => {
        await close();
        client.disconnect();
      };
      return {
        store,
        async corruptDeciders(id, raw) {
          await redis.hset(`${prefix}escalation:${id}`, 'deciders', raw);
        },
      };
    },
  ],
  [
    'postgres',
    pgAvailable,
    async () => {
      const schema = uniqueSchema('corrupt');
      schemas.push(schema);
      const pool = newPool();
      return {
        store: postgresStore({ pool, schema }),
        async corruptDeciders(id, raw) {
          await pool.query(`UPDATE ${schema}.escalations SET deciders = $1 WHERE id_text = $2`, [
            raw,
            id,
          ]);
        },
      };
    },
  ],
];

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
}

/** A pending escalation for `order`, as an agent leaves it. */
async function pending(store: Store, order: string): Promise<string> {
  const e = (await rejection(
    escalate({ store, deciders: ['alice'] }).run({ action: 'refund', args: { order } }, () =>
      Promise.reject(httpError(503)),
    ),
  )) as { id: string };
  return e.id;
}

async function corruptLedgerResult(store: Store, key: string): Promise<void> {
  const now = Date.now();
  const claim = await store.ledgerClaim(key, 'writer', now, 30_000);
  expect(claim.kind).toBe('claimed');
  expect(await store.ledgerComplete(key, 'writer', '{not json', now, now + 60_000)).toBe(true);
}

function expectCorrupt(error: unknown, key: string): void {
  expect(isStoreError(error)).toBe(true);
  const e = error as StoreError;
  expect(e.code).toBe('corrupt_record');
  expect(e.key).toBe(key);
  expect(e.message).toContain(JSON.stringify(key));
}

describe('a ledger result that is not JSON', () => {
  for (const [name, available, open] of [
    ['memory', true, async () => ({ store: memoryStore() as Store })] as const,
    ...backends,
  ]) {
    it.skipIf(!available)(
      `rejects with StoreError corrupt_record naming the key (${name})`,
      async () => {
        const { store } = await open();
        await corruptLedgerResult(store, 'charge-7');
        let ran = 0;
        const error = await rejection(
          new IdempotencyLedger(store).run('charge-7', async () => {
            ran++;
            return 'again';
          }),
        );
        expectCorrupt(error, 'charge-7');
        expect((error as StoreError).cause).toBeInstanceOf(SyntaxError);
        expect(ran).toBe(0);
        await store.close();
      },
    );
  }
});

describe("an escalation's deciders that cannot be decoded", () => {
  for (const [name, available, open] of backends) {
    it.skipIf(!available)(
      `get rejects with StoreError naming the record; list skips it only when asked (${name})`,
      async () => {
        const { store, corruptDeciders } = await open();
        const good = await pending(store, 'A-1');
        const bad = await pending(store, 'A-2');
        const other = await pending(store, 'A-3');
        await corruptDeciders(bad, '{"alice"');
        const desk = escalations(store);
        const error = await rejection(desk.get(bad));
        expectCorrupt(error, bad);
        expect((error as StoreError).cause).toBeInstanceOf(SyntaxError);
        expectCorrupt(await rejection(desk.list()), bad);
        const skipped: StoreError[] = [];
        const listed = await desk.list({ onCorrupt: (e) => skipped.push(e) });
        expect(listed.map((r) => r.id).sort()).toEqual([good, other].sort());
        expect(skipped.map((e) => e.key)).toEqual([bad]);
        // Valid JSON of the wrong shape is just as corrupt.
        await corruptDeciders(bad, '{"name":"alice"}');
        expectCorrupt(await rejection(desk.get(bad)), bad);
        await store.close();
      },
    );
  }
});

describe.skipIf(!redisAvailable)('a checkpoint stored as null (Redis)', () => {
  it('recover() reports checkpoint_corrupted, not a TypeError', async () => {
    const prefix = uniquePrefix('corrupt-cp');
    if (redis.status === 'wait') await redis.connect();
    const client = new Redis(REDIS_URL);
    client.on('error', () => {});
    const store = redisStore({ client, prefix });
    const checkpointer = new Checkpointer(store);
    await checkpointer.save('task-1', 0, { rows: 1 });
    for (const raw of ['null', '7', '{oops']) {
      await redis.set(`${prefix}checkpoint:task-1`, raw);
      const r = await checkpointer.recover('task-1');
      expect(r, raw).toEqual({ recovered: false, reason: 'checkpoint_corrupted' });
    }
    await store.close();
    client.disconnect();
  });
});

describe('a saga log line that cannot be decoded', () => {
  for (const [name, available, open] of [
    ['memory', true, async () => ({ store: memoryStore() as Store })] as const,
    ...backends,
  ]) {
    it.skipIf(!available)(
      `recover() rejects with StoreError corrupt_record naming the saga (${name})`,
      async () => {
        const { store } = await open();
        for (const [begin, step] of [
          ['["pay"', '{"id":1}'],
          ['["pay"]', '{oops'],
          ['{"pay":1}', '{"id":1}'],
        ] as const) {
          const id = `order-${begin.length}-${step.length}`;
          const now = Date.now();
          expect((await store.sagaAcquire(id, 'writer', now, 30_000)).acquired).toBe(true);
          await store.sagaAppend(id, 'writer', {
            type: 'begin',
            step: -1,
            name: '',
            data: begin,
            at: now,
          });
          await store.sagaAppend(id, 'writer', {
            type: 'step',
            step: 0,
            name: 'pay',
            data: step,
            at: now,
          });
          await store.sagaRelease(id, 'writer');
          let undone = 0;
          const saga = new Saga(id, { store }).step(
            'pay',
            async () => ({ id: 1 }),
            async () => {
              undone++;
            },
          );
          expectCorrupt(await rejection(saga.recover()), id);
          expect(undone).toBe(0);
        }
        await store.close();
      },
    );
  }
});

describe.skipIf(!pgAvailable)('a bulkhead row that cannot be decoded (postgres)', () => {
  it('acquire, renew and release reject with StoreError corrupt_record naming it', async () => {
    const schema = uniqueSchema('corrupt');
    schemas.push(schema);
    const pool = newPool();
    const store = postgresStore({ pool, schema, storeTimeoutMs: 5_000 });
    const now = Date.now();
    expect(await store.bulkheadAcquire('tools', 'a', 2, now, 30_000)).toBe(true);
    const damage = (raw: string) => pool.query(`UPDATE ${schema}.bulkheads SET record = $1`, [raw]);
    // Not JSON: every operation says so.
    await damage('{not json');
    expectCorrupt(await rejection(store.bulkheadAcquire('tools', 'b', 2, now, 30_000)), 'tools');
    expectCorrupt(await rejection(store.bulkheadRenew('tools', ['a'], now, 30_000)), 'tools');
    expectCorrupt(await rejection(store.bulkheadRelease('tools', 'a')), 'tools');
    // JSON whose slots are not an object: acquire and renew say so (release finds no slot to drop).
    await damage('{"slots":7}');
    expectCorrupt(await rejection(store.bulkheadAcquire('tools', 'b', 2, now, 30_000)), 'tools');
    expectCorrupt(await rejection(store.bulkheadRenew('tools', ['a'], now, 30_000)), 'tools');
    await store.close();
  });

  it('release of a row that is JSON but whose slots are not an object (or that is not an object) rejects with corrupt_record; a slot already gone is still fine', async () => {
    const schema = uniqueSchema('corrupt');
    schemas.push(schema);
    const pool = newPool();
    const store = postgresStore({ pool, schema, storeTimeoutMs: 5_000 });
    const now = Date.now();
    expect(await store.bulkheadAcquire('tools', 'a', 2, now, 30_000)).toBe(true);
    // A healthy row without the slot (it lapsed, or was released twice): nothing to drop, no error.
    await store.bulkheadRelease('tools', 'a');
    await expect(store.bulkheadRelease('tools', 'a')).resolves.toBeUndefined();
    const damage = (raw: string) => pool.query(`UPDATE ${schema}.bulkheads SET record = $1`, [raw]);
    for (const raw of ['{"slots":7}', '{"slots":["a"]}', '7', '{}']) {
      await damage(raw);
      expectCorrupt(await rejection(store.bulkheadRelease('tools', 'a')), 'tools');
    }
    await store.close();
  });
});
