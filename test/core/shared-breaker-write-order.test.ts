// When this process's own count opens a shared breaker's copy, the store opens too, whatever its
// count says by then (ARCHITECTURE.md §state.local): another process's success, or this process's
// own success written concurrently and landing late, can have cleared the stored count, and a copy
// open alone would refuse calls here for a whole cooldown while no other process ever learns why.
import { describe, expect, it } from 'vitest';
import { circuitBreaker, isCircuitOpenError, memoryStore } from '../../src/index.js';
import { httpError } from '../helpers/http-error.js';

const limits = { failureThreshold: 3, cooldownMs: 600_000, probeTimeoutMs: 120_000 };

describe('a shared breaker whose count the store clears while it fails', () => {
  it('the call that reaches the threshold here opens the store too; another process learns it', async () => {
    const store = memoryStore();
    const here = circuitBreaker({ name: 'dep', store, ...limits });
    await here.execute(() => 'ok'); // loads the stored record
    const fail = (): never => {
      throw httpError(503);
    };
    await here.execute(fail).catch(() => {});
    await here.execute(fail).catch(() => {});
    for (let i = 0; (await store.breakerGet('dep'))?.failures !== 2; i++) {
      if (i > 1_000) throw new Error('the two failures never reached the store');
      await new Promise((r) => setTimeout(r, 1));
    }
    // In one tick: another process's success (it lands first and clears the stored count), then
    // this process's third failure, which opens its copy: the store's count is only 1 by then.
    const epoch = (await store.breakerGet('dep'))!.epoch;
    const cleared = store.breakerRecord('dep', epoch, 'success', Date.now(), limits);
    await here.execute(fail).catch(() => {});
    expect(here.state).toBe('open');
    await cleared;
    for (let i = 0; (await store.breakerGet('dep'))?.state !== 'open'; i++) {
      if (i > 1_000)
        throw new Error(`the store never opened: ${JSON.stringify(await store.breakerGet('dep'))}`);
      await new Promise((r) => setTimeout(r, 1));
    }
    const there = circuitBreaker({ name: 'dep', store, ...limits }); // another process's breaker
    expect(isCircuitOpenError(await there.execute(() => 'ran').catch((e: unknown) => e))).toBe(
      true,
    );
    expect(here.state).toBe('open');
  });
});
