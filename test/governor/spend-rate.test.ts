import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeEvent } from '../../src/report/describe-event.js';
import { parseEventLog } from '../../src/report/read-event-log.js';
import {
  BreakerRegistry,
  circuitBreaker,
  explain,
  isCircuitOpenError,
  jsonLogger,
  subscribe,
  memoryStore,
  pipeline,
  type RecourseEventMap,
  retry,
  spendLimit,
} from '../../src/index.js';
import { VirtualClock } from '../../src/testing/index.js';

/** What an SDK answer reports: `tokens` tokens used (half input, half output). */
const answer = (tokens: number) => ({
  model: 'claude-sonnet-4-6',
  usage: { input_tokens: tokens / 2, output_tokens: tokens / 2 },
});
const prices = { 'claude-sonnet-4-6': { inputPerMTok: 3, outputPerMTok: 15 } };

/** A breaker on a virtual clock, a spend limit whose rate trips it, and a pipeline of both. */
function setup(rate = 1_000, perMs = 10_000, cooldownMs = 5_000) {
  const clock = new VirtualClock();
  const breaker = circuitBreaker({ name: 'model', clock, cooldownMs });
  const budget = spendLimit({ tokens: 1e9, rate: { tokens: rate, perMs, breaker } });
  const exceeded: Array<RecourseEventMap['spend_rate_exceeded']> = [];
  const states: Array<RecourseEventMap['state']> = [];
  budget.on('spend_rate_exceeded', (e) => exceeded.push(e));
  breaker.on('state', (e) => states.push(e));
  let sent = 0;
  const call = pipeline(breaker, retry({ maxAttempts: 3, backoff: { delay: () => 0 } }), budget);
  const spend = (tokens: number) =>
    call.execute(async () => {
      sent++;
      return answer(tokens);
    });
  return { clock, breaker, budget, exceeded, states, spend, sent: () => sent };
}

describe('spendLimit rate: a breaker opens on spend rate', () => {
  it('crossing the rate opens the breaker; its calls then fail fast with CircuitOpenError (reason spend_rate), never sent', async () => {
    const { clock, breaker, exceeded, states, spend, sent } = setup(1_000, 10_000);
    await spend(400);
    await clock.advance(3_000);
    await spend(400);
    expect(breaker.state).toBe('closed');
    await clock.advance(3_000);
    await spend(400); // 1,200 within the last 10 s
    expect(breaker.state).toBe('open');
    expect(exceeded).toEqual([
      { name: 'run', unit: 'tokens', rate: 1_200, limit: 1_000, perMs: 10_000, breaker: 'model' },
    ]);
    expect(states).toEqual([{ name: 'model', from: 'closed', to: 'open', reason: 'spend_rate' }]);
    expect(breaker.toJSON()).toMatchObject({
      state: 'open',
      reason: 'spend_rate',
      retryAfterMs: 5_000,
    });

    const error = await spend(10).catch((e: unknown) => e);
    expect(isCircuitOpenError(error)).toBe(true);
    expect(error).toMatchObject({ breaker: 'model', state: 'open', reason: 'spend_rate' });
    expect((error as Error).message).toContain('spend rate');
    expect(explain(error)).toContain('spend_rate');
    expect(sent()).toBe(3); // the refused call was neither sent nor retried
  });

  it('spending at the limit, or below it while old spending slides out of the window, does not open it', async () => {
    const { clock, breaker, exceeded, spend } = setup(1_000, 10_000);
    await spend(1_000); // exactly the limit: not over it
    expect(breaker.state).toBe('closed');
    await clock.advance(10_000); // the 1,000 is now 10 s old: out of the window
    for (let i = 0; i < 20; i++) {
      await spend(500);
      await clock.advance(5_000); // 500 every 5 s: 1,000 per 10 s at most, for 100 s
    }
    expect(breaker.state).toBe('closed');
    expect(exceeded).toEqual([]);
    await spend(1); // the last 500 (5 s ago) is still in the window: 501
    expect(breaker.state).toBe('closed');
    await spend(500); // 500 + 1 + 500 within 10 s
    expect(breaker.state).toBe('open');
  });

  it('recovers by the cooldown and one half-open probe; the window starts empty after the close', async () => {
    const { clock, breaker, states, spend, sent } = setup(1_000, 60_000, 5_000);
    await spend(1_500);
    expect(breaker.state).toBe('open');
    await clock.advance(4_999);
    expect(isCircuitOpenError(await spend(1).catch((e: unknown) => e))).toBe(true);
    await clock.advance(1);
    // The probe spends a lot while half-open: not counted; the breaker closes on its success.
    await spend(900);
    expect(breaker.state).toBe('closed');
    expect(breaker.toJSON()).not.toHaveProperty('reason');
    expect(states.map((s) => `${s.from}>${s.to}${s.reason ? `:${s.reason}` : ''}`)).toEqual([
      'closed>open:spend_rate',
      'open>half-open',
      'half-open>closed',
    ]);
    // The 1,500 of before the open is forgotten although it is within 60 s.
    await spend(1_000);
    expect(breaker.state).toBe('closed');
    await spend(1);
    expect(breaker.state).toBe('open');
    expect(sent()).toBe(4);
  });

  it('one probe only: while it runs every other call is refused, and a failing probe reopens it (the reason becomes its failure)', async () => {
    const { clock, breaker, spend } = setup(100, 1_000, 1_000);
    await spend(200);
    await clock.advance(1_000);
    let release!: () => void;
    const probe = pipeline(breaker).execute(
      () =>
        new Promise<never>(
          (_, reject) => (release = () => reject(Object.assign(new Error('503'), { status: 503 }))),
        ),
    );
    expect(breaker.state).toBe('half-open');
    expect(breaker.toJSON()).toMatchObject({ reason: 'spend_rate', probeInFlight: true });
    const other = await spend(1).catch((e: unknown) => e);
    expect(other).toMatchObject({ name: 'CircuitOpenError', state: 'half-open' });
    release();
    await probe.catch(() => {});
    expect(breaker.state).toBe('open');
    expect(breaker.toJSON()).not.toHaveProperty('reason');
  });

  it('reset() of the breaker starts a new period: the window before it is dropped; reset() of the limit empties it too', async () => {
    const { breaker, budget, spend } = setup(1_000, 60_000);
    await spend(900);
    await breaker.reset();
    await spend(900);
    expect(breaker.state).toBe('closed');
    budget.reset();
    await spend(900);
    expect(breaker.state).toBe('closed');
    await spend(101);
    expect(breaker.state).toBe('open');
  });

  it('record() and spending outside the breaker count too; spending while it is open does not', async () => {
    const clock = new VirtualClock();
    const breaker = circuitBreaker({ name: 'b', clock, cooldownMs: 1_000 });
    const budget = spendLimit({ tokens: 1e9, rate: { tokens: 100, perMs: 1_000, breaker } });
    budget.record({ input: 60, output: 41 });
    expect(breaker.state).toBe('open');
    budget.record({ input: 1_000, output: 0 });
    await clock.advance(1_000);
    await breaker.execute(() => 'probe');
    expect(breaker.state).toBe('closed');
    budget.record({ input: 100, output: 0 });
    expect(breaker.state).toBe('closed');
  });

  it('a breaker in window mode (failure rate) trips the same way, and its failure window starts empty after the close', async () => {
    const clock = new VirtualClock();
    const breaker = circuitBreaker({
      name: 'w',
      clock,
      cooldownMs: 1_000,
      window: { durationMs: 10_000, minimumCalls: 4, failureRate: 0.5 },
    });
    const budget = spendLimit({ tokens: 1e9, rate: { tokens: 100, perMs: 1_000, breaker } });
    const call = pipeline(breaker, budget);
    const fail = () =>
      call
        .execute(() => Promise.reject(Object.assign(new Error('503'), { status: 503 })))
        .catch(() => {});
    await fail();
    await call.execute(async () => answer(60));
    await call.execute(async () => answer(60)); // 120 tokens within 1 s
    expect(breaker.state).toBe('open');
    expect(breaker.toJSON()).toMatchObject({
      reason: 'spend_rate',
      window: { calls: 0, failures: 0 },
    });
    await clock.advance(1_000);
    await call.execute(async () => answer(0)); // the probe
    expect(breaker.state).toBe('closed');
    await fail();
    await call.execute(async () => answer(0));
    await fail();
    expect(breaker.state).toBe('closed'); // 2 of 3 calls failed: below minimumCalls (the failure before the trip is gone)
  });

  it("JSON logs say why the breaker opened, and so does the report's card of the state change", async () => {
    const lines: string[] = [];
    const stop = subscribe(
      jsonLogger({ write: (line: string) => void lines.push(line) }, { level: 'debug' }),
    );
    try {
      const { spend } = setup(100, 1_000);
      await spend(200);
    } finally {
      stop();
    }
    const logged = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.event === 'spend_rate_exceeded' || l.event === 'state');
    expect(logged).toEqual([
      expect.objectContaining({
        event: 'spend_rate_exceeded',
        level: 'warn',
        msg: 'spend rate run: 200 tokens in 1000 ms is over 100; circuit model opens',
        breaker: 'model',
        per_ms: 1_000,
      }),
      expect.objectContaining({
        event: 'state',
        level: 'error',
        msg: 'circuit model closed → open (spend rate over its limit)',
        reason: 'spend_rate',
      }),
    ]);
    const log = parseEventLog(lines.join('\n'));
    expect(log.skipped.unknownTypes).toEqual([]); // both event types are drawn in the report
    const state = log.events.find((e) => e.type === 'state')!;
    expect(describeEvent(state)).toBe('circuit closed → open (spend_rate)');
    expect(describeEvent(log.events.find((e) => e.type === 'spend_rate_exceeded')!)).toContain(
      'spend rate run: 200 tokens in 1000 ms is over 100',
    );
  });

  it('a USD rate on a token budget (and the reverse) counts in its own unit', async () => {
    const clock = new VirtualClock();
    const breaker = circuitBreaker({ name: 'usd', clock });
    // 1,000,000 input tokens at $3 and 1,000,000 output at $15: $18.
    const budget = spendLimit({
      tokens: 1e12,
      prices,
      rate: { usd: 17.99, perMs: 1_000, breaker },
    });
    const events: Array<RecourseEventMap['spend_rate_exceeded']> = [];
    budget.on('spend_rate_exceeded', (e) => events.push(e));
    await pipeline(breaker, budget).execute(async () => answer(2_000_000));
    expect(breaker.state).toBe('open');
    expect(events[0]).toMatchObject({ unit: 'usd', limit: 17.99 });
    expect(events[0]!.rate).toBeCloseTo(18, 9);
    expect(budget.spent()).toBe(2_000_000);

    const b2 = circuitBreaker({ name: 'tokens', clock });
    const usdBudget = spendLimit({
      usd: 1_000,
      prices,
      rate: { tokens: 10, perMs: 1_000, breaker: b2 },
    });
    usdBudget.record({ input: 5, output: 6 }, { model: 'claude-sonnet-4-6' });
    expect(b2.state).toBe('open');
  });

  it("per dependency with a BreakerRegistry: only the over-spending dependency's breaker opens", async () => {
    const clock = new VirtualClock();
    const breakers = new BreakerRegistry({ clock, cooldownMs: 10_000 });
    const budget = spendLimit({
      tokens: 1e9,
      per: 'dependency',
      rate: { tokens: 1_000, perMs: 60_000, breaker: breakers },
    });
    const events: Array<RecourseEventMap['spend_rate_exceeded']> = [];
    budget.on('spend_rate_exceeded', (e) => events.push(e));
    const callOf = (name: string) => pipeline({ name }, breakers.get(name), budget);
    const search = callOf('search');
    const writer = callOf('writer');
    for (let i = 0; i < 4; i++) {
      await search.execute(async () => answer(300));
      await writer.execute(async () => answer(100));
      await clock.advance(1_000);
    }
    expect(breakers.states()).toEqual({ search: 'open', writer: 'closed' });
    expect(events).toEqual([
      {
        name: 'search',
        unit: 'tokens',
        rate: 1_200,
        limit: 1_000,
        perMs: 60_000,
        breaker: 'search',
      },
    ]);
    expect(
      isCircuitOpenError(await search.execute(async () => answer(1)).catch((e: unknown) => e)),
    ).toBe(true);
    expect(await writer.execute(async () => 'still served')).toBe('still served');
    expect(budget.spent('search')).toBe(1_200);
  });

  it('one breaker for a per-dependency budget: one window over everything the limit counts', async () => {
    const clock = new VirtualClock();
    const breaker = circuitBreaker({ name: 'all', clock });
    const budget = spendLimit({
      tokens: 1e9,
      per: 'dependency',
      name: 'agent',
      rate: { tokens: 1_000, perMs: 60_000, breaker },
    });
    const events: Array<RecourseEventMap['spend_rate_exceeded']> = [];
    budget.on('spend_rate_exceeded', (e) => events.push(e));
    budget.record({ input: 600, output: 0 }, { dependency: 'a' });
    budget.record({ input: 600, output: 0 }, { dependency: 'b' });
    expect(breaker.state).toBe('open');
    expect(events[0]).toMatchObject({ name: 'agent', rate: 1_200, breaker: 'all' });
  });

  it('a breaker on memoryStore(): the trip goes through the store, and a second breaker on it sees it open', async () => {
    const clock = new VirtualClock(1_000_000);
    const store = memoryStore();
    const here = circuitBreaker({ name: 'shared', store, clock, cooldownMs: 5_000 });
    const there = circuitBreaker({ name: 'shared', store, clock, cooldownMs: 5_000 });
    const budget = spendLimit({ tokens: 1e9, rate: { tokens: 100, perMs: 1_000, breaker: here } });
    await there.execute(() => 'loaded');
    await pipeline(here, budget).execute(async () => answer(200));
    expect(here.state).toBe('open'); // at once in the process that tripped it
    await new Promise((r) => setTimeout(r, 0));
    expect((await store.breakerGet('shared'))?.state).toBe('open');
    expect(there.state).toBe('open');
    expect(isCircuitOpenError(await there.execute(() => 'x').catch((e: unknown) => e))).toBe(true);
    await clock.advance(5_000);
    expect(await there.execute(() => 'probe')).toBe('probe');
    await new Promise((r) => setTimeout(r, 0));
    expect(here.state).toBe('closed');
  });

  it('options are checked: exactly one unit, numbers > 0, a breaker, no unknown key', () => {
    const breaker = circuitBreaker();
    const bad: Array<[unknown, RegExp]> = [
      [{ tokens: 1, perMs: 1, breaker, every: 1 }, /rate: unknown option "every"/],
      [{ perMs: 1, breaker }, /exactly one of usd and tokens/],
      [{ tokens: 1, usd: 1, perMs: 1, breaker }, /exactly one of usd and tokens/],
      [{ tokens: 0, perMs: 1, breaker }, /rate.tokens must be a finite number > 0/],
      [{ tokens: -1, perMs: 1, breaker }, /rate.tokens/],
      [
        { tokens: Number.POSITIVE_INFINITY, perMs: 1, breaker },
        /rate.tokens must be a finite number > 0/,
      ],
      [{ tokens: 1, perMs: 0, breaker }, /rate.perMs/],
      [{ tokens: 1, breaker }, /rate.perMs must be a number/],
      [{ tokens: 1, perMs: 1 }, /rate.breaker must be a circuitBreaker\(\) or a BreakerRegistry/],
      [{ tokens: 1, perMs: 1, breaker: { state: 'closed' } }, /rate.breaker must be/],
      [{ usd: 1, perMs: 1, breaker }, /rate.usd needs the spend limit's prices/],
      [null, /rate options must be an object/],
    ];
    for (const [rate, message] of bad)
      expect(() => spendLimit({ tokens: 10, rate: rate as never }), String(message)).toThrow(
        message,
      );
    expect(() =>
      spendLimit({ tokens: 10, rate: { tokens: 1, perMs: 1, breaker, every: 1 } as never }),
    ).toThrow(TypeError);
    expect(() =>
      spendLimit({ tokens: 10, rate: { tokens: 1, perMs: 1, breaker: new BreakerRegistry() } }),
    ).not.toThrow();
  });

  it.each([
    ['in this process', false],
    ['on memoryStore()', true],
  ])(
    'property (%s): the breaker is open exactly when the windowed spend passed the limit since the last close',
    async (_, shared) => {
      const LIMIT = 1_000;
      const PER_MS = 1_000;
      const COOLDOWN = 700;
      type Step =
        | { t: 'spend' | 'call'; tokens: number }
        | { t: 'advance'; ms: number }
        | { t: 'fail' }
        | { t: 'reset' };
      const step = fc.oneof(
        {
          weight: 3,
          arbitrary: fc.record({
            t: fc.constantFrom('spend' as const, 'call' as const),
            tokens: fc.integer({ min: 0, max: 600 }),
          }),
        },
        // Multiples of 100 ms: spending exactly perMs old is common (it is out of the window).
        {
          weight: 3,
          arbitrary: fc.record({
            t: fc.constant('advance' as const),
            ms: fc.oneof(
              fc.integer({ min: 0, max: 10 }).map((n) => n * 100),
              fc.integer({ min: 0, max: 900 }),
            ),
          }),
        },
        {
          weight: 1,
          arbitrary: fc.record({ t: fc.constantFrom('fail' as const, 'reset' as const) }),
        },
      );
      await fc.assert(
        fc.asyncProperty(fc.array(step, { maxLength: 60 }), async (steps: Step[]) => {
          const clock = new VirtualClock();
          // One failure opens it too (so a close after a failure's open starts a new window as well).
          const breaker = circuitBreaker({
            name: 'p',
            clock,
            cooldownMs: COOLDOWN,
            failureThreshold: 1,
            ...(shared ? { store: memoryStore() } : {}),
          });
          const budget = spendLimit({
            tokens: 1e12,
            rate: { tokens: LIMIT, perMs: PER_MS, breaker },
          });
          const call = pipeline(breaker, budget);
          // The model: what was spent since the last close, with its times; open from a crossing
          // (or a failure) until a probe's success after the cooldown (or a reset).
          let window: Array<[number, number]> = [];
          let open = false;
          let openedAt = 0;
          const opens = () => {
            open = true;
            openedAt = clock.now();
            window = [];
          };
          const count = (tokens: number) => {
            const now = clock.now();
            window.push([now, tokens]);
            window = window.filter(([t]) => now - t < PER_MS);
            if (window.reduce((n, [, a]) => n + a, 0) > LIMIT) opens();
          };
          for (const s of steps) {
            if (s.t === 'advance') await clock.advance(s.ms);
            else if (s.t === 'reset') {
              await breaker.reset();
              open = false;
              window = [];
            } else if (s.t === 'spend') {
              if (!open) count(s.tokens);
              budget.record({ input: s.tokens, output: 0 });
            } else {
              const fails = s.t === 'fail';
              const result = await call
                .execute(async () => {
                  if (fails) throw Object.assign(new Error('503'), { status: 503 });
                  return answer(s.tokens * 2);
                })
                .catch((e: unknown) => e);
              const probing = open && clock.now() - openedAt >= COOLDOWN;
              if (open && !probing) expect(isCircuitOpenError(result)).toBe(true);
              else if (fails)
                opens(); // a failed call or probe (re)opens it
              else if (probing)
                open = false; // the probe's spending is not counted; its success closes it
              else count(s.tokens * 2);
            }
            // A shared breaker writes failures and trips behind: let the store's answers land.
            if (shared) await new Promise((r) => setTimeout(r, 0));
            expect(breaker.state).toBe(open ? 'open' : 'closed');
          }
        }),
        { numRuns: shared ? 150 : 300 },
      );
    },
  );
});
