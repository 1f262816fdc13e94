// The gaps behind the adapters' default stall limits, measured on the real Claude Agent SDK CLI
// and the real @anthropic-ai/sdk against the local chaos server (docs/claude-agent-sdk.md and
// docs/anthropic.md quote the results).
//
//   npm run build && node bench/stall-defaults.mjs          # ~3 min (a 65 s and a 25 s tool run, a 45 s API wait)
//
// Measures: (1) CLI start-up: query() → first message and → system/init; (2) what the CLI sends
// while it waits on a slow API (first event after 45 s); (3) what it sends while a Bash tool runs
// (25 s and 65 s); (4) paced chaos streams with thinking-like silences (mostly 20 ms, 3% 3 s, one
// 40 s) through runQuery and streamMessage with the default limits: none may stall. One JSON line
// per measurement.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Anthropic from '@anthropic-ai/sdk';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { anthropicClientOptions, streamMessage } from '../dist/anthropic/index.js';
import { startChaosServer } from '../dist/chaos/index.js';
import { agentEnv, runQuery } from '../dist/claude-agent-sdk/index.js';

const STARTUP_RUNS = 5;
const round = (ms) => Math.round(ms);
const report = (name, value) => console.log(JSON.stringify({ name, ...value }));
const kindOf = (m) =>
  m.type === 'stream_event'
    ? `stream_event/${m.event.type}`
    : m.subtype
      ? `${m.type}/${m.subtype}`
      : m.type;

/** Runs one query against a chaos server and returns every message with its arrival time. */
async function timeline(serverOptions, prompt, extra = {}) {
  const chaos = await startChaosServer({ port: 0, ...serverOptions });
  const home = mkdtempSync(join(tmpdir(), 'recourse-gaps-'));
  const t0 = performance.now();
  const rows = [];
  try {
    const q = query({
      prompt,
      options: {
        env: agentEnv({ baseUrl: chaos.url, home }),
        cwd: home,
        persistSession: false,
        settingSources: [],
        includePartialMessages: true,
        ...extra,
      },
    });
    for await (const m of q) {
      rows.push({ at: performance.now() - t0, kind: kindOf(m), message: m });
      if (m.type === 'result') break;
    }
  } finally {
    await chaos.close();
    rmSync(home, { recursive: true, force: true });
  }
  return rows;
}

/** The longest silence between two messages, and what came after it. */
function longestGap(rows) {
  let best = { ms: 0, before: '', after: '' };
  for (let i = 1; i < rows.length; i++) {
    const ms = rows[i].at - rows[i - 1].at;
    if (ms > best.ms) best = { ms: round(ms), before: rows[i - 1].kind, after: rows[i].kind };
  }
  return best;
}

// (1) start-up
const firsts = [];
const inits = [];
for (let i = 0; i < STARTUP_RUNS; i++) {
  const rows = await timeline({ scenario: { rules: [] } }, 'hi');
  firsts.push(round(rows[0].at));
  inits.push(round(rows.find((r) => r.kind === 'system/init').at));
}
report('cli-startup', {
  runs: STARTUP_RUNS,
  firstMessageMs: firsts,
  initMs: inits,
  maxMs: Math.max(...inits),
});

// (2) a slow API: 45 s before the first event (headers first), and 45 s before the headers
for (const headersFirst of [true, false]) {
  const rows = await timeline(
    { scenario: { rules: [{ fault: { kind: 'latency', ms: 45_000, headersFirst }, times: 1 }] } },
    'hi',
  );
  const init = rows.find((r) => r.kind === 'system/init');
  report(`cli-api-wait-${headersFirst ? 'after-headers' : 'before-headers'}`, {
    initMs: round(init.at),
    longestGap: longestGap(rows),
    messagesDuringWait: rows
      .filter((r) => r.at > init.at + 100 && r.at < init.at + 44_000)
      .map((r) => r.kind),
  });
}

// (3) tool runs: Bash counting 25 s and 65 s (a bare `sleep N` is refused by the CLI)
for (const seconds of [25, 65]) {
  const toolUse = {
    name: 'Bash',
    input: {
      command: `for i in $(seq 1 ${seconds}); do sleep 1; done; echo done`,
      description: `count to ${seconds}`,
    },
  };
  const rows = await timeline({ answers: { '*': { text: 'Running it.', toolUse } } }, 'run it', {
    allowedTools: ['Bash'],
  });
  const start = rows.findIndex((r) => r.kind === 'stream_event/message_stop');
  const end = rows.findIndex((r) => r.kind === 'user');
  const during = rows.slice(start, end + 1);
  report(`cli-tool-run-${seconds}s`, {
    messages: during.map((r) => ({
      atMs: round(r.at - rows[start].at),
      kind: r.kind,
      ...(r.message.type === 'tool_progress' ? { elapsedS: r.message.elapsed_time_seconds } : {}),
    })),
    longestGap: longestGap(during),
  });
}

// (4) paced streams with thinking-like silences, default limits: no stall may be reported
const pacing = [
  {
    firstEventMs: 500,
    betweenEventsMs: {
      mix: [
        { weight: 97, ms: 20 },
        { weight: 3, ms: 3000 },
      ],
    },
  },
];
const slowThink = {
  pacing,
  rules: [{ fault: { kind: 'latency', ms: 40_000, headersFirst: true }, times: 1 }],
};
{
  const chaos = await startChaosServer({
    port: 0,
    scenario: { seed: 7, ...slowThink },
    answers: { '*': { textTokens: 120 } },
  });
  const home = mkdtempSync(join(tmpdir(), 'recourse-gaps-'));
  const t0 = performance.now();
  try {
    const result = await runQuery({
      prompt: 'hi',
      options: {
        env: agentEnv({ baseUrl: chaos.url, home }),
        cwd: home,
        persistSession: false,
        settingSources: [],
      },
    });
    report('runQuery-defaults-paced', {
      ok: result.subtype === 'success',
      ms: round(performance.now() - t0),
    });
  } catch (error) {
    report('runQuery-defaults-paced', { ok: false, error: String(error) });
  } finally {
    await chaos.close();
    rmSync(home, { recursive: true, force: true });
  }
}
{
  const chaos = await startChaosServer({
    port: 0,
    scenario: { seed: 7, ...slowThink },
    answers: { '*': { textTokens: 120 } },
  });
  const client = new Anthropic(
    anthropicClientOptions({ baseURL: chaos.url, apiKey: 'test', logLevel: 'off' }),
  );
  const gaps = [];
  let last = performance.now();
  try {
    const message = await streamMessage(
      client,
      { model: 'claude-test', max_tokens: 1024, messages: [{ role: 'user', content: 'hi' }] },
      {
        onEvent: () => {
          const t = performance.now();
          gaps.push(t - last);
          last = t;
        },
      },
    );
    report('streamMessage-defaults-paced', {
      ok: message.stop_reason === 'end_turn',
      events: gaps.length,
      longestGapMs: round(Math.max(...gaps)),
    });
  } catch (error) {
    report('streamMessage-defaults-paced', { ok: false, error: String(error) });
  } finally {
    await chaos.close();
  }
}
