// Every backend of the one backend list (src/backends/backend-list.ts) applies the bulkhead
// transitions alike and atomically: memory, SQLite, PostgreSQL and Redis, each on a fresh location
// of its own (the cluster tests' locations, see ../cluster/backends.ts).
import { afterAll, describe, expect, it } from 'vitest';
import { BACKENDS as ALL } from '../../src/backends/backend-list.js';
import type { BulkheadStore } from '../../src/store/bulkhead-store.js';
import { BACKENDS } from '../cluster/backends.js';

type Opened = BulkheadStore & { close(): Promise<void> };
const T0 = 1_700_000_000_000.5;

/** `place()` makes a fresh location; `open(place)` a store on it (called twice: two connections to one place). */
const backends: Array<{
  name: string;
  skip: boolean;
  shared: boolean;
  place: () => unknown;
  open: (place: unknown) => Promise<Opened>;
}> = ALL.map((entry) => {
  const b = BACKENDS.find((c) => c.name === entry.kind);
  // A backend of one process (memory): its place is the store itself.
  if (b === undefined)
    return {
      name: entry.kind,
      skip: false,
      shared: false,
      place: () => entry.open({ kind: entry.kind } as never),
      open: async (place: unknown) => (await place) as Opened,
    };
  return {
    name: b.name,
    skip: b.unavailable !== undefined,
    shared: true,
    place: () => b.fresh('bulkhead-conf'),
    open: async (place: unknown) =>
      (await b.open(place as Parameters<typeof b.open>[0])) as unknown as Opened,
  };
});

afterAll(async () => {
  for (const b of BACKENDS) await b.cleanup();
});

for (const backend of backends) {
  describe.skipIf(backend.skip)(`BulkheadStore conformance (${backend.name})`, () => {
    it('takes up to max slots, refuses past it, renews and releases; a lapsed slot is free', async () => {
      const store = await backend.open(backend.place());
      try {
        expect(await store.bulkheadAcquire('b', 'p1:0', 2, T0, 1_000)).toBe(true);
        expect(await store.bulkheadAcquire('b', 'p2:0', 2, T0, 5_000)).toBe(true);
        expect(await store.bulkheadAcquire('b', 'p3:0', 2, T0 + 1, 1_000)).toBe(false);
        // Holding it already: a renewal, not a new slot.
        expect(await store.bulkheadAcquire('b', 'p1:0', 2, T0 + 2, 1_000)).toBe(true);
        expect(await store.bulkheadRenew('b', ['p2:0', 'gone:0'], T0 + 3, 5_000)).toEqual(['p2:0']);
        // p1:0's lease ends at T0 + 1002: free from then on.
        expect(await store.bulkheadAcquire('b', 'p3:0', 2, T0 + 1_001, 1_000)).toBe(false);
        expect(await store.bulkheadAcquire('b', 'p3:0', 2, T0 + 1_002, 1_000)).toBe(true);
        expect(await store.bulkheadRenew('b', ['p1:0'], T0 + 1_003, 1_000)).toEqual([]);
        await store.bulkheadRelease('b', 'p2:0');
        await store.bulkheadRelease('b', 'never:0');
        expect(await store.bulkheadAcquire('b', 'p4:0', 2, T0 + 1_004, 1_000)).toBe(true);
        expect(await store.bulkheadAcquire('b', 'p5:0', 2, T0 + 1_004, 1_000)).toBe(false);
        // Names are apart.
        expect(await store.bulkheadAcquire('other', 'p5:0', 1, T0 + 1_004, 1_000)).toBe(true);
      } finally {
        await store.close();
      }
    });

    it('of 24 concurrent acquires for 3 slots, exactly 3 succeed (two connections)', async () => {
      const place = backend.place();
      const a = await backend.open(place);
      const b = backend.shared ? await backend.open(place) : a;
      try {
        const answers = await Promise.all(
          Array.from({ length: 24 }, (_, i) =>
            (i % 2 === 0 ? a : b).bulkheadAcquire('race', `p${i}:0`, 3, T0, 10_000),
          ),
        );
        expect(answers.filter(Boolean)).toHaveLength(3);
      } finally {
        await a.close();
        if (b !== a) await b.close();
      }
    });
  });
}
