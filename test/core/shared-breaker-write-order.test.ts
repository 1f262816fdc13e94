// A shared breaker's copy is never open alone (ARCHITECTURE.md §state.local): when another
// process's success (or this process's own, landing late) cleared the stored count, the call that
// reaches the threshold here opens the copy, and the store's answer to its write closes it again,
// so it does not refuse calls for a whole cooldown that no other process knows of.
import { describe, expect, it } from 'vitest';
import { circuitBreaker, isCircuitOpenError, memoryStore } from '../../src/index.js';
import { httpError } from '../helpers/http-error.js';

const limits = { failureThreshold: 3, cooldownMs: 600_000, probeTimeoutMs: 120_000 };

describe('a shared breaker whose count the store clears while it fails', () => {
  it("the call that reaches the threshold here opens the copy; the store's answer closes it again, as the store is", async () => {
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
    await cleared;
    for (let i = 0; here.state !== 'closed'; i++) {
      if (i > 1_000)
        throw new Error(`the copy stayed open alone: ${JSON.stringify(here.toJSON())}`);
      await new Promise((r) => setTimeout(r, 1));
    }
    expect((await store.breakerGet('dep'))?.state).toBe('closed');
    const there = circuitBreaker({ name: 'dep', store, ...limits }); // another process's breaker
    expect(await there.execute(() => 'ran')).toBe('ran');
    expect(isCircuitOpenError(await here.execute(() => 'ran').catch((e: unknown) => e))).toBe(
      false,
    );
  });
});
