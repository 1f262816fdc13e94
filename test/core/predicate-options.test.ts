import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { escalationCanUseTool } from '../../src/claude-agent-sdk/index.js';
import { circuitBreaker, escalate, memoryStore, retry, watch } from '../../src/index.js';

// A predicate option answers synchronously: a promise is truthy, so an async predicate would say
// yes to everything (retry every failure, count every failure). One rule: src/options/predicate.ts.

// What a JavaScript caller (or a cast) can pass; the types already refuse it.
const asyncFalse = (async () => false) as unknown as () => boolean;
const asyncTrue = (async () => true) as unknown as () => boolean;

const notRetryable = (): Error => Object.assign(new Error('bad request'), { status: 400 });

describe('predicate options refuse promises', () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => {
    unhandled.push(reason);
  };
  beforeEach(() => {
    unhandled.length = 0;
    process.on('unhandledRejection', onUnhandled);
  });
  afterEach(() => {
    process.off('unhandledRejection', onUnhandled);
  });

  it('an async retryOn is refused when the retry is built, naming retryOn', () => {
    expect(() => retry({ retryOn: asyncFalse })).toThrow(TypeError);
    expect(() => retry({ retryOn: asyncFalse })).toThrow(/retryOn.*async function/);
  });

  it('a retryOn that returns a promise fails the call with an error naming retryOn, and is not retried', async () => {
    let calls = 0;
    const policy = retry({
      maxAttempts: 5,
      retryOn: () => Promise.reject(new Error('the promise itself fails')) as unknown as boolean,
    });
    const error = await policy
      .execute(() => {
        calls++;
        throw notRetryable();
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(String((error as Error).message)).toMatch(/^retryOn must answer synchronously/);
    expect(calls).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
  });

  it('a synchronous retryOn still decides, by truthiness for non-booleans', async () => {
    let calls = 0;
    const policy = retry({ maxAttempts: 3, retryOn: () => 0 as unknown as boolean });
    await policy
      .execute(() => {
        calls++;
        throw new Error('x');
      })
      .catch(() => {});
    expect(calls).toBe(1);
  });

  it('countsAsFailure: async refused at build, a returned promise refused at the call', async () => {
    expect(() => circuitBreaker({ countsAsFailure: asyncFalse })).toThrow(
      /countsAsFailure must answer synchronously/,
    );
    const breaker = circuitBreaker({
      failureThreshold: 1,
      countsAsFailure: () => Promise.resolve(false) as unknown as boolean,
    });
    const error = await breaker
      .execute(async () => {
        throw new Error('down');
      })
      .catch((e: unknown) => e);
    expect(String((error as Error).message)).toMatch(/^countsAsFailure must answer synchronously/);
  });

  it('watch isProgress: async refused when watching, a returned promise fails the read naming isProgress', async () => {
    async function* three(): AsyncGenerator<number> {
      yield 1;
      yield 2;
      yield 3;
    }
    expect(() => watch(three(), { idleMs: 60_000, isProgress: asyncFalse })).toThrow(
      /isProgress must answer synchronously/,
    );
    const read = async (): Promise<void> => {
      for await (const _ of watch(three(), {
        idleMs: 60_000,
        isProgress: () => Promise.resolve(false) as unknown as boolean,
      })) {
        // never reached
      }
    };
    await expect(read()).rejects.toThrow(/^isProgress must answer synchronously/);
  });

  it('escalate when and escalationCanUseTool tools: an async predicate is refused when built', () => {
    expect(() => escalate({ store: memoryStore(), when: asyncTrue })).toThrow(
      /when must answer synchronously/,
    );
    const policy = escalate({ store: memoryStore() });
    expect(() => escalationCanUseTool(policy, { tools: asyncTrue })).toThrow(
      /tools must answer synchronously/,
    );
  });
});
