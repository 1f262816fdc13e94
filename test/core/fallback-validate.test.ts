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
  TimeoutError,
  timeout,
  validate,
} from '../../src/index.js';
import { VirtualClock } from '../../src/testing/index.js';
import { httpError } from '../helpers/http-error.js';
import { never } from './helpers.js';

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
    expect(served).toEqual({
      value: 'quick answer',
      servedBy: 'quick',
      degraded: true,
      failures: [{ path: 'deep', error: primaryError }],
    });
    expect(steps).toEqual([{ from: 'deep', to: 'quick', error: primaryError }]);
  });

  it('is not degraded when the first path serves', async () => {
    const served = await fallback([
      { name: 'a', run: () => 1 },
      { name: 'b', run: () => 2 },
    ]).execute();
    expect(served).toMatchObject({ value: 1, servedBy: 'a', degraded: false, failures: [] });
  });

  it('skips a path whose circuit is open without waiting', async () => {
    const breaker = circuitBreaker({ name: 'deep', failureThreshold: 1 });
    await breaker.execute(() => Promise.reject(httpError(503))).catch(() => undefined);
    let deepCalled = false;
    const ladder = fallback([
      {
        name: 'deep',
        run: () => {
          deepCalled = true;
          return never<string>();
        },
        policy: breaker,
      },
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
      {
        name: 'b',
        run: () => {
          secondCalled = true;
          return 'b';
        },
      },
    ]).execute({ signal: controller.signal });
    controller.abort();
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    expect(secondCalled).toBe(false);
  });

  it('rejects bad paths with a clear error', () => {
    expect(() => fallback([])).toThrow(TypeError);
    expect(() => fallback([{ name: '', run: () => 1 }])).toThrow(/paths\[0\]\.name/);
    expect(() =>
      fallback([
        { name: 'a', run: () => 1 },
        { name: 'a', run: () => 2 },
      ]),
    ).toThrow(/used twice/);
  });

  it('inside a timeout whose deadline passed, no further path starts (issue 9.6)', async () => {
    const clock = new VirtualClock();
    let secondStarted = false;
    const ladder = fallback([
      // ignores its signal, and fails only after the enclosing deadline
      { name: 'slow', run: () => clock.sleep(150).then(() => Promise.reject(httpError(503))) },
      {
        name: 'next',
        run: () => {
          secondStarted = true;
          return 'too late';
        },
      },
    ]);
    const p = timeout(100, { clock }).execute(() => ladder.execute());
    const outcome = p.catch((e: unknown) => e);
    await clock.advance(200);
    expect(await outcome).toBeInstanceOf(TimeoutError);
    expect(secondStarted).toBe(false);
  });

  it('inside a call its caller aborted, no further path starts, even a path with its own policy', async () => {
    const controller = new AbortController();
    const started: string[] = [];
    const clock = new VirtualClock();
    const ladder = fallback([
      {
        name: 'a',
        run: () => {
          started.push('a');
          return clock.sleep(50).then(() => Promise.reject(httpError(503)));
        },
      },
      {
        name: 'b',
        run: () => {
          started.push('b');
          return 'b';
        },
        policy: retry(),
      },
    ]);
    const p = retry({ maxAttempts: 1 }).execute(() => ladder.execute(), {
      signal: controller.signal,
    });
    controller.abort();
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    await clock.advance(100);
    expect(started).toEqual(['a']);
  });

  it('is not a policy: pipeline(ladder) and ladder.execute(fn) are refused (issue 11.2)', async () => {
    const ladder = fallback([{ name: 'a', run: () => 1 }]);
    // @ts-expect-error a ladder is not a Policy (its execute takes options, not a function)
    expect(() => pipeline(ladder)).toThrow(
      /pipeline argument 0 is a fallback\(\.\.\.\) ladder, not a policy/,
    );
    // @ts-expect-error the same in any position
    expect(() => pipeline(retry(), ladder)).toThrow(/pipeline argument 1 is a fallback/);
    // @ts-expect-error nor as a path's policy
    expect(() => fallback([{ name: 'x', run: () => 1, policy: ladder }])).toThrow(
      /paths\[0\]\.policy is a fallback/,
    );
    // @ts-expect-error execute takes options, not the work
    await expect(ladder.execute(async () => 2)).rejects.toThrow(/takes options, not a function/);
    // @ts-expect-error a typo in the options is named
    await expect(ladder.execute({ signl: AbortSignal.timeout(10) })).rejects.toThrow(
      /unknown option "signl" \(did you mean "signal"\?\)/,
    );
    await expect(retry().execute(() => ladder.execute())).resolves.toMatchObject({
      value: 1,
      servedBy: 'a',
    });
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
    expect(classify(error)).toMatchObject({
      kind: 'logical',
      retryable: true,
      countsForBreaker: true,
    });
  });

  it('false rejects, true and undefined accept', async () => {
    await expect(validate(() => false).execute(() => 1)).rejects.toBeInstanceOf(InvalidResultError);
    await expect(validate(() => true).execute(() => 1)).resolves.toBe(1);
    await expect(validate(() => undefined).execute(() => 1)).resolves.toBe(1);
  });

  it('accepts a Standard Schema (zod 4)', async () => {
    const Answer = z.object({ text: z.string().min(1), sources: z.array(z.string()).min(1) });
    await expect(validate(Answer).execute(() => ({ text: 'x', sources: ['s'] }))).resolves.toEqual({
      text: 'x',
      sources: ['s'],
    });
    const error = await validate(Answer)
      .execute(() => ({ text: '', sources: [] }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidResultError);
    expect((error as InvalidResultError).issues.length).toBe(2);
  });

  it('an invalid result counts for the breaker', async () => {
    const b = circuitBreaker({ failureThreshold: 2 });
    const policy = pipeline(
      b,
      validate(() => false),
    );
    await policy.execute(() => 1).catch(() => undefined);
    await policy.execute(() => 1).catch(() => undefined);
    expect(b.state).toBe('open');
    await expect(policy.execute(() => 1)).rejects.toBeInstanceOf(CircuitOpenError);
  });
});
