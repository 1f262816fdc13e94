// A spend-rate trip of a breaker that shares its state through a real store (SQLite file, the
// machine's PostgreSQL and Redis): the trip is one failure under threshold-1 limits written
// through the store's own transition, so a second breaker on another handle of the store sees it
// open, and the usual cooldown and single probe close it for both.
import { afterAll, describe, expect, it } from 'vitest';
import { circuitBreaker, isCircuitOpenError, pipeline, spendLimit } from '../../src/index.js';
import { VirtualClock } from '../../src/testing/index.js';
import { BACKENDS } from '../cluster/backends.js';

const answer = (tokens: number) => ({ usage: { input_tokens: tokens / 2, output_tokens: tokens / 2 } });

async function until(check: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 10))) if (await check()) return;
  throw new Error('condition not met in time');
}

for (const backend of BACKENDS) {
  describe.skipIf(backend.unavailable !== undefined)(`spendLimit rate on a breaker in a ${backend.name} store`, () => {
    afterAll(() => backend.cleanup());

    it('the trip is stored: a second breaker on another handle sees it open; cooldown and one probe close it for both', async () => {
      const spec = backend.fresh('spend-rate');
      const a = await backend.open(spec);
      const b = await backend.open(spec);
      try {
        const clock = new VirtualClock(Date.now());
        const options = { name: 'model', clock, cooldownMs: 5_000, storeTimeoutMs: 5_000, ...spec.breaker };
        const here = circuitBreaker({ ...options, store: a });
        const there = circuitBreaker({ ...options, store: b });
        const budget = spendLimit({ tokens: 1e9, rate: { tokens: 1_000, perMs: 60_000, breaker: here } });
        const call = pipeline(here, budget);
        expect(await there.execute(() => 'loaded')).toBe('loaded');
        await call.execute(async () => answer(600));
        expect(here.state).toBe('closed');
        await call.execute(async () => answer(600));
        expect(here.state).toBe('open'); // at once where it was tripped
        expect(here.toJSON()).toMatchObject({ reason: 'spend_rate' });
        await until(async () => (await a.breakerGet('model'))?.state === 'open');
        // The other handle learns it by notification, or (SQLite) by its next re-read.
        await until(async () => {
          if (!backend.notifies) await clock.advance(25);
          return there.state === 'open';
        });
        const refused = await there.execute(() => 'sent').catch((e: unknown) => e);
        expect(isCircuitOpenError(refused)).toBe(true);
        // The reason is known where the trip happened; elsewhere it is an ordinary open.
        expect(there.toJSON()).not.toHaveProperty('reason');

        await clock.advance(5_000);
        expect(await there.execute(() => 'probe')).toBe('probe');
        expect((await b.breakerGet('model'))?.state).toBe('closed');
        await until(async () => {
          if (!backend.notifies) await clock.advance(25);
          return here.state === 'closed';
        });
        // A new closed period: the 1,200 spent before the trip is forgotten.
        await call.execute(async () => answer(600));
        expect(here.state).toBe('closed');
      } finally {
        await a.close();
        await b.close();
      }
    });
  });
}
