// Case 9: a burst against a provider's rate limit: retrying after each 429 versus rateLimiter().
import { fmt } from '../lib/format.js';
import { runWorker } from '../lib/spawn.js';

export const id = 'rate-limit';
export const title =
  '10. Rate limit: a burst of calls, retry-after-429 only vs rateLimiter() (simulated time)';

export async function run(ctx) {
  const p = ctx.quick
    ? { calls: 80, requestsPerMinute: 50 }
    : { calls: 200, requestsPerMinute: 50 };
  const args = (arm) => [arm, p.calls, p.requestsPerMinute];
  // Side by side in one run, each arm in its own process with its own chaos server.
  const [retryAfter, limiter] = await Promise.all([
    runWorker({
      node: ctx.main.path,
      worker: 'rate-limit.worker.js',
      args: args('retry-after'),
      timeoutMs: 300_000,
    }),
    runWorker({
      node: ctx.main.path,
      worker: 'rate-limit.worker.js',
      args: args('limiter'),
      timeoutMs: 300_000,
    }),
  ]);
  const data = { 'retry-after': retryAfter, limiter };
  const columns = [
    { key: 'arm', label: 'arm', align: 'left' },
    { key: 'ok', label: 'answered' },
    { key: 'refused', label: '429 answers' },
    { key: 'requests', label: 'requests' },
    { key: 'time', label: 'total time (simulated)' },
    { key: 'ideal', label: 'vs ideal' },
  ];
  const row = (name, d) => ({
    arm: name,
    ok: `${d.ok}/${d.calls}`,
    refused: fmt(d.refused429),
    requests: fmt(d.requests),
    time: `${fmt(d.simulatedMs / 1000, 1)} s`,
    ideal: `${fmt((d.simulatedMs / d.idealMs - 1) * 100, 1)}% over`,
  });
  const rows = [
    row('retry after each 429 (Retry-After honoured, no backoff)', retryAfter),
    row('rateLimiter() + the same retry', limiter),
  ];
  const notes = [
    `${p.calls} streamMessage calls started at once (real @anthropic-ai/sdk, maxRetries 0) against the chaos server enforcing ${p.requestsPerMinute} requests per minute (token bucket, real 429s, retry-after in whole seconds, rate-limit headers).`,
    `Server, retry and limiter run on one VirtualClock advanced whenever the network is quiet: times are simulated (ideal: ${p.requestsPerMinute} at once, then one per ${fmt(60 / p.requestsPerMinute, 1)} s = ${fmt(data.limiter.idealMs / 1000, 1)} s); real time per arm: ${fmt(retryAfter.wallMs / 1000, 1)} s and ${fmt(limiter.wallMs / 1000, 1)} s.`,
  ];
  if (ctx.quick) notes.push(`--quick: ${p.calls} calls instead of 200.`);
  return { params: p, data, tables: [{ title, columns, rows, notes }] };
}
