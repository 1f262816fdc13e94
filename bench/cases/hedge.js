// Case 9: hedged calls on a heavy-tailed workload (5 % of first events 10× late).
import { fmt } from '../lib/format.js';
import { runWorker } from '../lib/spawn.js';
import { quantile } from '../lib/stats.js';

export const id = 'hedge';
export const title =
  '11. Hedged calls: time to first event on a heavy tail (@anthropic-ai/sdk against the chaos server)';

export async function run(ctx) {
  const p = ctx.quick
    ? { calls: 300, concurrency: 10, seed: 11, afterMs: 400 }
    : { calls: 1500, concurrency: 10, seed: 11, afterMs: 400 };
  const args = (arm) => [arm, p.calls, p.concurrency, p.seed, p.afterMs];
  // Side by side in one run, one arm after the other (in parallel the 2 cores' contention, not the
  // fault, would make the tail), each in its own process against its own chaos server (same seed).
  const arms = [];
  for (const arm of ['plain', 'p95', 'fixed'])
    arms.push(
      await runWorker({
        node: ctx.main.path,
        worker: 'hedge.worker.js',
        args: args(arm),
        timeoutMs: 600_000,
      }),
    );
  const summarize = (r) => ({
    calls: r.calls,
    failures: r.failures,
    p50: quantile(r.ttfe, 0.5),
    p95: quantile(r.ttfe, 0.95),
    p99: quantile(r.ttfe, 0.99),
    max: Math.max(...r.ttfe),
    totalP99: quantile(r.total, 0.99),
    requests: r.requests,
    extra: r.requests / r.calls - 1,
    hedged: r.hedged,
    slowRequests: r.slow,
    loserTokens: r.loserTokens,
    wallMs: r.wallMs,
  });
  const [plain, p95, fixed] = arms.map(summarize);
  const data = { plain, p95, fixed };
  for (const d of [p95, fixed]) d.p99Lower = 1 - d.p99 / plain.p99;
  const columns = [
    { key: 'arm', label: 'arm', align: 'left' },
    { key: 'p50', label: 'p50 ms' },
    { key: 'p95', label: 'p95 ms' },
    { key: 'p99', label: 'p99 ms' },
    { key: 'lower', label: 'p99 vs plain' },
    { key: 'extra', label: 'extra requests' },
    { key: 'failures', label: 'failures' },
  ];
  const row = (name, d) => ({
    arm: name,
    p50: fmt(d.p50),
    p95: fmt(d.p95),
    p99: fmt(d.p99),
    lower: d.p99Lower === undefined ? '—' : `${fmt(d.p99Lower * 100, 1)}% lower`,
    extra: `${fmt(d.extra * 100, 2)}% (${d.requests - d.calls})`,
    failures: String(d.failures),
  });
  const rows = [
    row('streamMessage, no hedge', plain),
    row("hedge({ afterMs: 'p95', maxExtra: 0.05 })", p95),
    row(`hedge({ afterMs: ${p.afterMs}, maxExtra: 0.05 })`, fixed),
  ];
  const notes = [
    `${p.calls} calls per arm, ${p.concurrency} in flight; the first event comes after 160–240 ms, and for 5 % of requests (a latency fault with headersFirst, probability 0.05, seed ${p.seed}) 1,800 ms later: 10× (every request rolls, hedges included).`,
    'Time to first event: from the call to the first event its caller sees. Extra requests: POST /v1/messages the server received beyond one per call. The arms run one after the other in one run, each in its own process with its own chaos server.',
  ];
  if (ctx.quick) notes.push(`--quick: ${p.calls} calls instead of 1500.`);
  return { params: p, data, tables: [{ title, columns, rows, notes }] };
}
