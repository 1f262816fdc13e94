// Case 7 worker: one arm of the chaos workload, against its own chaos server.
//   chaos.worker.js <arm: sdk | recourse> <calls> <concurrency> <deadlineMs> <idleMs> <seed>
// sdk:      the real @anthropic-ai/sdk with its own retries (maxRetries 2, the default), each
//           logical call bounded by a harness deadline (the SDK never notices a stalled stream).
// recourse: the same SDK with maxRetries 0, streamed with recourse/anthropic's streamMessage
//           (watch({ idleMs }) inside; if the adapter is not built, the SDK's stream under watch()
//           plus validate()) inside the recommended pipeline(breaker, retry, timeout), with a
//           fallback path to a second model; the same harness deadline applies.
// A logical call succeeds when it returns a non-empty text answer.
import { performance } from 'node:perf_hooks';
import Anthropic from '@anthropic-ai/sdk';
import { loadEntry, loadRecourse } from '../lib/recourse.js';
import { report } from '../lib/spawn.js';

const [arm, callsArg, concurrencyArg, deadlineArg, idleArg, seedArg] = process.argv.slice(2);
const calls = Number(callsArg);
const concurrency = Number(concurrencyArg);
const deadlineMs = Number(deadlineArg);
const idleMs = Number(idleArg);
const seed = Number(seedArg);

// Unconditional rates 10% 529, 5% 429 (retry-after: 1 s), 3% stall mid-stream, 2% empty answer:
// the first rule that wins its roll applies, so each later probability is conditional on the
// earlier rules having passed.
const scenario = {
  seed,
  rules: [
    { name: 'overloaded', match: { path: '/v1/messages' }, fault: { kind: 'status', status: 529 }, probability: 0.1 },
    { name: 'rate-limited', match: { path: '/v1/messages' }, fault: { kind: 'status', status: 429, retryAfterS: 1 }, probability: 0.05 / 0.9 },
    // message_start, content_block_start, ping, the first text delta, then silence.
    { name: 'stall', match: { path: '/v1/messages' }, fault: { kind: 'stall', afterEvents: 4 }, probability: 0.03 / 0.85 },
    { name: 'empty', match: { path: '/v1/messages' }, fault: { kind: 'empty' }, probability: 0.02 / 0.82 },
  ],
};

const { startChaosServer } = await loadEntry('chaos/index.js');
const chaos = await startChaosServer({ port: 0, scenario });
const r = await loadRecourse();

const params = (model, i) => ({ model, max_tokens: 256, messages: [{ role: 'user', content: `task ${i}: summarise the findings` }] });
const body = (model, i) => ({ ...params(model, i), stream: true });

// The text of a streamed answer. The SDK ends the iteration quietly when its request is aborted,
// so an answer without its message_stop event is a cut-off answer, not a short one.
async function collect(stream) {
  let text = '';
  let complete = false;
  for await (const event of stream) {
    if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
    else if (event.type === 'message_stop') complete = true;
  }
  if (!complete) throw new Error('the stream ended without message_stop');
  return text;
}

let callOnce;
let adapter = 'direct: client.messages.create({ stream: true }) under watch()';
if (arm === 'sdk') {
  const client = new Anthropic({ baseURL: chaos.url, apiKey: 'bench-key' });
  callOnce = async (i, signal) => {
    const stream = await client.messages.create(body('claude-primary', i), { signal });
    const text = await collect(stream);
    return { text, servedBy: 'primary' };
  };
} else {
  const client = new Anthropic({ baseURL: chaos.url, apiKey: 'bench-key', maxRetries: 0 });
  const nonEmpty = (text) => (typeof text === 'string' && text.trim().length > 0) || 'empty answer';
  let adapterModule;
  try {
    adapterModule = await loadEntry('anthropic/index.js');
  } catch {
    // The adapter is not built: stream with the SDK directly under watch().
  }
  let streamText;
  let validateLayer = [];
  if (adapterModule?.streamMessage) {
    adapter = 'recourse/anthropic streamMessage(client, body, { signal: ctx.signal, idleMs, validate })';
    const textOf = (message) => message.content.filter((b) => b.type === 'text').map((b) => b.text).join('');
    streamText = async (ctx, model, i) => {
      const message = await adapterModule.streamMessage(client, params(model, i), {
        signal: ctx.signal,
        idleMs,
        validate: (m) => nonEmpty(textOf(m)),
      });
      return textOf(message);
    };
  } else {
    streamText = async (ctx, model, i) => {
      const stream = await client.messages.create(body(model, i), { signal: ctx.signal });
      return collect(r.watch(stream, { idleMs, signal: ctx.signal }));
    };
    validateLayer = [r.validate(nonEmpty)];
  }
  const breakers = new r.BreakerRegistry({ failureThreshold: 5, cooldownMs: 10_000 });
  const path = (name, model) => ({
    name,
    run: (ctx) => streamText(ctx, model, ctx.idempotencyKey),
    policy: r.pipeline(breakers.get(name), r.retry({ maxAttempts: 3 }), r.timeout(10_000), ...validateLayer),
  });
  const ladder = r.fallback([path('primary', 'claude-primary'), path('fallback', 'claude-fallback')]);
  callOnce = async (i, signal) => {
    const served = await ladder.execute({ signal, idempotencyKey: `task-${i}` });
    return { text: served.value, servedBy: served.servedBy };
  };
}

const outcomes = [];
let next = 0;
const started = performance.now();
async function lane() {
  while (next < calls) {
    const i = next++;
    const t0 = performance.now();
    const signal = AbortSignal.timeout(deadlineMs);
    let outcome;
    try {
      const { text, servedBy } = await callOnce(i, signal);
      outcome = text.trim().length > 0 ? { ok: true, kind: 'ok', servedBy } : { ok: false, kind: 'empty answer' };
    } catch (error) {
      const kind = signal.aborted ? 'harness deadline' : (error?.name ?? 'error');
      outcome = { ok: false, kind, message: String(error?.message ?? error).slice(0, 160) };
    }
    outcomes.push({ ...outcome, ms: performance.now() - t0 });
  }
}
await Promise.all(Array.from({ length: concurrency }, lane));
const wallMs = performance.now() - started;
const requests = chaos.requests.filter((q) => q.path === '/v1/messages');
const faults = {};
for (const q of requests) faults[q.fault ?? 'none'] = (faults[q.fault ?? 'none'] ?? 0) + 1;
await chaos.close();
report({ arm, adapter, node: process.version, calls, concurrency, deadlineMs, idleMs, wallMs, requests: requests.length, faults, outcomes });
process.exit(0);
