import { AsyncLocalStorage } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { type CallContext, pipeline, retry, timeout } from '../../src/index.js';
import { VirtualClock } from '../../src/testing/index.js';

// The call's scope is entered differently on Node 20 (AsyncLocalStorage.run) and on Node 24
// (an AsyncResource that restores the caller's context frame): CI runs this file on both.
describe('entering a call scope', () => {
  const user = new AsyncLocalStorage<string>();
  const deadlineSeen = (ctx: CallContext): number | undefined => ctx.deadline;

  it("keeps the caller's own stores inside fn, before and after its awaits, and restores the caller's context after", async () => {
    const clock = new VirtualClock();
    const policy = timeout(1_000, { clock });
    const seen: Array<[string | undefined, number | undefined]> = [];
    const nested = retry({ clock });
    const result = user.run('caller', async () => {
      const p = policy.execute(async () => {
        seen.push([user.getStore(), await nested.execute(deadlineSeen)]);
        await Promise.resolve();
        seen.push([user.getStore(), await nested.execute(deadlineSeen)]);
        return 'done';
      });
      // Back in the caller, synchronously and after awaiting: its own store, no deadline of the call.
      const outside = [user.getStore(), await nested.execute(deadlineSeen)];
      return [await p, outside, user.getStore(), await nested.execute(deadlineSeen)];
    });
    expect(await result).toEqual(['done', ['caller', undefined], 'caller', undefined]);
    expect(seen).toEqual([
      ['caller', 1_000],
      ['caller', 1_000],
    ]);
  });

  it("restores the caller's context when fn throws synchronously, and a nested store set inside fn stays inside", async () => {
    const clock = new VirtualClock();
    const policy = pipeline(timeout(500, { clock }));
    const nested = retry({ clock });
    const outcome = user.run('caller', async () => {
      const thrown = await policy
        .execute(() => {
          throw new Error('sync');
        })
        .catch((e: unknown) => (e as Error).message);
      const inner = await policy.execute(() =>
        user.run('inner', () => Promise.resolve(user.getStore())),
      );
      return [thrown, inner, user.getStore(), await nested.execute(deadlineSeen)];
    });
    expect(await outcome).toEqual(['sync', 'inner', 'caller', undefined]);
  });

  it('two calls in flight at once each see their own deadline after their awaits', async () => {
    const clock = new VirtualClock();
    const nested = retry({ clock });
    const slow = timeout(300, { clock });
    const fast = timeout(100, { clock });
    const a = slow.execute(async () => {
      await clock.sleep(10);
      return nested.execute(deadlineSeen);
    });
    const b = fast.execute(async () => {
      await clock.sleep(5);
      return nested.execute(deadlineSeen);
    });
    await clock.advance(20);
    expect([await a, await b]).toEqual([300, 100]);
  });
});
