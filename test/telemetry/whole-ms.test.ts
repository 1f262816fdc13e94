import { describe, expect, it } from 'vitest';
import {
  circuitBreaker,
  constant,
  degradation,
  explain,
  isCircuitOpenError,
  retry,
  StallError,
  TimeoutError,
} from '../../src/index.js';
import { toLogLine } from '../../src/telemetry/json-logger.js';
import { VirtualClock } from '../../src/testing/index.js';
import { httpError } from '../helpers/http-error.js';

const DECIMALS = /\d\.\d/;

describe('issue 11.5: times in explain, toJSON, log lines and messages are whole milliseconds', () => {
  it('a breaker on a clock with fractional time: the error, its explanation, toJSON and the reject event', async () => {
    const clock = new VirtualClock();
    await clock.advance(0.838808);
    const breaker = circuitBreaker({ name: 'llm', failureThreshold: 1, cooldownMs: 30_000, clock });
    await breaker.execute(() => Promise.reject(httpError(503))).catch(() => {});
    await clock.advance(0.677371);
    const events: Array<Record<string, unknown>> = [];
    breaker.on('reject', (e) =>
      events.push({ type: 'reject', policy: 'circuit-breaker', at: 0, ...e }),
    );
    const error = await breaker.execute(() => 'never').catch((e: unknown) => e);
    expect(isCircuitOpenError(error)).toBe(true);
    if (!isCircuitOpenError(error)) return;
    // 30000 - 0.677371 rounded up: a caller who waits that long is never early
    expect(error.retryAfterMs).toBe(30_000);
    expect(error.message).toBe('circuit "llm" is open; next probe in 30000 ms');
    expect(explain(error)).toBe(
      'CircuitOpenError: circuit "llm" is open; next probe in 30000 ms  [breaker llm, state open, retryAfterMs 30000]\n' +
        '└─ cause: Error: HTTP 503  [transient: overloaded, status 503]',
    );
    expect((breaker.toJSON() as { retryAfterMs: number }).retryAfterMs).toBe(30_000);
    const line = toLogLine(events[0] as never);
    expect(line.retry_after_ms).toBe(30_000);
    expect(line.msg).toBe('circuit llm rejected a call; next probe in 30000 ms');
    expect(JSON.stringify(line)).not.toMatch(/retry_after_ms":\d+\./);
  });

  it('explain rounds any time detail of an error from elsewhere', () => {
    const foreign = Object.assign(new Error('wait'), {
      name: 'CircuitOpenError',
      breaker: 'x',
      retryAfterMs: 29_999.161192,
    });
    expect(explain(foreign)).toContain('retryAfterMs 29999]');
    expect(explain(foreign)).not.toMatch(DECIMALS);
  });

  it('messages: a Retry-After hint, a timeout and a stall limit', async () => {
    const clock = new VirtualClock();
    const policy = retry({ maxAttempts: 2, backoff: constant(0), maxRetryAfterMs: 1_000, clock });
    const error = await policy
      .execute(() =>
        Promise.reject(
          httpError(503, { message: 'busy', headers: { 'retry-after-ms': '1500.25' } }),
        ),
      )
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      'gave up after 1 attempt(s): the Retry-After hint exceeds maxRetryAfterMs (asked to wait 1501 ms, limit 1000 ms): busy',
    );
    expect(new TimeoutError(1_500.4).message).toBe('timed out after 1500 ms');
    expect(new StallError('idle', 20_000.7, 3).message).toBe(
      'stream stalled: no progress for 20001 ms after 3 item(s)',
    );
  });

  it('a degradation controller’s toJSON', async () => {
    const clock = new VirtualClock();
    await clock.advance(12.345678);
    const controller = degradation({
      levels: [
        { name: 'normal', flags: {} },
        { name: 'hard', enterAt: 0.5 },
      ],
      errorRate: () => 0,
      clock,
    });
    expect(controller.toJSON()).toMatchObject({ since: 12 });
  });
});
