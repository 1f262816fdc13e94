// Case 5: retry amplification against a dead dependency.
import { fmt } from '../lib/format.js';
import { runWorker } from '../lib/spawn.js';

export const id = 'amplification';
export const title = '5. Retry amplification against a dead dependency (1,000 logical calls)';

export async function run(ctx) {
  const p = { logicalCalls: 1000 };
  const r = await runWorker({
    node: ctx.main.path,
    worker: 'amplification.worker.js',
    args: [p.logicalCalls],
  });
  const data = Object.fromEntries(r.results.map((x) => [x.name, x]));
  const columns = [
    { key: 'label', label: 'policy', align: 'left' },
    { key: 'reached', label: 'calls reaching the dependency' },
    { key: 'per', label: 'per logical call' },
    { key: 'errors', label: 'what the caller got', align: 'left' },
  ];
  const rows = r.results.map((x) => ({
    label: x.label,
    reached: fmt(x.reached),
    per: fmt(x.perCall, 3),
    errors: Object.entries(x.errors)
      .map(([k, n]) => `${k} ×${n}`)
      .join(', '),
  }));
  const notes = [
    'The dependency always rejects with a 503 (retryable for every library); all backoffs are 0 ms. The breaker (5 consecutive failures, 30 s cooldown) opens after 5 exhausted sequences and then rejects at once.',
  ];
  return { params: p, data, tables: [{ title, columns, rows, notes }] };
}
