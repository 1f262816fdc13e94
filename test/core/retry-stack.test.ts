import { describe, expect, it } from 'vitest';
import { constant, isRetriesExhaustedError, pipeline, retry, timeout } from '../../src/index.js';

// Where a retry gave up from (docs/errors.md): the caller's frames, and the work's own on `cause`.

async function theCallersOwnFrame(run: () => Promise<unknown>): Promise<unknown> {
  try {
    return await run();
  } catch (error) {
    return error;
  }
}

describe('the error a retry gives up with', () => {
  const policies = {
    retry: () => retry({ maxAttempts: 2, backoff: constant(1) }),
    'pipeline(retry, timeout)': () =>
      pipeline(retry({ maxAttempts: 2, backoff: constant(1) }), timeout(60_000)),
  };
  for (const [kind, make] of Object.entries(policies)) {
    it(`${kind}: awaited, its stack keeps the caller's frames; cause is the last attempt's own error with its stack`, async () => {
      const thrown: Error[] = [];
      const policy = make();
      const error = await theCallersOwnFrame(() =>
        policy.execute(async function theWorkItself() {
          await null;
          const e = new Error(`attempt ${thrown.length + 1}`);
          thrown.push(e);
          throw e;
        }),
      );
      expect(isRetriesExhaustedError(error)).toBe(true);
      const exhausted = error as Error & { errors: unknown[] };
      expect(exhausted.stack).toContain('theCallersOwnFrame');
      expect(exhausted.cause).toBe(thrown[1]);
      expect((exhausted.cause as Error).stack).toContain('theWorkItself');
      expect(exhausted.errors).toEqual(thrown);
    });
  }
});
