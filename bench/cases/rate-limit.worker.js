// Case rate-limit worker: one arm of the burst against a rate-limited chaos server.
//   rate-limit.worker.js <arm: retry-after | limiter> <calls> <requestsPerMinute>
// Both arms: the real @anthropic-ai/sdk (maxRetries 0) through agent-recourse/anthropic's streamMessage,
// every call started at once, the chaos server enforcing requestsPerMinute with its token buckets
// (real 429s with retry-after and rate-limit headers). Server, retry and limiter share one
// VirtualClock, moved to the next timer whenever the network is quiet: the times are simulated
// minutes, measured in a few real seconds.
// retry-after: retry({ maxAttempts: 100, backoff: constant(0) }) — each 429 waits its Retry-After.
// limiter:     the same retry, and rateLimiter() learning the limit from the headers.
import { performance } from 'node:perf_hooks';
import Anthropic from '@anthropic-ai/sdk';
import { loadEntry, loadRecourse } from '../lib/recourse.js';
import { report } from '../lib/spawn.js';

const [arm, callsArg, rpmArg] = process.argv.slice(2);
const calls = Number(callsArg);
const rpm = Number(rpmArg);

const r = await loadRecourse();
const { startChaosServer } = await loadEntry('chaos/index.js');
const { VirtualClock } = await loadEntry('testing/index.js');
const { streamMessage } = await loadEntry('anthropic/index.js');

const clock = new VirtualClock();
const chaos = await startChaosServer({
  scenario: { rules: [], rateLimit: { requestsPerMinute: rpm } },
  clock,
});
const http = { waiting: 0 };
const client = new Anthropic({
  baseURL: chaos.url,
  apiKey: 'bench',
  maxRetries: 0,
  logLevel: 'off',
  fetch: async (url, init) => {
    http.waiting++;
    try {
      return await fetch(url, init);
    } finally {
      http.waiting--;
    }
  },
});
const layers = [
  r.retry({ clock, maxAttempts: 100, backoff: r.constant(0), maxRetryAfterMs: 600_000 }),
];
if (arm === 'limiter') layers.push(r.rateLimiter({ name: 'bench', clock }));
const policy = r.pipeline(...layers);
const body = {
  model: 'claude-sonnet-4-6',
  max_tokens: 64,
  messages: [{ role: 'user', content: 'Hello' }],
};

const t0 = performance.now();
let settled = 0;
let lastDoneAt = 0;
const outcomes = await (async () => {
  const all = Promise.allSettled(
    Array.from({ length: calls }, () =>
      policy
        .execute((ctx) => streamMessage(client, body, { signal: ctx.signal }))
        .finally(() => {
          settled++;
          lastDoneAt = clock.now();
        }),
    ),
  );
  let seen = '';
  let quietSince = performance.now();
  while (settled < calls) {
    await new Promise((res) => setTimeout(res, 2));
    const now = `${settled}/${chaos.requests.length}`;
    if (now !== seen || http.waiting > 0) {
      seen = now;
      quietSince = performance.now();
      continue;
    }
    if (performance.now() - quietSince < 15) continue;
    const next = clock.nextAt();
    if (next !== undefined) await clock.advanceTo(next);
    quietSince = performance.now();
  }
  return all;
})();
const wallMs = performance.now() - t0;
await chaos.close();
report({
  arm,
  calls,
  requestsPerMinute: rpm,
  ok: outcomes.filter((o) => o.status === 'fulfilled').length,
  requests: chaos.requests.length,
  refused429: chaos.requests.filter((q) => q.status === 429).length,
  simulatedMs: lastDoneAt,
  idealMs: Math.max(0, calls - rpm) * (60_000 / rpm),
  wallMs,
});
