import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AllPathsFailedError,
  CircuitOpenError,
  circuitBreaker,
  classify,
  constant,
  fallback,
  InvalidResultError,
  isCircuitOpenError,
  pipeline,
  retry,
  validate,
} from '../../src/index.js';
import { VirtualClock } from '../../src/testing/index.js';
import { httpError, never } from './helpers.js';

describe('fallback', () => {
  it('serves from the next path when the primary fails, tagged and degraded, failures listed', async () => {
    const primaryError = httpError(503);
    const ladder = fallback([
      { name: 'deep', run: () => Promise.reject(primaryError) },
      { name: 'quick', run: () => 'quick answer' },
    ]);
    const steps: unknown[] = [];
    ladder.on('fallback', (e) => steps.push(e));
    const served = await ladder.execute();
    expect(served).toEqual({ value: 'quick answer', servedBy: 'quick', degraded: true, failures: [{ path: 'deep', error: primaryError }] });
    expect(steps).toEqual([{ from: 'deep', to: 'quick', error: primaryError }]);
  });

  it('is not degraded when the first path serves', async () => {
    const served = await fallback([{ name: 'a', run: () => 1 }, { name: 'b', run: () => 2 }]).execute();
    expect(served).toMatchObject({ value: 1, servedBy: 'a', degraded: false, failures: [] });
  });

  it('skips a path whose circuit is open without waiting', async () => {
    const breaker = circuitBreaker({ name: 'deep', failureThreshold: 1 });
    await breaker.execute(() => Promise.reject(httpError(503))).catch(() => undefined);
    let deepCalled = false;
    const ladder = fallback([
      { name: 'deep', run: () => {
          deepCalled = true;
          return never<string>();
        }, policy: breaker },
      { name: 'quick', run: () => 'q' },
    ]);
    const served = await ladder.execute();
    expect(deepCalled).toBe(false);
    expect(served.servedBy).toBe('quick');
    expect(isCircuitOpenError(served.failures[0]?.error)).toBe(true);
  });

  it('all paths failing → AllPathsFailedError with each failure', async () => {
    const e1 = httpError(503);
    const e2 = new Error('down too');
    const error = await fallback([
      { name: 'a', run: () => Promise.reject(e1) },
      { name: 'b', run: () => Promise.reject(e2) },
    ])
      .execute()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AllPathsFailedError);
    expect((error as AllPathsFailedError).failures).toEqual([
      { path: 'a', error: e1 },
      { path: 'b', error: e2 },
    ]);
    expect((error as AllPathsFailedError).cause).toBe(e2);
  });

  it('a caller abort stops the ladder', async () => {
    const controller = new AbortController();
    let secondCalled = false;
    const p = fallback([
      { name: 'a', run: () => never<string>() },
      { name: 'b', run: () => {
          secondCalled = true;
          return 'b';
        } },
    ]).execute({ signal: controller.signal });
    controller.abort();
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    expect(secondCalled).toBe(false);
  });

  it('rejects bad paths with a clear error', () => {
    expect(() => fallback([])).toThrow(TypeError);
    expect(() => fallback([{ name: '', run: () => 1 }])).toThrow(/paths\[0\]\.name/);
    expect(() => fallback([{ name: 'a', run: () => 1 }, { name: 'a', run: () => 2 }])).toThrow(/used twice/);
  });
});

describe('validate', () => {
  it('turns an empty result into InvalidResultError, which retry retries', async () => {
    const clock = new VirtualClock();
    const results = ['', '  ', 'a real answer'];
    let calls = 0;
    const p = pipeline(
      retry({ maxAttempts: 3, clock, backoff: constant(1) }),
      validate((text: string) => text.trim() !== '' || 'empty answer'),
    ).execute(() => results[calls++]!);
    await clock.advance(10);
    await expect(p).resolves.toBe('a real answer');
    expect(calls).toBe(3);
  });

  it('reports the reason and the value', async () => {
    const error = await validate((v: number[]) => v.length > 0 || 'no items')
      .execute(() => [] as number[])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidResultError);
    expect((error as InvalidResultError).issues).toEqual([{ message: 'no items' }]);
    expect((error as InvalidResultError).value).toEqual([]);
    expect(classify(error)).toMatchObject({ kind: 'logical', retryable: true, countsForBreaker: true });
  });

  it('false rejects, true and undefined accept', async () => {
    await expect(validate(() => false).execute(() => 1)).rejects.toBeInstanceOf(InvalidResultError);
    await expect(validate(() => true).execute(() => 1)).resolves.toBe(1);
    await expect(validate(() => undefined).execute(() => 1)).resolves.toBe(1);
  });

  it('accepts a Standard Schema (zod 4)', async () => {
    const Answer = z.object({ text: z.string().min(1), sources: z.array(z.string()).min(1) });
    await expect(validate(Answer).execute(() => ({ text: 'x', sources: ['s'] }))).resolves.toEqual({ text: 'x', sources: ['s'] });
    const error = await validate(Answer)
      .execute(() => ({ text: '', sources: [] }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidResultError);
    expect((error as InvalidResultError).issues.length).toBe(2);
  });

  it('an invalid result counts for the breaker', async () => {
    const b = circuitBreaker({ failureThreshold: 2 });
    const policy = pipeline(b, validate(() => false));
    await policy.execute(() => 1).catch(() => undefined);
    await policy.execute(() => 1).catch(() => undefined);
    expect(b.state).toBe('open');
    await expect(policy.execute(() => 1)).rejects.toBeInstanceOf(CircuitOpenError);
  });
});
