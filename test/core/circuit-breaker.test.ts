import { describe, expect, it } from 'vitest';
import {
  CircuitOpenError,
  circuitBreaker,
  constant,
  isCircuitOpenError,
  pipeline,
  retry,
  TimeoutError,
} from '../../src/index.js';
import { VirtualClock } from '../../src/testing/index.js';
import { httpError } from '../helpers/http-error.js';
import { never, tick } from './helpers.js';

const fail =
  (status = 503) =>
  () =>
    Promise.reject(httpError(status));
const ok = () => Promise.resolve('ok');

async function openBreaker(b: ReturnType<typeof circuitBreaker>, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await b.execute(fail()).catch(() => undefined);
}

describe('circuitBreaker', () => {
  it('opens at the threshold and then rejects with CircuitOpenError without calling fn', async () => {
    const clock = new VirtualClock();
    const b = circuitBreaker({ name: 'dep', failureThreshold: 3, cooldownMs: 1_000, clock });
    await openBreaker(b, 2);
    expect(b.state).toBe('closed');
    await openBreaker(b, 1);
    expect(b.state).toBe('open');
    let called = false;
    await clock.advance(400);
    const error = await b
      .execute(() => {
        called = true;
        return 1;
      })
      .catch((e: unknown) => e);
    expect(called).toBe(false);
    expect(error).toBeInstanceOf(CircuitOpenError);
    expect((error as CircuitOpenError).retryAfterMs).toBe(600);
    expect((error as CircuitOpenError).breaker).toBe('dep');
  });

  it('a success resets the consecutive count', async () => {
    const b = circuitBreaker({ failureThreshold: 2 });
    await openBreaker(b, 1);
    await b.execute(ok);
    await openBreaker(b, 1);
    expect(b.state).toBe('closed');
  });

  it('after the cooldown, 1,000 concurrent callers → exactly one probe reaches fn, the rest are rejected at once', async () => {
    const clock = new VirtualClock();
    const b = circuitBreaker({ failureThreshold: 1, cooldownMs: 1_000, clock });
    await openBreaker(b, 1);
    await clock.advance(1_000);
    let reached = 0;
    let release!: (v: string) => void;
    const gate = new Promise<string>((r) => (release = r));
    const results = Array.from({ length: 1_000 }, () =>
      b
        .execute(() => {
          reached++;
          return gate;
        })
        .then(
          (v) => ({ ok: true as const, v }),
          (e: unknown) => ({ ok: false as const, e }),
        ),
    );
    // every rejected caller settles without waiting for the probe
    const early = await Promise.race([
      Promise.all(results.slice(1)),
      new Promise((r) => setTimeout(() => r('timeout'), 1_000)),
    ]);
    expect(early).not.toBe('timeout');
    expect(reached).toBe(1);
    expect(b.state).toBe('half-open');
    release('probe-ok');
    const all = await Promise.all(results);
    expect(all.filter((r) => r.ok)).toHaveLength(1);
    expect(all.filter((r) => !r.ok && isCircuitOpenError(r.e))).toHaveLength(999);
    expect(b.state).toBe('closed');
  });

  it('a failed probe reopens and restarts the cooldown', async () => {
    const clock = new VirtualClock();
    const b = circuitBreaker({ failureThreshold: 1, cooldownMs: 1_000, clock });
    await openBreaker(b, 1);
    await clock.advance(1_500);
    await b.execute(fail()).catch(() => undefined); // the probe fails at t=1500
    expect(b.state).toBe('open');
    await clock.advance(900); // t=2400: a cooldown measured from the first opening would be over
    const e = await b.execute(ok).catch((x: unknown) => x);
    expect(isCircuitOpenError(e)).toBe(true);
    expect((e as CircuitOpenError).retryAfterMs).toBe(100);
    await clock.advance(100);
    await expect(b.execute(ok)).resolves.toBe('ok');
    expect(b.state).toBe('closed');
  });

  it('a probe that never settles is failed at probeTimeoutMs; its caller gets TimeoutError; the breaker reopens', async () => {
    const clock = new VirtualClock();
    const b = circuitBreaker({
      failureThreshold: 1,
      cooldownMs: 1_000,
      probeTimeoutMs: 200,
      clock,
    });
    await openBreaker(b, 1);
    await clock.advance(1_000);
    let signal: AbortSignal | undefined;
    const probe = b.execute((ctx) => {
      signal = ctx.signal;
      return never();
    });
    const settled = probe.catch((e: unknown) => e);
    await clock.advance(200);
    const error = await settled;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(signal?.aborted).toBe(true);
    expect(b.state).toBe('open');
    await clock.advance(1_000);
    await expect(b.execute(ok)).resolves.toBe('ok');
  });

  it('a probe whose outcome does not count (400) frees the slot and leaves the breaker half-open', async () => {
    const clock = new VirtualClock();
    const b = circuitBreaker({ failureThreshold: 1, cooldownMs: 10, clock });
    await openBreaker(b, 1);
    await clock.advance(10);
    await b.execute(fail(400)).catch(() => undefined);
    expect(b.state).toBe('half-open');
    await expect(b.execute(ok)).resolves.toBe('ok');
    expect(b.state).toBe('closed');
  });

  it('a caller abort of the probe frees the slot', async () => {
    const clock = new VirtualClock();
    const b = circuitBreaker({ failureThreshold: 1, cooldownMs: 10, clock });
    await openBreaker(b, 1);
    await clock.advance(10);
    const controller = new AbortController();
    const probe = b.execute(
      (ctx) =>
        new Promise((_, reject) =>
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)),
        ),
      {
        signal: controller.signal,
      },
    );
    controller.abort();
    await probe.catch(() => undefined);
    await tick();
    expect(b.state).toBe('half-open');
    await expect(b.execute(ok)).resolves.toBe('ok');
  });

  it('outcomes of calls that started before the latest state change do not move it', async () => {
    const clock = new VirtualClock();
    const b = circuitBreaker({ failureThreshold: 1, cooldownMs: 100, clock });
    let releaseSlow!: (v: string) => void;
    let failSlow!: (e: unknown) => void;
    const slowOk = b.execute(() => new Promise<string>((r) => (releaseSlow = r)));
    const slowFail = b.execute(() => new Promise<string>((_, r) => (failSlow = r)));
    await openBreaker(b, 1);
    expect(b.state).toBe('open');
    releaseSlow('late'); // a success from before the opening must not close it
    await slowOk;
    expect(b.state).toBe('open');
    await clock.advance(100);
    await b.execute(ok); // probe closes it
    expect(b.state).toBe('closed');
    failSlow(httpError(503)); // a failure from before must not reopen it
    await slowFail.catch(() => undefined);
    expect(b.state).toBe('closed');
    expect(b.toJSON()).toMatchObject({ failures: 0 });
  });

  it('does not count 400-class errors', async () => {
    const b = circuitBreaker({ failureThreshold: 2 });
    for (let i = 0; i < 10; i++) await b.execute(fail(400)).catch(() => undefined);
    for (let i = 0; i < 10; i++) await b.execute(fail(404)).catch(() => undefined);
    expect(b.state).toBe('closed');
  });

  it('pipeline(breaker, retry(3)): one failed sequence counts once; a rejected call is never retried or counted', async () => {
    const clock = new VirtualClock();
    const b = circuitBreaker({ failureThreshold: 2, cooldownMs: 1_000, clock });
    let calls = 0;
    const policy = pipeline(b, retry({ maxAttempts: 3, clock, backoff: constant(1) }));
    const run = () =>
      policy.execute(() => {
        calls++;
        return Promise.reject(httpError(503));
      });
    const first = run().catch((e: unknown) => e);
    await clock.advance(10);
    await first;
    expect(calls).toBe(3);
    expect(b.state).toBe('closed'); // 3 attempts, counted once
    expect(b.toJSON()).toMatchObject({ failures: 1 });
    const second = run().catch((e: unknown) => e);
    await clock.advance(10);
    await second;
    expect(b.state).toBe('open');
    calls = 0;
    const rejected = await run().catch((e: unknown) => e);
    expect(isCircuitOpenError(rejected)).toBe(true);
    expect(calls).toBe(0);
    expect(b.toJSON()).toMatchObject({ state: 'open' });
  });

  it('isolate holds it open until reset', async () => {
    const b = circuitBreaker({ name: 'x' });
    const states: string[] = [];
    b.on('state', (e) => states.push(`${e.from}->${e.to}`));
    b.isolate();
    expect(isCircuitOpenError(await b.execute(ok).catch((e: unknown) => e))).toBe(true);
    b.reset();
    await expect(b.execute(ok)).resolves.toBe('ok');
    expect(states).toEqual(['closed->isolated', 'isolated->closed']);
  });

  it('emits state and reject events', async () => {
    const clock = new VirtualClock();
    const b = circuitBreaker({ name: 'svc', failureThreshold: 1, cooldownMs: 50, clock });
    const events: unknown[] = [];
    b.on('state', (e) => events.push(e));
    b.on('reject', (e) => events.push(e));
    await openBreaker(b, 1);
    await b.execute(ok).catch(() => undefined);
    await clock.advance(50);
    await b.execute(ok);
    expect(events).toEqual([
      { name: 'svc', from: 'closed', to: 'open' },
      { name: 'svc', retryAfterMs: 50 },
      { name: 'svc', from: 'open', to: 'half-open' },
      { name: 'svc', from: 'half-open', to: 'closed' },
    ]);
  });

  describe('sliding window', () => {
    const window = { durationMs: 1_000, minimumCalls: 10, failureRate: 0.5 };

    it('opens only after minimumCalls and at failureRate', async () => {
      const clock = new VirtualClock();
      const b = circuitBreaker({ window, clock });
      for (let i = 0; i < 9; i++) await b.execute(fail()).catch(() => undefined);
      expect(b.state).toBe('closed'); // 9 of 9 failed but fewer than minimumCalls
      await b.execute(fail()).catch(() => undefined);
      expect(b.state).toBe('open');
    });

    it('stays closed below the failure rate', async () => {
      const clock = new VirtualClock();
      const b = circuitBreaker({ window, clock });
      for (let i = 0; i < 30; i++) {
        if (i % 3 === 0) await b.execute(fail()).catch(() => undefined);
        else await b.execute(ok);
      }
      expect(b.state).toBe('closed');
    });

    it('old buckets expire', async () => {
      const clock = new VirtualClock();
      const b = circuitBreaker({ window, clock });
      for (let i = 0; i < 9; i++) await b.execute(fail()).catch(() => undefined);
      await clock.advance(1_500); // the nine failures leave the window
      await b.execute(fail()).catch(() => undefined);
      expect(b.state).toBe('closed');
      expect(b.toJSON()).toMatchObject({ window: { calls: 1, failures: 1 } });
    });
  });

  describe("the seed reference breaker's two bugs", () => {
    it('after the cooldown it admits one probe, not every caller', async () => {
      const clock = new VirtualClock();
      const b = circuitBreaker({ failureThreshold: 3, cooldownMs: 30_000, clock });
      await openBreaker(b, 3);
      await clock.advance(30_000);
      let reached = 0;
      const calls = Array.from({ length: 10 }, () =>
        b
          .execute(() => {
            reached++;
            return never();
          })
          .catch(() => undefined),
      );
      await tick();
      expect(reached).toBe(1);
      void calls;
    });

    it('a failed probe restarts the cooldown', async () => {
      const clock = new VirtualClock();
      const b = circuitBreaker({ failureThreshold: 3, cooldownMs: 30_000, clock });
      await openBreaker(b, 3);
      await clock.advance(30_000);
      await b.execute(fail()).catch(() => undefined);
      await clock.advance(1);
      expect(isCircuitOpenError(await b.execute(ok).catch((e: unknown) => e))).toBe(true);
    });
  });
});
