import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { storeConformance } from '../../src/store/conformance.js';
import { type ClientKind, deletePrefixes, redisAvailable, storeOnOwnClient, uniquePrefix } from './redis-helpers.js';

// The whole Store contract on the machine's Redis, once through each supported client.
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
        return storeOnOwnClient(kind, prefix);
      },
      { describe, it, expect, beforeEach, afterEach },
      { openAnother: () => storeOnOwnClient(kind, prefix) },
    );
  });
}
