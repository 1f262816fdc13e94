import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { circuitBreaker, IdempotencyLedger, isStoreError } from '../../src/index.js';
import { driverError } from '../../src/redis/driver-error.js';
import { redisStore } from '../../src/redis/index.js';
import type { Store } from '../../src/store/store.js';
import type { BreakerRecord } from '../../src/transitions/breaker-record.js';
import { PrivateRedis, redisServerInstalled } from './private-redis.js';
import { freePort } from '../helpers/free-port.js';
import {
  deletePrefixes,
  REDIS_URL,
  redisAvailable,
  scratchStores,
  storeOnOwnClient,
  uniquePrefix,
} from './redis-helpers.js';
import { collectGarbage } from '../helpers/collect-garbage.js';

const T0 = 1_700_000_000_000;
const LIMITS = { failureThreshold: 3, cooldownMs: 1000, probeTimeoutMs: 500 };
const wait = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('redisStore options', () => {
  const client = { call: () => Promise.reject(new Error('unused')), duplicate: () => client };

  it('refuses an unknown option, naming the known ones', () => {
    expect(() => redisStore({ client, prefx: 'a:' } as never)).toThrow(
      /redisStore: unknown option "prefx".*prefix/,
    );
  });

  it('refuses something that is not a Redis client, and a client it cannot subscribe with', () => {
    expect(() => redisStore({ client: { query() {} } as never })).toThrow(
      /client must be a Redis client with call\(\) \(ioredis\) or sendCommand\(\) \(node-redis\)/,
    );
    expect(() => redisStore({ client: { sendCommand: () => Promise.resolve() } })).toThrow(
      /no duplicate\(\): pass a subscriber/,
    );
    expect(() =>
      redisStore({
        client: { sendCommand: () => Promise.resolve() },
        subscriber: { sendCommand: () => Promise.resolve() },
      }),
    ).not.toThrow();
    expect(() => redisStore({ client, prefix: 5 as never })).toThrow(
      /prefix must be a string, got 5/,
    );
    expect(() => redisStore({ client, timeoutMs: 0 })).toThrow(/timeoutMs/);
  });

  it('turns a driver error into a StoreError naming the call, the prefix and the key, with a hint', () => {
    const refused = driverError(
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }),
      'ledgerClaim',
      'app:',
      'charge-1',
    );
    expect([refused.code, refused.key, refused.message]).toEqual([
      'unavailable',
      'charge-1',
      'redisStore: ledgerClaim under prefix "app:" failed: Error: connect ECONNREFUSED 127.0.0.1:1 (is the server running, and are the host and port of the client right?)',
    ]);
    const replica = driverError(
      new Error("READONLY You can't write against a read only replica."),
      'breakerSet',
      'app:',
    );
    expect([replica.code, replica.key, replica.message]).toEqual([
      'read_only',
      undefined,
      expect.stringMatching(
        /read only replica\. \(connected to a replica: the store needs the primary\)$/,
      ),
    ]);
    expect(driverError(new Error('ERR something else'), 'breakerGet', 'app:').message).toBe(
      'redisStore: breakerGet under prefix "app:" failed: Error: ERR something else',
    );
    expect(driverError(refused, 'breakerGet', 'other:')).toBe(refused);
  });
});

describe.runIf(redisAvailable)('redisStore on the shared server: bad input and odd states', () => {
  const scratch = scratchStores();
  async function open(): Promise<Store> {
    return (await scratch.open('odd')).store;
  }

  it('a breaker name of 10 KB is stored, read and notified verbatim', async () => {
    const store = await open();
    const name = `tool/${'名前🔑'.repeat(1500)}`;
    const heard: Array<{ name: string; record: BreakerRecord }> = [];
    const stop = store.breakerSubscribe!((n, record) => heard.push({ name: n, record }));
    await store.breakerForce(name, 'isolated');
    expect((await store.breakerGet(name))?.state).toBe('isolated');
    expect(await store.breakerGet(`${name}x`)).toBeUndefined();
    for (let i = 0; i < 200 && heard.length === 0; i++) await wait(10);
    expect(heard).toEqual([
      { name, record: { state: 'isolated', epoch: 1, failures: 0, openedAt: 0, probeUntil: 0 } },
    ]);
    stop();
  });

  it('a key under the prefix that holds something else gives a StoreError that says so', async () => {
    const { store, prefix } = await scratch.open('odd');
    const admin = new Redis(REDIS_URL);
    try {
      await admin.set(`${prefix}ledger:k`, 'not a hash');
      const error = await store.ledgerClaim('k', 'a', T0, 1000).catch((e: unknown) => e);
      expect(isStoreError(error)).toBe(true);
      expect((error as Error).message).toMatch(
        /ledgerClaim under prefix .* failed: .*WRONGTYPE.*is the prefix used by something else/,
      );
      expect((error as { key?: string }).key).toBe('k');
    } finally {
      admin.disconnect();
    }
  });
});

describe.runIf(redisAvailable)('redisStore round trips', () => {
  it('ledger.run on a fresh key costs two round trips (claim, complete); a stored result one', async () => {
    const real = new Redis(REDIS_URL);
    const prefix = uniquePrefix('trips');
    const sent: string[] = [];
    const counting = {
      call: (command: string, ...args: string[]) => {
        sent.push(command);
        return real.call(command, ...args);
      },
      duplicate: () => real.duplicate(),
    };
    const store = redisStore({ client: counting, prefix });
    try {
      const ledger = new IdempotencyLedger(store);
      await ledger.run('warm', async () => 'loads the scripts');
      sent.length = 0;
      expect(await ledger.run('fresh', async () => 'r')).toBe('r');
      expect(sent).toEqual(['EVALSHA', 'EVALSHA']);
      sent.length = 0;
      expect(await ledger.run('fresh', async () => 'again')).toBe('r');
      expect(sent).toEqual(['EVALSHA']);
    } finally {
      await store.close();
      real.disconnect();
      await deletePrefixes([prefix]);
    }
  });
});

describe('redisStore with no server to talk to', () => {
  it('a wrong URL or a dead port: ledger calls reject with StoreError and run nothing; a breaker goes on at once', async () => {
    const port = await freePort();
    for (const url of [`redis://127.0.0.1:${port}`, 'redis://no-such-host.invalid:6379']) {
      const client = new Redis(url);
      client.on('error', () => {});
      const store = redisStore({ client, timeoutMs: 300 });
      try {
        let ran = 0;
        const started = Date.now();
        const error = await new IdempotencyLedger(store)
          .run('charge', async () => {
            ran++;
            return 'receipt';
          })
          .catch((e: unknown) => e);
        expect([isStoreError(error), ran]).toEqual([true, 0]);
        expect(Date.now() - started).toBeLessThan(5_000); // timeoutMs 300, not a reconnect loop
        const breaker = circuitBreaker({ name: 'model', store });
        const events: string[] = [];
        breaker.on('store_unavailable', () => events.push('unavailable'));
        for (let i = 0; i < 5; i++) {
          const t = performance.now();
          expect(await breaker.execute(async () => 'ok')).toBe('ok');
          // Not held by the dead server: a first call waits storeTimeoutMs (250 ms; checked on
          // virtual time in test/core/shared-breaker.test.ts), the others not at all.
          expect(performance.now() - t).toBeLessThan(3_000);
        }
        await breaker
          .execute(() => Promise.reject(Object.assign(new Error('503'), { status: 503 })))
          .catch(() => {});
        for (let i = 0; i < 100 && events.length === 0; i++) await wait(10);
        expect(events).toContain('unavailable');
      } finally {
        await store.close();
        client.disconnect();
      }
    }
  }, 120_000);
});

describe.runIf(redisServerInstalled || process.env.RECOURSE_REQUIRE_SERVICES === '1')(
  'redisStore on a server of its own',
  () => {
    let server: PrivateRedis;
    beforeAll(async () => {
      server = await PrivateRedis.create({ persistent: false });
    }, 120_000);
    afterAll(async () => {
      await server?.destroy();
    });

    it('close() waits for running calls, ends the subscriber connection it made, leaves the client open', async () => {
      const connected = async (): Promise<number> =>
        Number(
          /connected_clients:(\d+)/.exec(String(await server.command('INFO', 'clients')))?.[1],
        );
      const client = new Redis(server.url);
      try {
        await client.ping();
        const before = await connected();
        const store = redisStore({ client, prefix: 'close:' });
        const heard: string[] = [];
        const stop = store.breakerSubscribe!((name) => heard.push(name));
        await store.breakerForce('b', 'isolated'); // waits for the subscription
        for (let i = 0; i < 200 && heard.length === 0; i++) await wait(10);
        expect(heard).toEqual(['b']);
        expect(await connected()).toBe(before + 1);
        const running = store.ledgerClaim('k', 'a', T0, 1000);
        await store.close();
        expect(await running).toEqual({ kind: 'claimed', takeover: false });
        for (let i = 0; i < 200 && (await connected()) !== before; i++) await wait(10);
        expect(await connected()).toBe(before);
        expect(await client.ping()).toBe('PONG');
        stop();
        expect(() => store.breakerSubscribe!(() => {})).toThrow(/closed/);
        await expect(store.ledgerGet('k')).rejects.toThrow(/closed/);
      } finally {
        client.disconnect();
      }
    });

    for (const kind of ['ioredis', 'redis'] as const) {
      it(`the script cache flushed mid-run (SCRIPT FLUSH): every call still succeeds, nothing is lost (${kind})`, async () => {
        const store = await storeOnOwnClient(kind, `flush-${kind}:`, {}, server.url);
        try {
          const ledger = new IdempotencyLedger(store);
          expect(await ledger.run('k1', async () => 'r1')).toBe('r1');
          expect(await server.command('SCRIPT', 'FLUSH')).toBe('OK');
          // Many callers at once right after the flush: each may meet NOSCRIPT and loads the script again.
          const claims = await Promise.all(
            Array.from({ length: 50 }, (_, i) => store.ledgerClaim('race', `o${i}`, T0, 1000)),
          );
          expect(claims.filter((c) => c.kind === 'claimed').length).toBe(1);
          expect(await ledger.run('k1', async () => 'again')).toBe('r1');
          await server.command('SCRIPT', 'FLUSH');
          await store.breakerForce('b', 'isolated');
          expect((await store.breakerAdmit('b', T0, LIMITS)).admission.kind).toBe('reject');
          await server.command('SCRIPT', 'FLUSH');
          expect(
            (
              await store.retryBudgetTake(
                'budget',
                { requests: 10, returned: 0, returnedAt: 0, want: 1 },
                T0,
                { ratio: 0.1, minPerSecond: 0, windowMs: 10_000 },
              )
            ).granted,
          ).toBe(1);
          await server.command('SCRIPT', 'FLUSH');
          const take = {
            type: 'take' as const,
            cost: { requests: 1, tokens: 0, inputTokens: 0, outputTokens: 0 },
            guess: { requests: 5 },
            probeMs: 30_000,
          };
          const takes = await Promise.all(
            Array.from({ length: 6 }, () => store.rateLimitUpdate('limiter', take, T0)),
          );
          expect(takes.map((t) => (t.kind === 'go' ? t.marks.requests : 0))).toEqual([
            1, 2, 3, 4, 5, 6,
          ]);
        } finally {
          await store.close();
        }
      });
    }

    for (const kind of ['ioredis', 'redis'] as const) {
      it(`a change made while the subscriber connection was down still reaches the listeners once it is back (${kind})`, async () => {
        const a = await storeOnOwnClient(kind, `catch-up-${kind}:`, {}, server.url);
        const b = await storeOnOwnClient(kind, `catch-up-${kind}:`, {}, server.url);
        try {
          const heard: string[] = [];
          const stop = a.breakerSubscribe!((name, record) => heard.push(`${name}:${record.state}`));
          await a.breakerGet('dep'); // a breaker of this process uses 'dep' (and the subscription is up)
          await b.breakerForce('other', 'isolated');
          for (let i = 0; i < 200 && heard.length === 0; i++) await wait(10);
          expect(heard).toEqual(['other:isolated']);
          // Cut the subscriber connection; the change is published before it re-subscribes.
          await server.command('CLIENT', 'KILL', 'TYPE', 'pubsub');
          await b.breakerForce('dep', 'isolated');
          for (let i = 0; i < 500 && !heard.includes('dep:isolated'); i++) await wait(10);
          expect(heard).toContain('dep:isolated');
          stop();
        } finally {
          await a.close();
          await b.close();
        }
      });
    }

    it('100,000 breaker names stay small: about a hundred bytes each on the server, nothing in the process', async () => {
      const store = await storeOnOwnClient(
        'ioredis',
        'many:',
        { storeTimeoutMs: 30_000 },
        server.url,
      );
      try {
        await store.breakerGet('warm');
        const usedMemory = async (): Promise<number> =>
          Number(/used_memory:(\d+)/.exec(String(await server.command('INFO', 'memory')))?.[1]);
        const serverBefore = await usedMemory();
        const keysBefore = Number(await server.command('DBSIZE'));
        collectGarbage();
        const heapBefore = process.memoryUsage().heapUsed;
        const N = 100_000;
        let next = 0;
        await Promise.all(
          Array.from({ length: 32 }, async () => {
            while (next < N) await store.breakerForce(`agent-tool-${next++}`, 'isolated');
          }),
        );
        expect(Number(await server.command('DBSIZE')) - keysBefore).toBe(N);
        const perName = ((await usedMemory()) - serverBefore) / N;
        console.log(
          `[redis] 100,000 breaker names: ${perName.toFixed(0)} bytes each on the server`,
        );
        expect(perName).toBeLessThan(250);
        collectGarbage();
        expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(30e6);
      } finally {
        await store.close();
      }
    }, 120_000);
  },
);
