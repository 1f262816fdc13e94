// A CircuitOpenError says why the breaker opened: its `cause` is the failure that opened it, so
// explain() shows it; for a breaker opened through its store by another process, a description
// of the stored record.
import { describe, expect, it } from 'vitest';
import {
  type CircuitOpenError,
  circuitBreaker,
  explain,
  isCircuitOpenError,
  isRecourseError,
  isTimeoutError,
  memoryStore,
  pipeline,
  timeout,
} from '../../src/index.js';
import { VirtualClock } from '../../src/testing/index.js';
import { httpError } from '../helpers/http-error.js';
import { tick } from './helpers.js';

const rejectionOf = async (p: Promise<unknown>): Promise<CircuitOpenError> => {
  const e = await p.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!isCircuitOpenError(e)) throw new Error(`expected a CircuitOpenError, got ${String(e)}`);
  return e;
};

describe('CircuitOpenError carries what opened the breaker', () => {
  it('the failure that reached the threshold is the cause, and explain() shows it', async () => {
    const b = circuitBreaker({ name: 'bank', failureThreshold: 2, clock: new VirtualClock() });
    const first = httpError(503, { message: 'bank unavailable (first)' });
    const second = httpError(503, { message: 'bank unavailable (second)' });
    await b.execute(() => Promise.reject(first)).catch(() => {});
    await b.execute(() => Promise.reject(second)).catch(() => {});
    const rejected = await rejectionOf(b.execute(() => 'never runs'));
    expect(rejected.cause).toBe(second);
    expect(explain(rejected)).toContain('bank unavailable (second)');
    // a synchronous throw counts the same
    const sync = circuitBreaker({ name: 's', failureThreshold: 1, clock: new VirtualClock() });
    const thrown = httpError(500, { message: 'boom' });
    await sync
      .execute(() => {
        throw thrown;
      })
      .catch(() => {});
    expect((await rejectionOf(sync.execute(() => 1))).cause).toBe(thrown);
  });

  it('a failed probe reopens it with its own failure as the cause; a timed-out probe with its TimeoutError; closed again, no cause is left', async () => {
    const clock = new VirtualClock();
    const b = circuitBreaker({
      name: 'bank',
      failureThreshold: 1,
      cooldownMs: 1_000,
      probeTimeoutMs: 500,
      clock,
    });
    await b.execute(() => Promise.reject(httpError(503))).catch(() => {});
    await clock.advance(1_000);
    const probeFailure = httpError(502, { message: 'probe failed' });
    await b.execute(() => Promise.reject(probeFailure)).catch(() => {});
    expect((await rejectionOf(b.execute(() => 1))).cause).toBe(probeFailure);
    await clock.advance(1_000);
    const hung = b.execute(() => new Promise(() => {})).catch((e: unknown) => e);
    await clock.advance(500);
    expect(isTimeoutError(await hung)).toBe(true);
    const afterTimeout = await rejectionOf(b.execute(() => 1));
    expect(isTimeoutError(afterTimeout.cause)).toBe(true);
    expect(explain(afterTimeout)).toContain('probe did not settle within 500 ms');
    await b.reset();
    await b.isolate();
    expect((await rejectionOf(b.execute(() => 1))).cause).toBeUndefined();
  });

  it('opened by another process through the store: the cause describes the stored record', async () => {
    const clock = new VirtualClock(1_700_000_000_000);
    const store = memoryStore();
    const options = { name: 'bank', store, clock, failureThreshold: 2, cooldownMs: 60_000 };
    const here = circuitBreaker(options);
    const there = circuitBreaker(options);
    await here.execute(() => 1);
    await there.execute(() => 1);
    for (let i = 0; i < 2; i++)
      await there.execute(() => Promise.reject(httpError(503))).catch(() => {});
    for (let i = 0; i < 5 && here.state !== 'open'; i++) await tick();
    expect(here.state).toBe('open');
    const rejected = await rejectionOf(here.execute(() => 1));
    expect(isRecourseError(rejected.cause)).toBe(true);
    expect((rejected.cause as Error).message).toBe(
      `circuit "bank" was opened through its store at ${new Date(1_700_000_000_000).toISOString()}: 2 consecutive failures counted by the processes sharing it (failureThreshold 2)`,
    );
    expect(explain(rejected)).toContain('was opened through its store');
  });

  it('a probe ended by an enclosing timeout reopens it with that TimeoutError as the cause (no store)', async () => {
    const clock = new VirtualClock();
    const b = circuitBreaker({ name: 'slow', failureThreshold: 1, cooldownMs: 10, clock });
    await b.execute(() => Promise.reject(httpError(503))).catch(() => {});
    await clock.advance(10);
    const probe = pipeline(timeout(50, { clock }), b)
      .execute(() => new Promise(() => {}))
      .catch((e: unknown) => e);
    await clock.advance(50);
    const ended = await probe;
    expect(isTimeoutError(ended)).toBe(true);
    expect(b.state).toBe('open');
    const rejected = await rejectionOf(b.execute(() => 'never runs'));
    expect(rejected.cause).toBe(ended);
    expect(explain(rejected)).not.toContain('another process');
  });
});
