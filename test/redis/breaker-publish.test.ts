// Issue 28: the Redis breaker scripts publish state changes only (ARCHITECTURE.md §state.push).
// 4 store handles (4 workers, each its own connections) share a breaker on the machine's Redis; a
// separate connection SUBSCRIBEd to `<prefix>breakers` counts what is published.
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { countBreakerMessages, type HeardMessages } from '../helpers/breaker-messages.js';
import {
  deletePrefixes,
  REDIS_URL,
  redisAvailable,
  storeOnOwnClient,
  uniquePrefix,
} from './redis-helpers.js';

const WORKERS = 4;
const prefixes: string[] = [];
afterAll(() => deletePrefixes(prefixes));

async function listen(channel: string): Promise<HeardMessages> {
  const raw = new Redis(REDIS_URL);
  raw.on('error', () => {});
  const messages: HeardMessages['messages'] = [];
  raw.on('message', (ch: string, text: string) => {
    if (ch !== channel) return;
    const [name, state] = JSON.parse(text) as [string, string];
    messages.push({ name, state });
  });
  await raw.subscribe(channel);
  return { messages, stop: async () => void raw.disconnect() };
}

describe.skipIf(!redisAvailable)('Redis breaker messages (issue 28)', () => {
  it('failures below the threshold publish nothing; a trip, its probe and the close publish one message each', async () => {
    const prefix = uniquePrefix('publish');
    prefixes.push(prefix);
    const heard = await listen(`${prefix}breakers`);
    const handles = await Promise.all(
      Array.from({ length: WORKERS }, () =>
        storeOnOwnClient('ioredis', prefix, { storeTimeoutMs: 5_000 }),
      ),
    );
    try {
      const counts = await countBreakerMessages({ handles, heard }, 5);
      console.log(
        `[redis] ${counts.failures} failures below the threshold from ${counts.workers} workers: ${counts.publishedWhileClosed} messages published; one trip + probe + close: ${counts.publishedPerTrip} published (${counts.publishedPerTrip} per subscribed worker)`,
      );
      expect(counts.publishedWhileClosed).toBe(0);
      expect(counts.statesPerTrip).toEqual(['open', 'half-open', 'closed']);
    } finally {
      await Promise.all(handles.map((h) => h.close()));
      await heard.stop();
    }
  }, 60_000);
});
