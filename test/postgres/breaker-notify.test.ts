// Issue 28: PostgreSQL announces breaker state changes only (ARCHITECTURE.md §state.push). 4 store
// handles (4 workers, each its own pool) share a breaker on the machine's PostgreSQL; a separate
// connection LISTENing on the schema's channel counts what is sent.
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { breakerChannel } from '../../src/postgres/identifiers.js';
import { postgresStore } from '../../src/postgres/index.js';
import { countBreakerMessages, type HeardMessages } from '../helpers/breaker-messages.js';
import { dropSchemas, PG_URL, pgAvailable, storeOnOwnPool, uniqueSchema } from './pg-helpers.js';

const WORKERS = 4;
const schemas: string[] = [];
afterAll(() => dropSchemas(schemas));

async function listen(channel: string): Promise<HeardMessages> {
  const raw = new pg.Client({ connectionString: PG_URL });
  raw.on('error', () => {});
  await raw.connect();
  const messages: HeardMessages['messages'] = [];
  raw.on('notification', (n) => {
    if (n.channel !== channel) return;
    const v = JSON.parse(n.payload ?? '[]') as unknown[];
    messages.push({ name: String(v[5]), state: String(v[0]) });
  });
  await raw.query(`LISTEN "${channel}"`);
  return { messages, stop: () => raw.end() };
}

describe.skipIf(!pgAvailable)('PostgreSQL breaker notifications (issue 28)', () => {
  it('failures below the threshold notify nothing; a trip, its probe and the close notify once each', async () => {
    const schema = uniqueSchema('notify');
    schemas.push(schema);
    const heard = await listen(breakerChannel(schema));
    const handles = Array.from({ length: WORKERS }, () =>
      storeOnOwnPool((pool) => postgresStore({ pool, schema, storeTimeoutMs: 5_000 })),
    );
    try {
      await handles[0]!.ledgerGet('warm-up'); // creates the schema before the breakers' first reads
      const counts = await countBreakerMessages({ handles, heard }, 5);
      console.log(
        `[postgres] ${counts.failures} failures below the threshold from ${counts.workers} workers: ${counts.publishedWhileClosed} notifications; one trip + probe + close: ${counts.publishedPerTrip} (${counts.publishedPerTrip} per listening worker)`,
      );
      expect(counts.publishedWhileClosed).toBe(0);
      expect(counts.statesPerTrip).toEqual(['open', 'half-open', 'closed']);
    } finally {
      await Promise.all(handles.map((h) => h.close()));
      await heard.stop();
    }
  }, 60_000);
});
