import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { storeConformance } from '../../src/store/conformance.js';
import { rateLimitStoreConformance } from '../../src/store/rate-limit-conformance.js';
import {
  type ClientKind,
  deletePrefixes,
  redisAvailable,
  storeOnOwnClient,
  uniquePrefix,
} from './redis-helpers.js';

// The whole Store contract on the machine's Redis, once through each supported client. The suite
// checks what the store does, not how fast: breaker calls get the ledger's limit instead of 250 ms,
// which a loaded 2-core machine can exceed (the 250 ms road is tested in redis-outage.test.ts).
const LIMIT = 5000;
for (const kind of ['ioredis', 'redis'] as const satisfies readonly ClientKind[]) {
  const prefixes = new Set<string>();
  let prefix = '';

  describe.runIf(redisAvailable)(`redis (${kind})`, () => {
    afterAll(async () => {
      await deletePrefixes(prefixes);
    });

    storeConformance(
      `redis (${kind})`,
      () => {
        prefix = uniquePrefix(`conf-${kind}`);
        prefixes.add(prefix);
        return storeOnOwnClient(kind, prefix, { storeTimeoutMs: LIMIT });
      },
      { describe, it, expect, beforeEach, afterEach },
      { openAnother: () => storeOnOwnClient(kind, prefix, { storeTimeoutMs: LIMIT }) },
    );

    rateLimitStoreConformance(
      `redis (${kind})`,
      () => {
        prefix = uniquePrefix(`conf-rl-${kind}`);
        prefixes.add(prefix);
        return storeOnOwnClient(kind, prefix, { storeTimeoutMs: LIMIT });
      },
      { describe, it, expect, beforeEach, afterEach },
      { openAnother: () => storeOnOwnClient(kind, prefix, { storeTimeoutMs: LIMIT }) },
    );
  });
}
