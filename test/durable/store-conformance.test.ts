// The whole Store contract on every backend of the one backend list (src/backends/backend-list.ts),
// once through each client library it accepts (Redis: ioredis and node-redis), and the rate-limit
// contract on those that have it. Each store gets a fresh place of its own (a file, a schema, a key
// prefix), removed afterwards; shared servers are never emptied. The suite checks what a store
// does, not how fast: breaker calls get the ledger's limit instead of 250 ms, which a loaded 2-core
// machine can exceed (the 250 ms road is tested in the outage tests).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AnyStoreSpec, BACKENDS } from '../../src/backends/backend-list.js';
import type { Backend } from '../../src/store/backend.js';
import { storeConformance } from '../../src/store/conformance.js';
import { rateLimitStoreConformance } from '../../src/store/rate-limit-conformance.js';
import type { RateLimitStore } from '../../src/store/rate-limit-store.js';
import type { Store } from '../../src/store/store.js';

const LIMIT = 5000;
const api = { describe, it, expect, beforeEach, afterEach };
const required = process.env.RECOURSE_REQUIRE_SERVICES === '1';
const dir = mkdtempSync(join(tmpdir(), 'recourse-conformance-'));
const run = `${process.pid}_${randomBytes(4).toString('hex')}`;
let n = 0;

for (const backend of BACKENDS as readonly Backend<AnyStoreSpec>[]) {
  const problem = await backend.unreachable();
  if (problem !== undefined)
    console.warn(
      `${required ? 'FAILING' : 'skipping'} the ${backend.kind} conformance: ${problem}`,
    );
  const clients = backend.needs.clients.length > 1 ? backend.needs.clients : [undefined];
  for (const client of clients) {
    const title = client === undefined ? backend.kind : `${backend.kind} (${client})`;
    const made: AnyStoreSpec[] = [];
    let spec: AnyStoreSpec = backend.scratch('unused', dir);
    const open = (): Promise<Store> =>
      backend.open(spec, { storeTimeoutMs: LIMIT, ...(client === undefined ? {} : { client }) });
    const fresh = (label: string) => (): Promise<Store> => {
      spec = backend.scratch(`${label}_${run}_${n++}`, dir);
      made.push(spec);
      return open();
    };
    const another = backend.shared ? { openAnother: open } : {};

    describe.runIf(problem === undefined || required)(title, () => {
      afterAll(async () => {
        for (const s of made.splice(0)) await backend.drop(s);
      });
      storeConformance(title, fresh('conf'), api, another);
      if (backend.rateLimits)
        rateLimitStoreConformance(
          title,
          fresh('conf_rl') as () => Promise<Store & RateLimitStore>,
          api,
          another as { openAnother?: () => Promise<Store & RateLimitStore> },
        );
    });
  }
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));
