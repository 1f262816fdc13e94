import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type AlertInfo,
  byClass,
  classify,
  constant,
  fallback,
  isReplanRequiredError,
  isRetriesExhaustedError,
  isRunStoppedError,
  pipeline,
  ReplanRequiredError,
  retry,
  shutdown,
  subscribe,
  timeout,
} from '../../src/index.js';
import { VirtualClock } from '../../src/testing/index.js';
import { httpError } from '../helpers/http-error.js';

const overflow = () =>
  httpError(400, { message: 'prompt is too long: 212000 tokens > 200000 maximum' });
const rejection = async (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

afterEach(() => {
  vi.useRealTimers();
});

describe('byClass: each class goes down its own road', () => {
  it('transient: retried by the default retry(), then the result comes back', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let calls = 0;
    const policy = byClass();
    const routes: string[] = [];
    policy.on('route', (e) => routes.push(`${e.kind}:${e.route}`));
    const retries: number[] = [];
    policy.on('retry', (e) => retries.push(e.attempt));
    const answer = policy.execute(() => {
      calls++;
      if (calls < 3) throw httpError(503);
      return 'ok';
    });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await answer).toBe('ok');
    expect(calls).toBe(3); // retry()'s default: 3 attempts in all, the first one included
    expect(retries).toEqual([1, 2]);
    expect(routes).toEqual(['transient:policy']);
  });

  it('transient: once retries give up, the failure goes on to fallback (the ladder’s next path serves)', async () => {
    const clock = new VirtualClock();
    const primary = byClass({
      name: 'deep',
      transient: retry({ maxAttempts: 2, backoff: constant(100), clock }),
    });
    const routes: string[] = [];
    primary.on('route', (e) => routes.push(`${e.kind}:${e.route}`));
    let deepCalls = 0;
    const ladder = fallback([
      {
        name: 'deep',
        policy: primary,
        run: () => {
          deepCalls++;
          throw httpError(529);
        },
      },
      { name: 'quick', run: () => 'quick answer' },
    ]);
    const served = ladder.execute();
    await clock.advance(1_000);
    const result = await served;
    expect(result).toMatchObject({ value: 'quick answer', servedBy: 'quick', degraded: true });
    expect(deepCalls).toBe(2);
    expect(isRetriesExhaustedError(result.failures[0]!.error)).toBe(true);
    expect(routes).toEqual(['transient:policy', 'transient:fail']);
  });

  it('persistent: a 401 is never retried and alerts once per dependency per cool-down, however many calls fail', async () => {
    const clock = new VirtualClock(1_000);
    const alerts: AlertInfo[] = [];
    const policy = pipeline(
      { name: 'claude' },
      byClass({ alert: (a) => void alerts.push(a), alertCooldownMs: 60_000, clock }),
    );
    let calls = 0;
    const unauthorized = () => {
      calls++;
      throw httpError(401, {
        message: 'invalid x-api-key: sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      });
    };
    const errors = await Promise.all(
      Array.from({ length: 50 }, () => rejection(policy.execute(unauthorized))),
    );
    expect(calls).toBe(50); // one call each: never retried
    for (const e of errors) expect((e as { status?: number }).status).toBe(401);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({
      name: 'claude',
      kind: 'persistent',
      reason: 'unauthorized',
      suppressed: 0,
    });
    expect(alerts[0]!.explain).toContain('[REDACTED]');
    expect(alerts[0]!.explain).not.toContain('AAAAAAAAAAAAAAAA');
    // Within the cool-down: still one. After it: one more, counting what was held back.
    await clock.advance(59_999);
    await rejection(policy.execute(unauthorized));
    expect(alerts).toHaveLength(1);
    await clock.advance(1);
    await rejection(policy.execute(unauthorized));
    expect(alerts).toHaveLength(2);
    expect(alerts[1]!.suppressed).toBe(50);
  });

  it('persistent: the cool-down is per dependency', async () => {
    const alerts: string[] = [];
    const recover = byClass({ alert: (a) => void alerts.push(a.name) });
    const a = pipeline({ name: 'a' }, recover);
    const b = pipeline({ name: 'b' }, recover);
    for (const p of [a, b, a, b]) await rejection(p.execute(() => Promise.reject(httpError(403))));
    expect(alerts).toEqual(['a', 'b']);
  });

  it('logical: a 400 context overflow re-plans at once, with a summary for the model', async () => {
    let calls = 0;
    const policy = byClass({ name: 'claude' });
    const replans: string[] = [];
    policy.on('replan', (e) => replans.push(e.reason));
    const error = await rejection(
      policy.execute(() => {
        calls++;
        throw overflow();
      }),
    );
    expect(calls).toBe(1);
    expect(error).toBeInstanceOf(ReplanRequiredError);
    const replan = error as ReplanRequiredError;
    expect(replan.summary).toBe(
      'The call to "claude" failed: the request is larger than the model\'s context window [HTTP 400] ("prompt is too long: 212000 tokens > 200000 maximum"). Tried once; not retried, because the same request would fail the same way. Shorten the input before trying again: summarise earlier turns, drop tool output that is no longer needed, or split the task into smaller requests.',
    );
    expect(replan).toMatchObject({ reason: 'context_overflow', dependency: 'claude', attempts: 1 });
    expect((replan.cause as { status: number }).status).toBe(400);
    expect(classify(replan)).toEqual({
      kind: 'logical',
      retryable: false,
      countsForBreaker: false,
      reason: 'replan_required',
    });
    expect(replans).toEqual(['context_overflow']);
  });

  it('logical: the summary is redacted and bounded, whatever the error says', async () => {
    const secret = `sk-ant-api03-${'x'.repeat(40)}`;
    const error = (await rejection(
      byClass().execute(() =>
        Promise.reject(
          httpError(400, {
            message: `tool rejected api_key=${secret} ${'and then a very long explanation '.repeat(40)}`,
          }),
        ),
      ),
    )) as ReplanRequiredError;
    expect(error.summary).not.toContain('xxxxxxxxxx');
    expect(error.summary).toContain('[REDACTED]');
    expect(error.summary.length).toBeLessThan(600);
    expect(error.summary).toMatch(
      /^The call failed: the request was rejected as invalid \[HTTP 400\] \("tool rejected api_key=\[REDACTED\] and then/,
    );
  });

  it('logical: an enclosing retry does not retry a re-plan, and an enclosing byClass passes it on unchanged', async () => {
    const clock = new VirtualClock();
    let calls = 0;
    const inner = byClass({ name: 'inner' });
    const outer = pipeline(
      retry({ clock, backoff: constant(1) }),
      byClass({ name: 'outer' }),
      inner,
    );
    const error = await rejection(
      outer.execute(() => {
        calls++;
        throw httpError(422, { message: 'tool input failed the schema' });
      }),
    );
    expect(calls).toBe(1);
    expect(isReplanRequiredError(error) && error.dependency).toBe('inner');
  });

  it('logical: the summary tells what was tried when retries or a ladder ran first', async () => {
    const clock = new VirtualClock();
    const policy = pipeline(
      byClass({ name: 'research' }),
      retry({ maxAttempts: 3, clock, backoff: constant(10) }),
    );
    let n = 0;
    const done = rejection(
      policy.execute(() => {
        n++;
        // invalid results are retried (a second try often helps); the last one still is useless
        throw Object.assign(new Error('HTTP 422'), { status: 422 });
      }),
    );
    await clock.advance(100);
    const replan = (await done) as ReplanRequiredError;
    expect(n).toBe(1); // a 422 is not retryable: the retry inside passes it on at once
    expect(replan.summary).toContain('Tried once');

    const ladderError = await rejection(
      byClass({ name: 'ladder' }).execute(() =>
        fallback([
          { name: 'opus', run: () => Promise.reject(overflow()) },
          { name: 'sonnet', run: () => Promise.reject(overflow()) },
        ]).execute(),
      ),
    );
    expect((ladderError as ReplanRequiredError).summary).toContain(
      'Tried 2 way(s): opus (context_overflow), sonnet (context_overflow).',
    );
  });

  it('fatal: a TypeError stops the run once, drains the calls in flight, runs the steps once, and no call starts after it', async () => {
    const clock = new VirtualClock();
    const run = shutdown({ drainMs: 5_000, clock });
    const steps: string[] = [];
    run.step('flush sinks', () => void steps.push('flush'));
    run.step('save checkpoint', async () => {
      await clock.sleep(10);
      steps.push('checkpoint');
    });
    const policy = byClass({ name: 'tool', shutdown: run });
    const stops: number[] = [];
    run.on('stop', (e) => stops.push(e.inFlight));
    let started = 0;
    // 49 calls that answer after 1 s, and one that hits a bug after 100 ms.
    const slow = Array.from({ length: 49 }, (_, i) =>
      policy.execute(async () => {
        started++;
        await clock.sleep(1_000);
        return i;
      }),
    );
    const buggy = policy.execute(async () => {
      started++;
      await clock.sleep(100);
      const reply = undefined as unknown as { content: string[] };
      return reply.content[0];
    });
    const buggyOutcome = rejection(buggy);
    await clock.advance(100);
    expect(run.stopped).toBe(true);
    // No call starts after the stop began: refused before its work runs.
    let lateRan = false;
    const late = await rejection(
      policy.execute(() => {
        lateRan = true;
      }),
    );
    expect(isRunStoppedError(late) && late.phase).toBe('refused');
    expect(lateRan).toBe(false);
    await clock.advance(1_000);
    expect(await Promise.all(slow)).toEqual(Array.from({ length: 49 }, (_, i) => i));
    await clock.advance(10);
    const error = await buggyOutcome;
    expect(error).toBeInstanceOf(TypeError); // rethrown as it was
    expect(started).toBe(50);
    expect(steps).toEqual(['flush', 'checkpoint']);
    expect(stops).toEqual([49]);
    expect((await run.stop()).steps.map((s) => s.outcome)).toEqual(['done', 'done']);
  });

  it('fatal: several bugs at once still stop the run once; each caller gets its own error back', async () => {
    const clock = new VirtualClock();
    const run = shutdown({ drainMs: 1_000, clock });
    let steps = 0;
    run.step('count', () => void steps++);
    const policy = byClass({ shutdown: run });
    const bugs = Array.from({ length: 10 }, (_, i) =>
      rejection(
        policy.execute(async () => {
          await clock.sleep(10);
          throw new RangeError(`bug ${i}`);
        }),
      ),
    );
    await clock.advance(10);
    const errors = await Promise.all(bugs);
    expect(errors.map((e) => (e as Error).message)).toEqual(
      Array.from({ length: 10 }, (_, i) => `bug ${i}`),
    );
    expect(steps).toBe(1);
  });

  it('fatal: calls still running at the drain deadline are aborted (their signal too) and their callers get RunStoppedError at once', async () => {
    const clock = new VirtualClock();
    const run = shutdown({ drainMs: 500, clock });
    const policy = pipeline(byClass({ shutdown: run }), timeout(60_000, { clock }));
    const signals: AbortSignal[] = [];
    const hung = policy.execute((ctx) => {
      signals.push(ctx.signal);
      return new Promise(() => {});
    });
    const hungOutcome = rejection(hung);
    const bug = rejection(policy.execute(() => Promise.reject(new TypeError('x is undefined'))));
    await clock.advance(0);
    await clock.advance(499);
    expect(signals[0]!.aborted).toBe(false);
    await clock.advance(1);
    const stopped = await hungOutcome;
    expect(isRunStoppedError(stopped) && stopped.phase).toBe('drain');
    expect(signals[0]!.aborted).toBe(true);
    expect(isRunStoppedError(signals[0]!.reason)).toBe(true);
    expect(await bug).toBeInstanceOf(TypeError);
    expect(classify(stopped)).toMatchObject({
      kind: 'cancelled',
      retryable: false,
      countsForBreaker: false,
      reason: 'run_stopped',
    });
  });

  it('fatal: a retry running inside a call starts no further attempt once the run is stopping', async () => {
    const clock = new VirtualClock();
    const run = shutdown({ drainMs: 10_000, clock });
    const policy = pipeline(
      byClass({ shutdown: run, transient: 'fail' }),
      retry({ maxAttempts: 5, backoff: constant(100), clock }),
    );
    let attempts = 0;
    const flaky = rejection(
      policy.execute(() => {
        attempts++;
        throw httpError(503);
      }),
    );
    await clock.advance(0);
    const bug = rejection(policy.execute(() => Promise.reject(new ReferenceError('oops'))));
    await clock.advance(1_000);
    const e = await flaky;
    expect(attempts).toBe(1);
    expect(isRunStoppedError(e) && e.phase).toBe('refused');
    expect(await bug).toBeInstanceOf(ReferenceError);
  });
});

describe('byClass: every road is replaceable', () => {
  it("'fail' passes a failure on unchanged: no retry, no re-plan, no stop", async () => {
    const policy = byClass({ transient: 'fail', logical: 'fail', fatal: 'fail' });
    let calls = 0;
    const e503 = httpError(503);
    const count503 = () => {
      calls++;
      return Promise.reject(e503);
    };
    expect(await rejection(policy.execute(count503))).toBe(e503);
    const e400 = overflow();
    expect(await rejection(policy.execute(() => Promise.reject(e400)))).toBe(e400);
    const bug = new TypeError('bug');
    expect(await rejection(policy.execute(() => Promise.reject(bug)))).toBe(bug);
    expect(policy.shutdown.stopped).toBe(false);
    expect(calls).toBe(1);
  });

  it('a policy for persistent failures runs the call again under it (a 401 after a key refresh)', async () => {
    const clock = new VirtualClock();
    let key = 'old';
    const policy = byClass({
      persistent: retry({
        maxAttempts: 2,
        retryOn: (_e, c) => c.status === 401,
        backoff: constant(0),
        clock,
      }),
      alert: () => {
        key = 'new';
      },
    });
    const seen: string[] = [];
    const answer = await policy.execute(() => {
      seen.push(key);
      if (key === 'old') throw httpError(401);
      return 'ok';
    });
    expect(answer).toBe('ok');
    expect(seen).toEqual(['old', 'new']);
  });

  it('a policy for logical failures replaces the re-plan (an invalid result is tried once more)', async () => {
    const clock = new VirtualClock();
    const policy = byClass({ logical: retry({ maxAttempts: 2, backoff: constant(0), clock }) });
    let n = 0;
    const { InvalidResultError } = await import('../../src/index.js');
    const answer = await policy.execute(() => {
      n++;
      if (n === 1) throw new InvalidResultError('', [{ message: 'empty' }]);
      return 'good';
    });
    expect(answer).toBe('good');
  });

  it("each class's policy runs at most once per call; what it throws is routed by its own class", async () => {
    const clock = new VirtualClock();
    const alerts: string[] = [];
    const routes: string[] = [];
    const policy = byClass({
      transient: retry({ maxAttempts: 5, backoff: constant(10), clock }),
      alert: (a) => void alerts.push(a.reason),
    });
    policy.on('route', (e) => routes.push(`${e.kind}:${e.route}`));
    let n = 0;
    const done = rejection(
      policy.execute(() => {
        n++;
        throw n === 1 ? httpError(503) : httpError(401);
      }),
    );
    await clock.advance(100);
    expect(((await done) as { status: number }).status).toBe(401);
    expect(n).toBe(2);
    expect(alerts).toEqual(['unauthorized']);
    expect(routes).toEqual(['transient:policy', 'persistent:fail']);
  });

  it('a policy of someone else’s works as a road too', async () => {
    let wrapped = 0;
    const foreign = {
      async execute<T>(fn: () => T | PromiseLike<T>): Promise<T> {
        wrapped++;
        try {
          return await fn();
        } catch {
          return await fn();
        }
      },
      on: () => () => {},
    };
    let n = 0;
    const answer = await byClass({ transient: foreign as never }).execute(() => {
      n++;
      if (n === 1) throw httpError(502);
      return n;
    });
    expect(answer).toBe(2);
    expect(wrapped).toBe(1);
  });
});

describe('byClass: what passes through, and the alert hook', () => {
  it('a caller abort is not routed: no retry, no alert', async () => {
    const alerts: string[] = [];
    const controller = new AbortController();
    const policy = byClass({
      alertOn: ['persistent', 'transient', 'fatal', 'logical'],
      alert: (a) => void alerts.push(a.reason),
    });
    const p = policy.execute(
      (ctx) =>
        new Promise((_r, reject) =>
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)),
        ),
      { signal: controller.signal },
    );
    controller.abort(new Error('user left'));
    expect(((await rejection(p)) as Error).message).toBe('user left');
    expect(alerts).toEqual([]);
  });

  it('an alert hook that throws or rejects never breaks the call; it is reported as alert_failed', async () => {
    const failed: unknown[] = [];
    const throwing = byClass({
      name: 'a',
      alert: () => {
        throw new Error('pager down');
      },
    });
    throwing.on('alert_failed', (e) => failed.push(e.error));
    const e1 = await rejection(throwing.execute(() => Promise.reject(httpError(401))));
    expect((e1 as { status: number }).status).toBe(401);
    const rejecting = byClass({ name: 'b', alert: () => Promise.reject(new Error('webhook 500')) });
    rejecting.on('alert_failed', (e) => failed.push(e.error));
    await rejection(rejecting.execute(() => Promise.reject(httpError(403))));
    await new Promise((r) => setImmediate(r));
    expect(failed.map((e) => (e as Error).message)).toEqual(['pager down', 'webhook 500']);
  });

  it('a slow alert hook does not delay the call', async () => {
    let release!: () => void;
    const policy = byClass({ alert: () => new Promise<void>((r) => (release = r)) });
    const e = await rejection(policy.execute(() => Promise.reject(httpError(401))));
    expect((e as { status: number }).status).toBe(401);
    release();
  });

  it('events reach subscribe() sinks with the call’s name', async () => {
    const seen: Array<{ type: string; name?: unknown }> = [];
    const stop = subscribe((e) => {
      if (['route', 'alert', 'replan'].includes(e.type)) seen.push({ type: e.type, name: e.name });
    });
    try {
      const policy = pipeline({ name: 'search' }, byClass());
      await rejection(policy.execute(() => Promise.reject(httpError(401))));
      await rejection(policy.execute(() => Promise.reject(httpError(404))));
    } finally {
      stop();
    }
    expect(seen).toEqual([
      { type: 'alert', name: 'search' },
      { type: 'route', name: 'search' },
      { type: 'route', name: 'search' },
      { type: 'replan', name: 'search' },
    ]);
  });

  it('refuses bad options at once, naming them', () => {
    expect(() => byClass({ transient: 'replan' as never })).toThrow(
      /^transient must be one of 'fail', got "replan"/,
    );
    expect(() => byClass({ logical: 5 as never })).toThrow(
      /^logical must be a policy or one of 'replan', 'fail', got 5/,
    );
    expect(() => byClass({ fatal: fallback([{ name: 'x', run: () => 1 }]) as never })).toThrow(
      /fatal is a fallback\(\.\.\.\) ladder, not a policy/,
    );
    expect(() => byClass({ alertOn: ['sometimes'] as never })).toThrow(
      /^alertOn\[0\] must be one of/,
    );
    expect(() => byClass({ shutdown: {} as never })).toThrow(
      /^shutdown must be a shutdown\(\{ … \}\), got \{\}/,
    );
    expect(() => byClass({ alertCooldownMs: -1 })).toThrow(/^alertCooldownMs must be/);
    expect(() => byClass({ retry: 3 } as never)).toThrow(/^byClass: unknown option "retry"/);
  });
});
