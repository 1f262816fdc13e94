// Resumption case worker: one arm against its own chaos server.
//   resume.worker.js <arm: resume | restart> <calls> <concurrency> <idleMs> <seed> <textTokens> <betweenEventsMs>
// resume:  streamMessage(client, body, { idleMs, resume: { maxResumes: 4 } }) under retry(5) (a break
//          before any content is retry's: nothing to keep).
// restart: streamMessage(client, body, { idleMs }) under retry(5): every break starts over.
// Faults: 20% of requests break at a uniformly drawn event after content began (stall, truncate,
// reset or in-stream overloaded_error, 5% each); continuations and restarts are requests too.
// Every final text and every text shown through onEvent is compared with the unbroken answer,
// fetched from a second chaos server without faults (same seed, same answers).
import { performance } from 'node:perf_hooks';
import Anthropic from '@anthropic-ai/sdk';
import { loadEntry, loadRecourse } from '../lib/recourse.js';
import { report } from '../lib/spawn.js';

const [arm, callsArg, concurrencyArg, idleArg, seedArg, tokensArg, gapArg] = process.argv.slice(2);
const calls = Number(callsArg);
const concurrency = Number(concurrencyArg);
const idleMs = Number(idleArg);
const seed = Number(seedArg);
const textTokens = Number(tokensArg);
const betweenEventsMs = Number(gapArg);

const { startChaosServer } = await loadEntry('chaos/index.js');
const { streamMessage } = await loadEntry('anthropic/index.js');
const r = await loadRecourse();

const answers = { '*': { textTokens } };
const pacing = [{ firstEventMs: 40, betweenEventsMs }];
const clean = await startChaosServer({ port: 0, answers, scenario: { seed } });
// The unbroken answer's number of events, to draw break points over the whole of it.
const probe = await (
  await fetch(`${clean.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'claude-bench',
      max_tokens: 8192,
      stream: true,
      messages: [{ role: 'user', content: 'task probe' }],
    }),
  })
).text();
const events = probe.split('\n\n').filter((f) => f.trim() !== '').length;
// After message_start, content_block_start and ping (3 events) the text has begun.
const after = { uniform: [4, events - 1] };
const kinds = ['stall', 'truncate', 'reset', 'stream-error'];
// The first rule that wins its roll applies: 5% each, unconditionally.
const rules = kinds.map((kind, i) => ({
  name: kind,
  match: { path: '/v1/messages' },
  fault: { kind, afterEvents: after },
  probability: 0.05 / (1 - 0.05 * i),
}));
const chaos = await startChaosServer({ port: 0, answers, scenario: { seed, rules, pacing } });

const client = new Anthropic({
  baseURL: chaos.url,
  apiKey: 'bench-key',
  maxRetries: 0,
  logLevel: 'off',
});
const reference = new Anthropic({ baseURL: clean.url, apiKey: 'bench-key', maxRetries: 0 });
const body = (i) => ({
  model: 'claude-bench',
  max_tokens: 8192,
  messages: [{ role: 'user', content: `task ${i}: explain resumable streams` }],
});
const textOf = (m) => m.content.map((b) => (b.type === 'text' ? b.text : '')).join('');

// Tokens generated: what the server streamed, request by request (text deltas seen by the SDK, 4 characters a token).
const generated = new Map();
const tapped = {
  messages: {
    stream(b, o) {
      const stream = client.messages.stream(b, o);
      const call = b.messages[0].content;
      const list = generated.get(call) ?? [];
      const at = list.push(0) - 1;
      generated.set(call, list);
      stream.on('streamEvent', (e) => {
        if (e.type === 'content_block_delta' && e.delta.type === 'text_delta')
          list[at] += e.delta.text.length;
      });
      return stream;
    },
  },
};

const policy = r.retry({ maxAttempts: 5, backoff: r.constant(0) });
const outcomes = [];
let next = 0;
const started = performance.now();
async function lane() {
  while (next < calls) {
    const i = next++;
    const expected = textOf(await reference.messages.create(body(i)));
    let shown = '';
    let resumes = 0;
    const t0 = performance.now();
    let outcome;
    try {
      const message = await policy.execute(() => {
        // what the caller shows: with resume one sequence, without it every attempt from its start
        shown = '';
        return streamMessage(tapped, body(i), {
          idleMs,
          firstItemMs: 10_000,
          onEvent: (e) => {
            if (e.type === 'content_block_delta' && e.delta.type === 'text_delta')
              shown += e.delta.text;
          },
          ...(arm === 'resume' ? { resume: { maxResumes: 4, onResume: () => resumes++ } } : {}),
        });
      });
      const text = textOf(message);
      outcome = {
        ok: true,
        exact: text === expected,
        shownExact: shown === expected,
        diffChars:
          Math.abs(text.length - expected.length) + Math.abs(shown.length - expected.length),
        outputTokens: message.usage.output_tokens,
      };
    } catch (error) {
      outcome = {
        ok: false,
        kind: error?.name ?? 'error',
        message: String(error?.message ?? error).slice(0, 160),
      };
    }
    const perRequest = generated.get(body(i).messages[0].content) ?? [];
    outcomes.push({
      ...outcome,
      ms: performance.now() - t0,
      requests: perRequest.length,
      chars: perRequest,
      resumes,
      expectedChars: expected.length,
    });
  }
}
await Promise.all(Array.from({ length: concurrency }, lane));
const wallMs = performance.now() - started;
const faults = {};
for (const q of chaos.requests) faults[q.fault ?? 'none'] = (faults[q.fault ?? 'none'] ?? 0) + 1;
await chaos.close();
await clean.close();
report({
  arm,
  node: process.version,
  calls,
  concurrency,
  idleMs,
  events,
  textTokens,
  betweenEventsMs,
  wallMs,
  requests: chaos.requests.length,
  faults,
  outcomes,
});
process.exit(0);
