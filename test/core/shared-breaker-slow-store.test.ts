// Issue 28 item 4 (ARCHITECTURE.md §P4, §state.outage): a store that is slow but up still decides
// the probe. Every store call answers 500 ms late (virtual time), twice the default storeTimeoutMs:
// the writes are given up on, yet the probe question waits up to probeStoreTimeoutMs (2 s), so 8
// breakers (8 processes' handles) × 50 callers admit exactly one probe per recovery.
import { describe, expect, it } from 'vitest';
import {
  type BreakerStore,
  circuitBreaker,
  isCircuitOpenError,
  isStoreError,
  memoryStore,
} from '../../src/index.js';
import { VirtualClock } from '../../src/testing/index.js';
import { httpError } from '../helpers/http-error.js';
import { tick } from './helpers.js';

const DELAY_MS = 500;
const COOLDOWN_MS = 1_000;

/** A handle on `inner` whose every breaker call answers `DELAY_MS` late on `clock`. */
function delayed(inner: BreakerStore, clock: VirtualClock): BreakerStore {
  const late =
    <A extends unknown[], R>(op: (...a: A) => Promise<R>) =>
    (...a: A): Promise<R> =>
      clock.sleep(DELAY_MS).then(() => op(...a));
  return {
    breakerAdmit: late(inner.breakerAdmit.bind(inner)),
    breakerRecord: late(inner.breakerRecord.bind(inner)),
    breakerForce: late(inner.breakerForce.bind(inner)),
    breakerGet: late(inner.breakerGet.bind(inner)),
    breakerSubscribe: inner.breakerSubscribe!.bind(inner),
  };
}

const settle = async (): Promise<void> => {
  for (let i = 0; i < 4; i++) await tick();
};

describe('a shared breaker on a slow store (every call 500 ms late)', () => {
  it('admits exactly one probe per recovery among 8 breakers × 50 callers, round after round', async () => {
    const clock = new VirtualClock(1_000_000);
    const inner = memoryStore();
    const breakers = Array.from({ length: 8 }, () =>
      circuitBreaker({
        name: 'dep',
        store: delayed(inner, clock),
        clock,
        failureThreshold: 1,
        cooldownMs: COOLDOWN_MS,
      }),
    );
    const unavailable: unknown[] = [];
    for (const b of breakers) b.on('store_unavailable', (e) => unavailable.push(e.error));
    // Tripped in the store before the round; every breaker's first read (500 ms) finds it open.
    await inner.breakerRecord('dep', 0, 'failure', clock.now(), {
      failureThreshold: 1,
      cooldownMs: COOLDOWN_MS,
      probeTimeoutMs: 120_000,
    });
    await clock.advance(DELAY_MS);
    await settle();
    for (const b of breakers) expect(b.state).toBe('open');

    const probes: number[] = [];
    for (let round = 0; round < 20; round++) {
      await clock.advance(COOLDOWN_MS + DELAY_MS); // the cooldown of the last reopen is over
      await settle();
      let ran = 0;
      const results = breakers.flatMap((b) =>
        Array.from({ length: 50 }, () =>
          b
            .execute(async () => {
              ran++;
              throw httpError(503); // the dependency is still down: the probe reopens it
            })
            .then(
              () => 'ok',
              (e: unknown) => (isCircuitOpenError(e) ? 'rejected' : 'failed'),
            ),
        ),
      );
      await clock.advance(DELAY_MS); // the store answers the probe questions
      const outcomes = await Promise.all(results);
      probes.push(ran);
      expect(outcomes.filter((o) => o === 'rejected')).toHaveLength(399);
      await clock.advance(DELAY_MS); // the failed probe is written, and heard everywhere
      await settle();
      for (const b of breakers) expect(b.state).toBe('open');
    }
    expect(probes).toEqual(Array(20).fill(1));
    // Writes were given up on after storeTimeoutMs (slow, not down); the probe questions were not.
    expect(unavailable.length).toBeGreaterThan(0);
    expect(unavailable.every((e) => isStoreError(e) && e.code === 'timeout')).toBe(true);
  });

  it('a store that is down (it refuses) is not waited for: the probe runs here at once, however long probeStoreTimeoutMs', async () => {
    const clock = new VirtualClock(1_000_000);
    const inner = memoryStore();
    let down = false;
    const refusing = <A extends unknown[], R>(op: (...a: A) => Promise<R>) =>
      ((...a: A) =>
        down ? Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6379')) : op(...a)) as (
        ...a: A
      ) => Promise<R>;
    const store: BreakerStore = {
      breakerAdmit: refusing(inner.breakerAdmit.bind(inner)),
      breakerRecord: refusing(inner.breakerRecord.bind(inner)),
      breakerForce: refusing(inner.breakerForce.bind(inner)),
      breakerGet: refusing(inner.breakerGet.bind(inner)),
    };
    const b = circuitBreaker({
      name: 'dep',
      store,
      clock,
      failureThreshold: 1,
      cooldownMs: COOLDOWN_MS,
      probeStoreTimeoutMs: 600_000,
    });
    await settle();
    await b.execute(() => Promise.reject(httpError(503))).catch(() => {});
    await settle();
    expect(b.state).toBe('open');
    down = true;
    await clock.advance(COOLDOWN_MS);
    const started = clock.now();
    await expect(b.execute(() => clock.now() - started)).resolves.toBe(0);
    expect(b.state).toBe('closed');
  });
});
