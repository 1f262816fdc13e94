import { describe, expect, it } from 'vitest';
import { BreakerRegistry, type CircuitBreaker } from '../../src/index.js';
import { VirtualClock } from '../../src/testing/index.js';
import { httpError } from '../helpers/http-error.js';

const fail = (b: CircuitBreaker) =>
  b.execute(() => Promise.reject(httpError(503))).catch(() => undefined);

describe('BreakerRegistry', () => {
  it('one breaker per name, shared by every caller; overrides apply on creation', async () => {
    const registry = new BreakerRegistry({ failureThreshold: 1 });
    expect(registry.get('a')).toBe(registry.get('a'));
    expect(registry.get('a')).not.toBe(registry.get('b'));
    await fail(registry.get('a'));
    expect(registry.states()).toEqual({ a: 'open', b: 'closed' });
    expect(registry.get('c', { failureThreshold: 2 }).toJSON()).toMatchObject({
      failureThreshold: 2,
    });
    expect(registry.size).toBe(3);
  });

  it('300,000 names used once each (a per-request key): at most maxBreakers (default 10,000) are kept (issue 9.15)', async () => {
    const registry = new BreakerRegistry();
    for (let i = 0; i < 300_000; i++) {
      const b = registry.get(`tool-call-${i}`);
      if (i % 1_000 === 0) {
        await b.execute(() => 'ok');
        expect(registry.size).toBeLessThanOrEqual(10_000);
      }
    }
    expect(registry.size).toBeLessThanOrEqual(10_000);
    expect(registry.size).toBeGreaterThan(9_000);
  }, 60_000);

  it('never forgets an open, half-open or isolated breaker, nor one that counted a failure', async () => {
    const clock = new VirtualClock();
    const registry = new BreakerRegistry({
      failureThreshold: 2,
      cooldownMs: 1_000,
      maxBreakers: 100,
      clock,
    });
    const open = registry.get('open');
    await fail(open);
    await fail(open);
    const halfOpen = registry.get('half-open');
    await fail(halfOpen);
    await fail(halfOpen);
    const counting = registry.get('counting');
    await fail(counting);
    const isolated = registry.get('isolated');
    await isolated.isolate();
    await clock.advance(1_000);
    const probe = halfOpen.execute(() => new Promise(() => {})).catch(() => undefined);
    expect(halfOpen.state).toBe('half-open');
    for (let i = 0; i < 10_000; i++) registry.get(`n${i}`);
    expect(registry.size).toBeLessThanOrEqual(100);
    expect(registry.get('open')).toBe(open);
    expect(registry.get('half-open')).toBe(halfOpen);
    expect(registry.get('counting')).toBe(counting);
    expect(registry.get('isolated')).toBe(isolated);
    expect([open.state, halfOpen.state, counting.state, isolated.state]).toEqual([
      'open',
      'half-open',
      'closed',
      'isolated',
    ]);
    void probe;
  });

  it('least recently used first, with a second chance for a breaker called since the last sweep', async () => {
    const registry = new BreakerRegistry({ maxBreakers: 3 });
    const a = registry.get('a');
    registry.get('b');
    registry.get('c');
    await a.execute(() => 'ok'); // a is the oldest, but was used
    registry.get('d'); // sweeps: a gets its second chance, b goes
    expect(Object.keys(registry.states()).sort()).toEqual(['a', 'c', 'd']);
    expect(registry.get('a')).toBe(a);
    registry.get('e'); // c is now the oldest unused
    expect(Object.keys(registry.states()).sort()).toEqual(['a', 'd', 'e']);
  });

  it('under churn of 100,000 new names it holds its limit and forgets the oldest idle first; a breaker used between sweeps and a busy one stay', async () => {
    const limit = 1_000;
    const registry = new BreakerRegistry({ maxBreakers: limit, failureThreshold: 1 });
    const hot = registry.get('hot');
    const down = registry.get('down');
    await fail(down);
    for (let i = 0; i < 100_000; i++) {
      registry.get(`n${i}`);
      // called more often than the registry sweeps through its limit: always a second chance
      if (i % 100 === 0) await hot.execute(() => 'ok');
      if (registry.size > limit) throw new Error(`size ${registry.size} over ${limit} at ${i}`);
    }
    const names = new Set(Object.keys(registry.states()));
    expect(names.size).toBe(limit);
    expect(registry.get('hot')).toBe(hot);
    expect(registry.get('down')).toBe(down);
    // The rest are the newest names, in order: every older idle one was forgotten before them.
    const kept = [...names].filter((n) => n !== 'hot' && n !== 'down');
    const newest = Array.from({ length: limit - 2 }, (_, k) => `n${100_000 - (limit - 2) + k}`);
    expect(kept.sort()).toEqual(newest.sort());
  }, 60_000);

  it('holds more than maxBreakers only while they are busy; idle newcomers make way', async () => {
    const registry = new BreakerRegistry({ maxBreakers: 10, failureThreshold: 1 });
    for (let i = 0; i < 10; i++) await fail(registry.get(`down-${i}`));
    registry.get('new-0'); // every breaker is busy (open): the registry grows by one
    expect(registry.size).toBe(11);
    for (let i = 1; i < 1_000; i++) registry.get(`new-${i}`);
    expect(registry.size).toBe(11);
    expect(Object.values(registry.states()).filter((s) => s === 'open')).toHaveLength(10);
    await registry.get('down-3').reset(); // closed and failure-free again: it may go
    for (let i = 0; i < 100; i++) registry.get(`more-${i}`);
    expect(registry.size).toBe(10);
  });

  it('checks its options: maxBreakers, and unknown keys with a hint', () => {
    expect(() => new BreakerRegistry({ maxBreakers: 0 })).toThrow(
      'maxBreakers must be an integer >= 1, got 0',
    );
    expect(() => new BreakerRegistry({ maxBreaker: 5 } as never)).toThrow(
      /unknown option "maxBreaker" \(did you mean "maxBreakers"\?\)/,
    );
    expect(() => new BreakerRegistry({ cooldownMs: -1 })).toThrow(
      'cooldownMs must be a number >= 0, got -1',
    );
  });
});
