// A subscription that is in place only after writes stopped waiting for it (250 ms: a slow server,
// or a cluster client that first learns the slots) misses the changes written meanwhile; once it is
// in place the store reads the records of the breakers this process uses and delivers them, as
// after a reconnect, so the change arrives without waiting for the breakers' 15 s re-read.
// Each change is delivered once: one a message brought is not handed on again by the catch-up.
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { redisStore } from '../../src/redis/index.js';
import type { Store } from '../../src/store/store.js';
import type { BreakerRecord } from '../../src/transitions/breaker-record.js';
import { deletePrefixes, REDIS_URL, redisAvailable, uniquePrefix } from './redis-helpers.js';

const LIMITS = { failureThreshold: 1, cooldownMs: 60_000, probeTimeoutMs: 60_000 };
/** Longer than the 250 ms a write waits for a subscription being set up. */
const SUBSCRIBE_DELAY_MS = 1000;

/** An ioredis client whose SUBSCRIBE reaches the server SUBSCRIBE_DELAY_MS late. */
function slowSubscriber(client: Redis): Redis {
  return new Proxy(client, {
    get(target, property) {
      if (property === 'subscribe')
        return async (channel: string) => {
          await new Promise((r) => setTimeout(r, SUBSCRIBE_DELAY_MS));
          return target.subscribe(channel);
        };
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe.runIf(redisAvailable)('redisStore: a late subscription', () => {
  const prefixes: string[] = [];
  afterAll(() => deletePrefixes(prefixes));

  /**
   * A listening store (its client and subscriber passed through `wrap`) and a writing one on a
   * fresh prefix; `body` gets them and what the listener heard of breaker 'dep'. Ends them all.
   */
  async function listenerAndWriter(
    label: string,
    wrap: { client?: (c: Redis) => Redis; subscriber: (c: Redis) => Redis },
    body: (s: { listener: Store; writer: Store; heard: BreakerRecord[] }) => Promise<void>,
  ): Promise<void> {
    const prefix = uniquePrefix(label);
    prefixes.push(prefix);
    const clients = [new Redis(REDIS_URL), new Redis(REDIS_URL), new Redis(REDIS_URL)];
    for (const c of clients) c.on('error', () => {});
    const [client, subscriber, other] = clients as [Redis, Redis, Redis];
    const listener = redisStore({
      client: wrap.client?.(client) ?? client,
      subscriber: wrap.subscriber(subscriber),
      prefix,
    });
    const writer = redisStore({ client: other, subscriber: other.duplicate(), prefix });
    try {
      const heard: BreakerRecord[] = [];
      const stop = (listener.breakerSubscribe as NonNullable<typeof listener.breakerSubscribe>)(
        (name, record) => {
          if (name === 'dep') heard.push(record);
        },
      );
      await body({ listener, writer, heard });
      stop();
    } finally {
      await listener.close();
      await writer.close();
      for (const c of clients) c.disconnect();
    }
  }

  it('a trip written before the subscription was in place is delivered once it is', async () => {
    await listenerAndWriter('late-sub', { subscriber: slowSubscriber }, async (s) => {
      // As a breaker does: subscribe, then read its record (this waits 250 ms at most).
      expect(await s.listener.breakerGet('dep')).toBeUndefined();
      const tripped = await s.writer.breakerRecord('dep', 0, 'failure', Date.now(), LIMITS);
      expect(tripped.state).toBe('open');
      // Published before the subscription was in place: only the catch-up delivers it.
      for (const end = Date.now() + 10_000; s.heard.length === 0 && Date.now() < end; )
        await new Promise((r) => setTimeout(r, 20));
      expect(s.heard.length).toBeGreaterThan(0);
      for (const record of s.heard) expect(record).toEqual(tripped);
    });
  });

  it('a change heard by message is not delivered again by the catch-up after a late subscription', async () => {
    // The subscription is in place late (past the 250 ms a write waits), and the trip is published
    // while it is: the message delivers it, then the catch-up reads the same record.
    let inPlace!: () => void;
    const subscribed = new Promise<void>((r) => (inPlace = r));
    let letGo!: () => void;
    const released = new Promise<void>((r) => (letGo = r));
    const slow = (subscriber: Redis): Redis =>
      new Proxy(subscriber, {
        get(target, property) {
          if (property === 'subscribe')
            return async (channel: string) => {
              await new Promise((r) => setTimeout(r, SUBSCRIBE_DELAY_MS));
              const answer = await target.subscribe(channel);
              inPlace();
              await released;
              return answer;
            };
          const value = Reflect.get(target, property, target) as unknown;
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    // The catch-up is this store's only call after the subscription: its end is seen here.
    let armed = false;
    let caughtUp!: () => void;
    const read = new Promise<void>((r) => (caughtUp = r));
    const watched = (client: Redis): Redis =>
      new Proxy(client, {
        get(target, property) {
          const value = Reflect.get(target, property, target) as unknown;
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            const answer = (value as (...a: unknown[]) => unknown).apply(target, args);
            if (armed && answer instanceof Promise)
              void answer.finally(() => setImmediate(caughtUp));
            return answer;
          };
        },
      });
    await listenerAndWriter('late-sub-once', { client: watched, subscriber: slow }, async (s) => {
      expect(await s.listener.breakerGet('dep')).toBeUndefined();
      await subscribed;
      const tripped = await s.writer.breakerRecord('dep', 0, 'failure', Date.now(), LIMITS);
      for (const end = Date.now() + 10_000; s.heard.length === 0 && Date.now() < end; )
        await new Promise((r) => setTimeout(r, 20));
      expect(s.heard).toEqual([tripped]);
      armed = true;
      letGo();
      await read;
      expect(s.heard).toEqual([tripped]);
    });
  });
});
