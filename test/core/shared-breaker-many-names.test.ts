// Issue 28 item 5 (ARCHITECTURE.md §state.push, §state.bounded): the safety re-read reaches every
// breaker a process holds within its period, however many there are. 1,000 breakers on one store,
// on virtual time: each is re-read within one syncIntervalMs (plus the slices that spread them),
// and none much more often. Before, the hub re-read at most 256 per period: 1,000 took 4 periods.
import { describe, expect, it } from 'vitest';
import { type BreakerStore, circuitBreaker, memoryStore } from '../../src/index.js';
import { VirtualClock } from '../../src/testing/index.js';
import { tick } from './helpers.js';

const NAMES = 1_000;
const PERIOD_MS = 15_000; // syncIntervalMs of a store with notifications

describe('the safety re-read with many breaker names', () => {
  it(`re-reads each of ${NAMES} breakers within one period, each about once`, async () => {
    const clock = new VirtualClock(1_000_000);
    const inner = memoryStore();
    const reads = new Map<string, number>();
    const store: BreakerStore = {
      breakerAdmit: inner.breakerAdmit.bind(inner),
      breakerRecord: inner.breakerRecord.bind(inner),
      breakerForce: inner.breakerForce.bind(inner),
      breakerGet: (name) => {
        reads.set(name, (reads.get(name) ?? 0) + 1);
        return inner.breakerGet(name);
      },
      breakerSubscribe: inner.breakerSubscribe!.bind(inner),
    };
    // Held here: a breaker nobody holds is collected, and its re-reads stop.
    const breakers = Array.from({ length: NAMES }, (_, i) =>
      circuitBreaker({ name: `tool-${i}`, store, clock }),
    );
    await tick();
    expect(reads.size).toBe(NAMES); // each read its record once when it was made
    reads.clear();
    // One period, and the slices (1/16 of it) over which the due re-reads are spread.
    for (let t = 0; t < PERIOD_MS + PERIOD_MS / 4; t += 100) {
      await clock.advance(100);
      await tick();
    }
    const missing = breakers.filter((b) => !reads.has(b.name)).length;
    expect(missing).toBe(0);
    expect(Math.max(...reads.values())).toBe(1);
    // A second period: each read again, still about once.
    reads.clear();
    for (let t = 0; t < PERIOD_MS; t += 100) {
      await clock.advance(100);
      await tick();
    }
    expect(reads.size).toBe(NAMES);
    expect(Math.max(...reads.values())).toBeLessThanOrEqual(2);
  });
});
