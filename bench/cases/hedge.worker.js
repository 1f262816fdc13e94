// Hedge case worker: one arm of the heavy-tail workload, against its own chaos server.
//   hedge.worker.js <arm: plain | p95 | fixed> <calls> <concurrency> <seed> <afterMs (fixed arm)>
// Every arm streams with agent-recourse/anthropic's streamMessage over the real @anthropic-ai/sdk; the
// hedged arms run it under hedge({ afterMs, maxExtra: 0.05 }). Time to first event is measured
// from the call's start to the first event its caller sees.
import { performance } from 'node:perf_hooks';
import Anthropic from '@anthropic-ai/sdk';
import { loadEntry, loadRecourse } from '../lib/recourse.js';
import { report } from '../lib/spawn.js';

const [arm, callsArg, concurrencyArg, seedArg, afterArg] = process.argv.slice(2);
const calls = Number(callsArg);
const concurrency = Number(concurrencyArg);
const seed = Number(seedArg);

// 95 % of streams start after ~200 ms, 5 % after ~2,000 ms (10×): a latency fault with
// headersFirst puts the wait between the headers and the first event.
const scenario = {
  seed,
  pacing: [{ firstEventMs: { uniform: [160, 240] }, betweenEventsMs: 2 }],
  rules: [
    {
      name: 'slow-first-event',
      match: { path: '/v1/messages' },
      probability: 0.05,
      fault: { kind: 'latency', ms: 1800, headersFirst: true },
    },
  ],
};

const { startChaosServer } = await loadEntry('chaos/index.js');
const { streamMessage } = await loadEntry('anthropic/index.js');
const r = await loadRecourse();
const chaos = await startChaosServer({ port: 0, scenario });
const client = new Anthropic({ baseURL: chaos.url, apiKey: 'bench-key', maxRetries: 0 });
const body = (i) => ({
  model: 'claude-bench',
  max_tokens: 64,
  messages: [{ role: 'user', content: `task ${i}` }],
});

const h =
  arm === 'plain'
    ? undefined
    : r.hedge({ afterMs: arm === 'p95' ? 'p95' : Number(afterArg), maxExtra: 0.05 });
let hedged = 0;
let loserTokens = 0;
h?.on('hedge', (e) => {
  hedged++;
  loserTokens += e.loserTokens ?? 0;
});

const ttfe = [];
const total = [];
let failures = 0;
async function one(i) {
  const started = performance.now();
  let first;
  const onEvent = () => {
    first ??= performance.now() - started;
  };
  try {
    const call = (ctx) =>
      streamMessage(client, body(i), { signal: ctx?.signal, onEvent, idleMs: 30_000 });
    await (h === undefined ? call(undefined) : h.execute(call));
    ttfe.push(first);
    total.push(performance.now() - started);
  } catch {
    failures++;
  }
}

const t0 = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < calls) await one(next++);
  }),
);
const wallMs = performance.now() - t0;
const requests = chaos.requests.filter((x) => x.path === '/v1/messages').length;
const slow = chaos.requests.filter((x) => x.fault === 'latency').length;
await chaos.close();
report({ arm, calls, ttfe, total, failures, requests, slow, hedged, loserTokens, wallMs });
process.exit(0);
