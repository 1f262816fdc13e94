import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { degradation, type LevelChange } from '../../src/guardrails/degradation.js';
import { healthMonitor } from '../../src/guardrails/health-monitor.js';
import { subscribe } from '../../src/index.js';
import { instrument } from '../../src/telemetry/instrument.js';
import { VirtualClock } from '../../src/testing/index.js';
import { httpError } from '../helpers/http-error.js';

const flags = { parallelToolCalls: true, maxContextTokens: 200_000, temperature: 0.7 };
const levels = [
  { name: 'normal', flags },
  { name: 'degraded', enterAt: 0.2, exitBelow: 0.1, flags: { parallelToolCalls: false } },
  {
    name: 'hard',
    enterAt: 0.5,
    exitBelow: 0.25,
    flags: { parallelToolCalls: false, maxContextTokens: 50_000, temperature: 0 },
  },
] as const;
const ENTER_AT: Record<string, number> = { degraded: 0.2, hard: 0.5 };
const EXIT_BELOW: Record<string, number> = { degraded: 0.1, hard: 0.25 };

/** A controller on a hand-driven error rate. */
function onRate(holdMs = 30_000) {
  const clock = new VirtualClock();
  let rate = 0;
  const controller = degradation({
    levels: [...levels],
    errorRate: () => ({ rate, calls: 100, failures: 100 * rate }),
    holdMs,
    clock,
  });
  return {
    clock,
    controller,
    set(r: number) {
      rate = r;
      return controller.level;
    },
  };
}

describe('degradation', () => {
  it('validates its options, naming the option', () => {
    const errorRate = () => 0;
    expect(() => degradation({ levels: [] as never, errorRate })).toThrow(
      /levels must be a non-empty array/,
    );
    expect(() =>
      degradation({
        levels: [
          { name: 'normal', flags },
          { name: 'bad', enterAt: 1.5 },
        ],
        errorRate,
      }),
    ).toThrow(/levels\[1\].enterAt must be a number between/);
    expect(() =>
      degradation({
        levels: [
          { name: 'normal', flags },
          { name: 'a', enterAt: 0.5 },
          { name: 'b', enterAt: 0.3 },
        ],
        errorRate,
      }),
    ).toThrow(/levels\[2\].enterAt must be greater than levels\[1\].enterAt \(0.5\), got 0.3/);
    expect(() =>
      degradation({
        levels: [
          { name: 'normal', flags },
          { name: 'a', enterAt: 0.2, exitBelow: 0.3 },
        ],
        errorRate,
      }),
    ).toThrow(/levels\[1\].exitBelow must be a number between 0 and 0.2, got 0.3/);
    expect(() =>
      degradation({
        levels: [
          { name: 'normal', flags },
          { name: 'normal', enterAt: 0.2 },
        ],
        errorRate,
      }),
    ).toThrow(/used twice/);
    expect(() => degradation({ levels: [{ name: 'normal', flags }] })).toThrow(
      /needs a monitor .* or an errorRate function/,
    );
    expect(() =>
      degradation({ levels: [{ name: 'normal', flags }], errorRate, holdMs: -1 }),
    ).toThrow(/holdMs must be a number >= 0, got -1/);
    expect(() =>
      degradation({ levels: [{ name: 'normal', flags }], errorRate, onContextOverflow: () => {} }),
    ).toThrow(/onContextOverflow needs a monitor/);
  });

  it('carries each level’s flags over the healthy level’s, frozen', () => {
    const { controller, set } = onRate();
    expect(controller.flags).toEqual(flags);
    set(0.3);
    expect(controller.flags).toEqual({
      parallelToolCalls: false,
      maxContextTokens: 200_000,
      temperature: 0.7,
    });
    set(0.9);
    expect(controller.flags).toEqual({
      parallelToolCalls: false,
      maxContextTokens: 50_000,
      temperature: 0,
    });
    expect(Object.isFrozen(controller.flags)).toBe(true);
    expect(controller.levelIndex).toBe(2);
  });

  it('escalates at once, straight to the highest level reached', () => {
    const { controller, set } = onRate();
    expect(set(0.6)).toBe('hard');
    expect(controller.changes.map((c) => `${c.from}->${c.to}:${c.direction}`)).toEqual([
      'normal->hard:escalate',
    ]);
  });

  it('restores only after the hold time, and only below the level’s exit rate', async () => {
    const { clock, controller, set } = onRate(30_000);
    set(0.6);
    set(0.01);
    await clock.advance(29_999);
    expect(controller.level).toBe('hard');
    await clock.advance(1);
    expect(controller.level).toBe('normal'); // straight down: the rate is below every exit threshold
    set(0.6);
    await clock.advance(30_000);
    expect(set(0.15)).toBe('degraded'); // below hard's exit, still above degraded's
    await clock.advance(10_000);
    expect(set(0.05)).toBe('degraded'); // hold restarts with every change
    await clock.advance(20_000);
    expect(controller.level).toBe('normal');
  });

  it('a rate oscillating around a threshold does not flap', async () => {
    const { clock, controller, set } = onRate(30_000);
    // around degraded's entry threshold: in once, and never out (the rate never falls below 0.1)
    for (let s = 0; s < 600; s++) {
      set(s % 2 === 0 ? 0.19 : 0.21);
      await clock.advance(1_000);
    }
    expect(controller.changes.map((c) => c.to)).toEqual(['degraded']);
    // around its exit threshold: out once after the hold, and never back in (that needs 0.2)
    for (let s = 0; s < 600; s++) {
      set(s % 2 === 0 ? 0.09 : 0.11);
      await clock.advance(1_000);
    }
    expect(controller.changes.map((c) => c.to)).toEqual(['degraded', 'normal']);
  });

  it('property: whatever the rate does, every restore comes at least holdMs after the previous change, below the exit rate', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            rate: fc.double({ min: 0, max: 1, noNaN: true }),
            dt: fc.integer({ min: 0, max: 20_000 }),
          }),
          { maxLength: 200 },
        ),
        (steps) => {
          let now = 0;
          let rate = 0;
          const holdMs = 30_000;
          const controller = degradation({
            levels: [...levels],
            errorRate: () => rate,
            holdMs,
            clock: { now: () => now, sleep: () => Promise.resolve() },
          });
          const changes: Array<LevelChange & { rateThen: number }> = [];
          for (const step of steps) {
            now += step.dt;
            rate = step.rate;
            const change = controller.evaluate();
            if (change !== undefined) changes.push({ ...change, rateThen: rate });
          }
          const index = (name: string): number => levels.findIndex((l) => l.name === name);
          changes.forEach((c, i) => {
            const previousAt = i === 0 ? 0 : changes[i - 1]!.at;
            if (c.direction === 'restore') {
              expect(c.at - previousAt).toBeGreaterThanOrEqual(holdMs);
              expect(c.rateThen).toBeLessThan(EXIT_BELOW[c.from]!);
              expect(index(c.to)).toBeLessThan(index(c.from));
            } else {
              expect(c.rateThen).toBeGreaterThanOrEqual(ENTER_AT[c.to]!);
              expect(index(c.to)).toBeGreaterThan(index(c.from));
            }
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('on a health monitor: an error spike reaches its level within one window; recovery restores normal only after the hold', async () => {
    const clock = new VirtualClock();
    const monitor = healthMonitor({ clock, windowMs: 60_000, buckets: 12 });
    const controller = degradation({ monitor, levels: [...levels], holdMs: 30_000, clock });
    const published: unknown[] = [];
    const unsubscribe = subscribe((e) => {
      if (e.type === 'degradation')
        published.push({ name: e.name, from: e.from, to: e.to, level: e.level });
    });
    const second = async (failing: boolean): Promise<void> => {
      for (let i = 0; i < 10; i++) {
        monitor.record(
          'llm',
          failing ? { outcome: 'failure', error: httpError(529) } : { outcome: 'success' },
        );
        await clock.advance(100);
      }
    };
    for (let s = 0; s < 60; s++) await second(false);
    expect(controller.level).toBe('normal');
    const spikeAt = clock.now();
    while (controller.level !== 'hard' && clock.now() - spikeAt < 120_000) await second(true);
    const reached = clock.now() - spikeAt;
    expect(controller.level).toBe('hard');
    expect(reached).toBeLessThanOrEqual(60_000);
    const hardAt = controller.since;
    while (controller.level !== 'normal' && clock.now() - hardAt < 300_000) await second(false);
    unsubscribe();
    const changes = controller.changes;
    // down through degraded (the rate passes its band on the way), each step after a full hold
    expect(changes.map((c) => c.to)).toEqual(['degraded', 'hard', 'degraded', 'normal']);
    expect(changes[2]!.at - changes[1]!.at).toBeGreaterThanOrEqual(30_000);
    expect(changes[2]!.errorRate).toBeLessThan(0.25);
    expect(changes[3]!.at - changes[2]!.at).toBeGreaterThanOrEqual(30_000);
    expect(changes[3]!.errorRate).toBeLessThan(0.1);
    expect(published).toEqual([
      { name: 'degradation', from: 'normal', to: 'degraded', level: 1 },
      { name: 'degradation', from: 'degraded', to: 'hard', level: 2 },
      { name: 'degradation', from: 'hard', to: 'degraded', level: 1 },
      { name: 'degradation', from: 'degraded', to: 'normal', level: 0 },
    ]);
    controller.close();
  });

  it('needs minimumCalls of evidence to escalate, and restores when the evidence is gone', async () => {
    const clock = new VirtualClock();
    const monitor = healthMonitor({ clock, windowMs: 10_000 });
    const controller = degradation({
      monitor,
      levels: [...levels],
      minimumCalls: 5,
      holdMs: 5_000,
      clock,
    });
    for (let i = 0; i < 4; i++) monitor.record('a', { outcome: 'failure', error: httpError(500) });
    expect(controller.level).toBe('normal');
    monitor.record('a', { outcome: 'failure', error: httpError(500) });
    expect(controller.level).toBe('hard');
    await clock.advance(11_000); // no traffic: the window empties
    expect(controller.level).toBe('normal');
  });

  it('counts only failures of the dependency: a caller’s own 400s and bugs never escalate it (issue 11.5)', async () => {
    const clock = new VirtualClock();
    const monitor = healthMonitor({ clock });
    const controller = degradation({ monitor, levels: [...levels], minimumCalls: 5, clock });
    const detach = monitor.attach();
    const llm = instrument({ name: 'llm', clock });
    const fail = (error: unknown) => llm.execute(() => Promise.reject(error)).catch(() => {});
    for (let i = 0; i < 20; i++) {
      await fail(httpError(400, { message: 'bad tool schema' }));
      await fail(httpError(422, { message: 'unprocessable' }));
      await fail(new TypeError('x is undefined'));
    }
    await llm.execute(() => 'ok');
    expect(monitor.snapshot().dependencies.llm).toMatchObject({
      calls: 61,
      failures: 60,
      countedFailures: 0,
      errorRate: 0,
    });
    expect(controller.level).toBe('normal');
    // …while failures of the dependency do: the fourth 503 against one success reaches 0.8
    for (let i = 0; i < 5; i++) await fail(httpError(503));
    detach();
    expect(controller.level).toBe('hard');
    expect(controller.changes.at(-1)).toMatchObject({ errorRate: 0.8, calls: 5 });
  });

  it('watches only the dependencies it is given', () => {
    const clock = new VirtualClock();
    const monitor = healthMonitor({ clock });
    const controller = degradation({
      monitor,
      dependencies: ['llm'],
      levels: [...levels],
      minimumCalls: 1,
      clock,
    });
    monitor.record('search', { outcome: 'failure', error: httpError(503) });
    expect(controller.level).toBe('normal');
    monitor.record('llm', { outcome: 'failure', error: httpError(503) });
    expect(controller.level).toBe('hard');
  });

  it('calls onContextOverflow for a call that failed with a context_overflow classification', async () => {
    const clock = new VirtualClock();
    const monitor = healthMonitor({ clock });
    const overflows: string[] = [];
    const controller = degradation({
      monitor,
      levels: [...levels],
      clock,
      onContextOverflow: ({ dependency, error }) =>
        overflows.push(`${dependency}: ${(error as Error).message}`),
    });
    const detach = monitor.attach();
    const llm = instrument({ name: 'llm', clock });
    await llm
      .execute(() =>
        Promise.reject(
          httpError(400, { message: 'prompt is too long: 212000 tokens > 200000 maximum' }),
        ),
      )
      .catch(() => {});
    await llm
      .execute(() => Promise.reject(httpError(400, { message: 'bad tool schema' })))
      .catch(() => {});
    detach();
    controller.close();
    expect(overflows).toEqual(['llm: prompt is too long: 212000 tokens > 200000 maximum']);
  });
});
