// Case 7: chaos workload: the SDK's own retries versus recourse's recommended pipeline.
import { fmt } from '../lib/format.js';
import { runWorker } from '../lib/spawn.js';
import { quantile } from '../lib/stats.js';

export const id = 'chaos';
export const title = '7. Chaos workload (@anthropic-ai/sdk against the chaos server)';

export async function run(ctx) {
  const p = ctx.quick
    ? { calls: 60, concurrency: 20, deadlineMs: 5_000, idleMs: 1000, seed: 7 }
    : { calls: 500, concurrency: 20, deadlineMs: 30_000, idleMs: 1000, seed: 7 };
  const args = (arm) => [arm, p.calls, p.concurrency, p.deadlineMs, p.idleMs, p.seed];
  // The arms run side by side, each in its own process with its own chaos server (same seed).
  const [sdk, recourse] = await Promise.all([
    runWorker({ node: ctx.main.path, worker: 'chaos.worker.js', args: args('sdk'), timeoutMs: 180_000 }),
    runWorker({ node: ctx.main.path, worker: 'chaos.worker.js', args: args('recourse'), timeoutMs: 180_000 }),
  ]);
  const summarize = (r) => {
    const ms = r.outcomes.map((o) => o.ms);
    const kinds = {};
    for (const o of r.outcomes) kinds[o.kind] = (kinds[o.kind] ?? 0) + 1;
    return {
      adapter: r.adapter,
      calls: r.calls,
      successRate: r.outcomes.filter((o) => o.ok).length / r.calls,
      p50: quantile(ms, 0.5),
      p99: quantile(ms, 0.99),
      max: Math.max(...ms),
      requests: r.requests,
      requestsPerCall: r.requests / r.calls,
      faultsInjected: r.faults,
      outcomes: kinds,
      servedByFallback: r.outcomes.filter((o) => o.servedBy === 'fallback').length,
      wallMs: r.wallMs,
      failures: r.outcomes.filter((o) => !o.ok).slice(0, 20),
    };
  };
  const data = { sdk: summarize(sdk), recourse: summarize(recourse) };
  const columns = [
    { key: 'arm', label: 'arm', align: 'left' },
    { key: 'success', label: 'success' },
    { key: 'p50', label: 'p50 ms' },
    { key: 'p99', label: 'p99 ms' },
    { key: 'rpc', label: 'requests/call' },
    { key: 'outcomes', label: 'outcomes', align: 'left' },
  ];
  const row = (name, d) => ({
    arm: name,
    success: `${fmt(d.successRate * 100, 1)}%`,
    p50: fmt(d.p50),
    p99: fmt(d.p99),
    rpc: fmt(d.requestsPerCall, 2),
    outcomes: Object.entries(d.outcomes)
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k} ${n}`)
      .join(', ') + (d.servedByFallback ? ` (${d.servedByFallback} served by the fallback)` : ''),
  });
  const rows = [
    row(`SDK retries only (maxRetries 2), ${p.deadlineMs / 1000} s harness deadline`, data.sdk),
    row(`recourse: fallback[pipeline(breaker, retry(3), timeout(10 s))] over streamMessage (idleMs ${p.idleMs}, validate non-empty)`, data.recourse),
  ];
  const notes = [
    `${p.calls} logical calls per arm, ${p.concurrency} in flight, streaming (SSE); faults per request: 10% 529, 5% 429 (retry-after 1 s), 3% stall after the first text delta, 2% empty answer (scenario seed ${p.seed}); the arms run in parallel, each in its own process against its own chaos server.`,
    'Success = a non-empty answer that ended with message_stop. requests/call counts every POST /v1/messages the chaos server received (retries and fallback included).',
    `recourse arm: ${data.recourse.adapter}.`,
  ];
  if (ctx.quick) notes.push(`--quick: ${p.calls} calls and a ${p.deadlineMs / 1000} s harness deadline instead of 500 and 30 s.`);
  return { params: p, data, tables: [{ title, columns, rows, notes }] };
}
