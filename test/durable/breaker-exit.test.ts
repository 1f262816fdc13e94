import { describe, expect, it } from 'vitest';
import { REDIS_URL, redisAvailable, uniquePrefix } from '../redis/redis-helpers.js';
import { requireBuild, spawnFixture } from './process-helpers.js';

// A breaker with a store and a clock that only has `sleep` (it cannot unref a wait): once the
// store is closed, nothing of recourse may hold the process open. Before the fix the shared
// breaker's re-read wait kept it alive 15 s (memoryStore) to 30 s and more (Redis). The bound
// below is well under that and far over what a clean exit takes, even on a loaded machine.
const EXIT_WITHIN_MS = 10_000;

async function exitsAfterClose(where: string, prefix = ''): Promise<void> {
  requireBuild();
  const worker = spawnFixture('breaker-exit.mjs', [where, prefix]);
  await worker.line('CLOSED', 60_000);
  const closedAt = Date.now();
  const stillRunning = new Promise<'still running'>((resolve) => {
    const t = setTimeout(() => resolve('still running'), EXIT_WITHIN_MS);
    void worker.exited.then(() => clearTimeout(t));
  });
  const outcome = await Promise.race([worker.exited, stillRunning]);
  if (outcome === 'still running') worker.child.kill('SIGKILL');
  expect(
    outcome,
    `exit within ${EXIT_WITHIN_MS} ms of close (${Date.now() - closedAt} ms)`,
  ).toEqual({
    code: 0,
    signal: null,
  });
  expect(worker.stderr()).toBe('');
  expect(worker.stdout()).toContain('HELD []');
}

describe('a breaker with a store and a sleep-only clock lets the process exit after store.close()', () => {
  it('memoryStore', async () => {
    await exitsAfterClose('memory');
  }, 90_000);

  it.skipIf(!redisAvailable)(
    'redisStore',
    async () => {
      await exitsAfterClose(REDIS_URL, uniquePrefix('exit'));
    },
    90_000,
  );
});
