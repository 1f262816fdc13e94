// retryBudget({ store }): one budget for every process sharing the store.
import { expect, it } from 'vitest';
import { forEachBackend, spawnWorker } from './cluster-helpers.js';

forEachBackend('a retry budget shared by 4 processes', (backend) => {
  it('against a dead dependency, all of them together retry within ratio × requests + one floor', async () => {
    const spec = backend.fresh('budget');
    const startAt = Date.now() + 1500;
    const workers = Array.from({ length: 4 }, () =>
      spawnWorker('budget.mjs', spec, ['claude', 400, 10, startAt]),
    );
    const results = (await Promise.all(workers.map((w) => w.line('RESULT', 30_000)))).map(
      (l) => l.split(' ').map(Number) as [number, number],
    );
    const elapsedS = (Date.now() - startAt) / 1000;
    const calls = results.reduce((s, [c]) => s + c, 0);
    const attempts = results.reduce((s, [, a]) => s + a, 0);
    console.log(
      `[${backend.name}] 4 processes, ${calls} logical calls: ${attempts} attempts, ${(attempts / calls).toFixed(3)} per call (retry(3) alone: 3)`,
    );
    // ratio 0.1 of the requests, plus one floor of 3 per second shared by all four (not four floors)
    expect(attempts - calls).toBeLessThanOrEqual(0.1 * calls + 3 + 3 * elapsedS);
    expect(attempts - calls).toBeGreaterThan(0.05 * calls); // the budget is used, not starved
  }, 120_000);
});
