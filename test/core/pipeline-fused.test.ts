import { AsyncLocalStorage } from 'node:async_hooks';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deadlineQueue } from '../../src/clock/deadline-queue.js';
import {
  type CallContext,
  circuitBreaker,
  constant,
  pipeline,
  type Policy,
  retry,
  TimeoutError,
  timeout,
} from '../../src/index.js';
import { VirtualClock } from '../../src/testing/index.js';
import { httpError } from '../helpers/http-error.js';
import { never } from './helpers.js';

// pipeline(breaker, retry, timeout) runs its first attempt in one fused step: the breaker's
// reaction settles the timeout's deadline (see circuit-breaker.ts, #callTimed). Written as
// pipeline(breaker, pipeline(retry, timeout)) the same policies compose layer by layer, unfused:
// both must behave the same in every respect a caller or a sink can see.

type Step = { kind: 'ok' | 'fail' | 'fatal' | 'hang' | 'syncOk' | 'syncThrow'; ms: number };
type Call = { startAt: number; steps: Step[] };

const step: fc.Arbitrary<Step> = fc.record({
  kind: fc.constantFrom('ok', 'fail', 'fatal', 'hang', 'syncOk', 'syncThrow'),
  ms: fc.integer({ min: 0, max: 150 }),
});
const call: fc.Arbitrary<Call> = fc.record({
  startAt: fc.integer({ min: 0, max: 400 }),
  steps: fc.array(step, { maxLength: 4 }),
});

interface Trace {
  outcomes: string[];
  attempts: string[];
  events: string[];
  pending: number;
}

async function drive(calls: Call[], fused: boolean): Promise<Trace> {
  const clock = new VirtualClock();
  const breaker = circuitBreaker({
    name: 'dep',
    failureThreshold: 2,
    cooldownMs: 60,
    probeTimeoutMs: 80,
    clock,
  });
  const r = retry({ maxAttempts: 3, backoff: constant(10), clock });
  const t = timeout(100, { clock });
  const policy: Policy = fused ? pipeline(breaker, r, t) : pipeline(breaker, pipeline(r, t));
  const events: string[] = [];
  const log =
    (type: string) =>
    (e: object): void => {
      const { error, ...rest } = e as { error?: unknown };
      events.push(
        `${clock.now()} ${type} ${JSON.stringify(rest)} ${error instanceof Error ? error.name : ''}`,
      );
    };
  for (const [p, types] of [
    [breaker, ['state', 'reject', 'timeout']],
    [r, ['retry', 'giveup']],
    [t, ['timeout']],
  ] as const) {
    for (const type of types)
      (p as { on(t: string, l: (e: object) => void): void }).on(type, log(type));
  }
  const outcomes: string[] = new Array(calls.length).fill('pending');
  const attempts: string[] = [];
  const started: Promise<void>[] = [];
  const order = calls
    .map((c, i) => ({ ...c, i }))
    .sort((a, b) => a.startAt - b.startAt || a.i - b.i);
  for (const c of order) {
    await clock.advanceTo(c.startAt);
    let n = 0;
    const work = (ctx: CallContext): unknown => {
      const s = c.steps[n++] ?? { kind: 'ok', ms: 0 };
      attempts.push(
        `${c.i}.${n} at ${clock.now()} attempt ${ctx.attempt} deadline ${ctx.deadline} ${s.kind}`,
      );
      ctx.signal.addEventListener('abort', () =>
        attempts.push(`${c.i}.${n} aborted at ${clock.now()} ${(ctx.signal.reason as Error).name}`),
      );
      switch (s.kind) {
        case 'syncOk':
          return `v${c.i}.${n}`;
        case 'syncThrow':
          throw httpError(503);
        case 'hang':
          return never();
        case 'ok':
          return clock.sleep(s.ms).then(() => `v${c.i}.${n}`);
        case 'fail':
          return clock.sleep(s.ms).then(() => Promise.reject(httpError(503)));
        case 'fatal':
          return clock.sleep(s.ms).then(() => Promise.reject(httpError(400)));
      }
    };
    started.push(
      policy.execute(work).then(
        (v) => {
          outcomes[c.i] = `${clock.now()} ok ${String(v)}`;
        },
        (e: unknown) => {
          outcomes[c.i] = `${clock.now()} ${(e as Error).name} ${(e as Error).message}`;
        },
      ),
    );
  }
  await clock.advance(2_000);
  await Promise.all(started);
  return { outcomes, attempts, events, pending: deadlineQueue(clock).size };
}

describe('pipeline(breaker, retry, timeout), fused', () => {
  it('behaves exactly like the same policies unfused: outcomes, attempts, aborts, events, times (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 8 }), async (calls) => {
        const fused = await drive(calls, true);
        const layered = await drive(calls, false);
        expect(fused).toEqual(layered);
        expect(fused.outcomes).not.toContain('pending');
        expect(fused.pending).toBe(0);
      }),
      { numRuns: 150 },
    );
  });

  it('times out a hung first attempt at its deadline and retries it, with the deadline visible to fn and to calls inside it', async () => {
    const clock = new VirtualClock(1_000);
    const policy = pipeline(
      circuitBreaker({ clock }),
      retry({ maxAttempts: 2, backoff: constant(0), clock }),
      timeout(100, { clock }),
    );
    const seen: Array<number | undefined> = [];
    const p = policy.execute((ctx) => {
      seen.push(ctx.deadline);
      // a policy called inside fn sees the enclosing deadline through the call's scope
      return retry({ clock }).execute((inner) => {
        seen.push(inner.deadline);
        return ctx.attempt === 1 ? never<string>() : 'second';
      });
    });
    await clock.advance(100);
    await expect(p).resolves.toBe('second');
    expect(seen).toEqual([1_100, 1_100, 1_200, 1_200]);
    expect(deadlineQueue(clock).size).toBe(0);
  });

  it("the attempt after an expiry runs in its caller's own async context, not in the context of whoever armed the shared timer", async () => {
    const clock = new VirtualClock();
    const user = new AsyncLocalStorage<string>();
    const policy = pipeline(
      circuitBreaker({ clock }),
      retry({ maxAttempts: 2, backoff: constant(0), clock }),
      timeout(100, { clock }),
    );
    // `a` arms the shared deadline timer inside its own context; b's first attempt hangs, so b's
    // expiry is fired by that timer, and b's retry must still start in b's context.
    const a = user.run('a', () =>
      policy.execute(() => clock.sleep(50).then(() => user.getStore())),
    );
    await clock.advance(10);
    const seen: Array<string | undefined> = [];
    const b = user.run('b', () =>
      policy.execute((ctx) => {
        seen.push(user.getStore());
        return ctx.attempt === 1 ? never<string>() : 'b';
      }),
    );
    await clock.advance(200);
    await expect(a).resolves.toBe('a');
    await expect(b).resolves.toBe('b');
    expect(seen).toEqual(['b', 'b']);
  });

  it('unschedules each deadline when its call settles, and a late answer after an expiry changes nothing', async () => {
    const clock = new VirtualClock();
    const breaker = circuitBreaker({ clock, failureThreshold: 1 });
    const policy = pipeline(breaker, retry({ maxAttempts: 1, clock }), timeout(100, { clock }));
    const all = Promise.all(
      Array.from({ length: 50 }, (_, i) => policy.execute(() => clock.sleep(i).then(() => i))),
    );
    expect(deadlineQueue(clock).size).toBe(50);
    await clock.advance(60);
    expect(await all).toHaveLength(50);
    expect(deadlineQueue(clock).size).toBe(0);
    const late = policy.execute(() => clock.sleep(150).then(() => 'late'));
    const outcome = late.catch((e: unknown) => e);
    await clock.advance(100);
    expect(await outcome).toBeInstanceOf(Error);
    expect(((await outcome) as Error).cause).toBeInstanceOf(TimeoutError);
    expect(breaker.state).toBe('open');
    await clock.advance(100);
    expect(breaker.state).toBe('open');
    expect(deadlineQueue(clock).size).toBe(0);
  });
});
