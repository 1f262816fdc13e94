import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AllPathsFailedError,
  circuitBreaker,
  classify,
  constant,
  explain,
  explainJSON,
  fallback,
  InvalidResultError,
  isAllPathsFailedError,
  isCircuitOpenError,
  isRetriesExhaustedError,
  jsonLogger,
  pipeline,
  type RetriesExhaustedError,
  redact,
  retry,
  subscribe,
  summarizeError,
} from '../../src/index.js';
import { VirtualClock } from '../../src/testing/index.js';
import { lines } from '../telemetry/helpers.js';

const boom = (): never => {
  throw new Error('hostile');
};
const throwingTraps: ProxyHandler<object> = {
  get: boom,
  has: boom,
  ownKeys: boom,
  getOwnPropertyDescriptor: boom,
  getPrototypeOf: boom,
  set: boom,
  defineProperty: boom,
  deleteProperty: boom,
  isExtensible: boom,
  preventExtensions: boom,
  setPrototypeOf: boom,
};

/** Values that are thrown in the wild or by a careless (or hostile) caller, each made fresh. */
const HOSTILE: Record<string, (status: number | undefined) => unknown> = {
  'null-prototype object': (status) =>
    Object.assign(Object.create(null), status === undefined ? {} : { status }),
  'null-prototype object with a message': (status) =>
    Object.assign(Object.create(null), { message: 'no prototype', status }),
  'Error whose message getter throws': (status) => {
    const e = Object.assign(new Error('x'), { status });
    Object.defineProperty(e, 'message', { get: boom });
    return e;
  },
  'Error whose name getter throws': (status) => {
    const e = Object.assign(new Error('x'), { status });
    Object.defineProperty(e, 'name', { get: boom });
    return e;
  },
  'Error whose status and headers getters throw': () =>
    Object.defineProperties(new Error('x'), {
      status: { get: boom },
      headers: { get: boom },
      cause: { get: boom },
    }),
  'Proxy whose every trap throws': () => new Proxy({}, throwingTraps),
  'Proxy of an Error whose every trap throws': () => new Proxy(new Error('x'), throwingTraps),
  'revoked Proxy': () => {
    const { proxy, revoke } = Proxy.revocable(new Error('x'), {});
    revoke();
    return proxy;
  },
  'object whose toString, valueOf and toPrimitive throw': (status) => ({
    status,
    toString: boom,
    valueOf: boom,
    [Symbol.toPrimitive]: boom,
  }),
  'object whose toJSON throws': (status) => ({ status, toJSON: boom }),
  'Error that is its own cause': (status) => {
    const e = Object.assign(new Error('loop'), { status });
    (e as { cause?: unknown }).cause = e;
    return e;
  },
  'cyclic object with a BigInt': (status) => {
    const o: Record<string, unknown> = { status, big: 10n };
    o.self = o;
    return o;
  },
  'Error with hostile errors and issues lists': (status) =>
    Object.assign(new Error('agg'), {
      status,
      errors: new Proxy([], throwingTraps),
      issues: [new Proxy({}, throwingTraps)],
    }),
  symbol: () => Symbol('thrown'),
  undefined: () => undefined,
  null: () => null,
  bigint: () => 42n,
  function: () => () => 1,
  string: () => 'plain string',
};

const hostile = fc.record({
  shape: fc.constantFrom(...Object.keys(HOSTILE)),
  status: fc.constantFrom(undefined, 503, 529, 400, 401),
});

/** The value the sync or async `fn` throws. */
const thrower = (value: unknown, async: boolean) =>
  async
    ? () => Promise.reject(value)
    : () => {
        throw value;
      };

let warnings: string[] = [];
const onWarning = (w: Error): void => {
  warnings.push(w.message);
};
beforeEach(() => {
  warnings = [];
  process.on('warning', onWarning);
});
afterEach(() => {
  process.off('warning', onWarning);
});

describe('issue 9.1: a thrown value that is not an Error never breaks a policy or a sink', () => {
  it('the reported case: a null-prototype 503 through pipeline(breaker, retry) is retried, counted and opens the breaker', async () => {
    const clock = new VirtualClock();
    const breaker = circuitBreaker({ failureThreshold: 2, clock });
    const policy = pipeline(breaker, retry({ maxAttempts: 2, backoff: constant(0), clock }));
    const thrown = () => Object.assign(Object.create(null), { status: 503 });
    for (let i = 0; i < 2; i++) {
      const error = await policy.execute(thrower(thrown(), false)).catch((e: unknown) => e);
      expect(isRetriesExhaustedError(error)).toBe(true);
      expect((error as RetriesExhaustedError).message).toBe(
        'gave up after 2 attempt(s): {"status":503}',
      );
    }
    expect(breaker.state).toBe('open');
  });

  it('an Error whose message getter throws gives up with a message saying so', async () => {
    const e = new Error('x');
    Object.defineProperty(e, 'message', { get: boom });
    const error = await retry({ maxAttempts: 2, backoff: constant(0) })
      .execute(thrower(e, false))
      .catch((x: unknown) => x);
    expect(isRetriesExhaustedError(error)).toBe(true);
    expect((error as Error).message).toBe('gave up after 2 attempt(s): [unreadable message]');
    expect((error as RetriesExhaustedError).errors).toEqual([e, e]);
  });

  it('explain and the error classes survive a hostile Proxy', () => {
    const proxy = new Proxy({}, throwingTraps);
    expect(explain(proxy)).toBe('Object: [unreadable message]  [transient: unclassified]');
    expect(new AllPathsFailedError([{ path: 'a', error: proxy }]).message).toBe(
      'all 1 path(s) failed (a: [unreadable message])',
    );
    expect(new InvalidResultError(1, [proxy as never]).message).toBe(
      'invalid result: [unreadable message]',
    );
  });

  it('a listener that throws a null-prototype object is reported as a warning and the call goes on', async () => {
    const policy = retry({ maxAttempts: 2, backoff: constant(0) });
    policy.on('retry', () => {
      throw Object.assign(Object.create(null), { listener: 'broken' });
    });
    let calls = 0;
    await expect(
      policy.execute(() => (++calls === 1 ? Promise.reject(new Error('once')) : 'ok')),
    ).resolves.toBe('ok');
    await new Promise((r) => setImmediate(r));
    expect(warnings).toEqual([
      expect.stringContaining('a recourse event listener threw: {"listener":"broken"}'),
    ]);
  });

  it('property: through retry, breaker, fallback, explain and jsonLogger, every shape comes back as itself', async () => {
    const log = lines();
    const stop = subscribe(jsonLogger(log));
    try {
      await fc.assert(
        fc.asyncProperty(hostile, fc.boolean(), async ({ shape, status }, async) => {
          const make = () => HOSTILE[shape]!(status);
          const sample = make();
          const c = classify(sample);
          const clock = new VirtualClock();
          const breaker = circuitBreaker({ name: 'hostile', failureThreshold: 2, clock });
          const policy = pipeline(
            breaker,
            retry({ name: 'hostile', maxAttempts: 3, backoff: constant(0), clock }),
          );
          const sequences: unknown[] = [];
          for (let i = 0; i < 3; i++) {
            const value = make();
            const error = await policy.execute(thrower(value, async)).then(
              () => 'resolved',
              (e: unknown) => e,
            );
            sequences.push(error);
            if (i < 2) {
              // retried as its classification says, then rethrown as itself or wrapped with every attempt
              if (c.retryable) {
                expect(isRetriesExhaustedError(error), `${shape}: ${String(error)}`).toBe(true);
                const exhausted = error as RetriesExhaustedError;
                expect(exhausted.errors).toHaveLength(3);
                for (const e of exhausted.errors) expect(Object.is(e, value)).toBe(true);
                expect(Object.is(exhausted.cause, value)).toBe(true);
                expect(typeof exhausted.message).toBe('string');
              } else {
                expect(Object.is(error, value), shape).toBe(true);
              }
            }
          }
          // the breaker counted each exhausted sequence once, exactly when the classification says so
          if (c.countsForBreaker) {
            expect(breaker.state).toBe('open');
            expect(isCircuitOpenError(sequences[2])).toBe(true);
          } else {
            expect(breaker.state).toBe('closed');
          }

          const ladder = fallback([
            { name: 'first', run: thrower(make(), async) },
            { name: 'second', run: thrower(make(), async) },
          ]);
          const allFailed = await ladder.execute().catch((e: unknown) => e);
          expect(isAllPathsFailedError(allFailed)).toBe(true);
          expect((allFailed as AllPathsFailedError).failures.map((f) => f.path)).toEqual([
            'first',
            'second',
          ]);

          for (const value of [sample, sequences[0], allFailed]) {
            expect(typeof explain(value)).toBe('string');
            expect(typeof JSON.stringify(explainJSON(value))).toBe('string');
            expect(() => JSON.stringify(redact(value))).not.toThrow();
            expect(typeof summarizeError(value).message).toBe('string');
          }
        }),
        { numRuns: 300 },
      );
    } finally {
      stop();
    }
    // every event reached the log as one parseable line, and no sink threw (a throwing sink becomes a warning)
    await new Promise((r) => setImmediate(r));
    expect(log.lines.length).toBeGreaterThan(300);
    for (const line of log.lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(warnings).toEqual([]);
  });
});
