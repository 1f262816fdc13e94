// Stall detection: recourse's adapters vs the SDKs on their own, against the local chaos server.
//
//   npm run build && node bench/stall-vs-sdk.mjs          # SDK-alone waits capped at 20 s
//   npm run build && node bench/stall-vs-sdk.mjs --full   # waits for the Agent SDK CLI's own watchdog and timeout (~11 min)
//
// Every stream stalls right after `message_start` (chaos fault `stall`, afterEvents 1). Prints one
// JSON line per measurement and a summary. Needs the optional peers installed (devDependencies).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Anthropic from '@anthropic-ai/sdk';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { anthropicClientOptions, streamMessage } from '../dist/anthropic/index.js';
import { startChaosServer } from '../dist/chaos/index.js';
import { agentEnv, runQuery } from '../dist/claude-agent-sdk/index.js';

const full = process.argv.includes('--full');
const capS = full ? 660 : 20;
const IDLE_MS = 2000;
const STARTUP_RUNS = 5;
const now = () => performance.now();
const round = (ms) => Math.round(ms);
const results = {};
const report = (name, value) => {
  results[name] = value;
  console.log(JSON.stringify({ name, ...value }));
};
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const waitGone = async (pid, capMs) => {
  const start = now();
  while (alive(pid) && now() - start < capMs) await new Promise((r) => setTimeout(r, 2));
  return alive(pid) ? null : now() - start;
};

const stall = {
  seed: 1,
  rules: [{ match: { model: 'claude-stall' }, fault: { kind: 'stall', afterEvents: 1 } }],
};
const requests = [];
const chaos = await startChaosServer({
  port: 0,
  scenario: stall,
  onRequest: (r) => requests.push({ at: now(), stream: r.stream }),
});
const home = mkdtempSync(join(tmpdir(), 'recourse-bench-'));
const baseOptions = (model) => ({
  env: agentEnv({ baseUrl: chaos.url, home }),
  cwd: home,
  persistSession: false,
  settingSources: [],
  model,
});
// A spawn that records the CLI's pid; runQuery still owns stopping it.
const recordingSpawn = (pids) => (o) => {
  const child = spawn(o.command, o.args, {
    cwd: o.cwd,
    env: o.env,
    signal: o.signal,
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  child.on('error', () => {});
  pids.push(child.pid);
  return child;
};

try {
  // 1. CLI start-up: query() → system/init, on a healthy model.
  const startups = [];
  const turns = [];
  for (let i = 0; i < STARTUP_RUNS; i++) {
    const t0 = now();
    let init = 0;
    await runQuery(
      { prompt: 'Say hi.', options: baseOptions('claude-healthy') },
      {
        idleMs: 10_000,
        onMessage: (m) => (init ||= m.type === 'system' && m.subtype === 'init' ? now() : 0),
      },
    );
    startups.push(init - t0);
    turns.push(now() - t0);
  }
  report('agent-sdk.startup', {
    initMs: {
      min: round(Math.min(...startups)),
      median: round(median(startups)),
      max: round(Math.max(...startups)),
    },
    healthyTurnMs: round(median(turns)),
  });

  // 2. recourse: runQuery with idleMs 2000 on a stream that stalls after message_start.
  {
    const pids = [];
    let lastProgress = 0;
    const t0 = now();
    const error = await runQuery(
      {
        prompt: 'Say hi.',
        options: { ...baseOptions('claude-stall'), spawnClaudeCodeProcess: recordingSpawn(pids) },
      },
      { idleMs: IDLE_MS, onMessage: () => (lastProgress = now()) },
    ).catch((e) => e);
    const rejected = now();
    const goneMs = await waitGone(pids[0], 10_000);
    report('agent-sdk.recourse', {
      error: `${error.name}(${error.phase})`,
      detectedAfterSilenceMs: round(rejected - lastProgress),
      totalMs: round(rejected - t0),
      cliGoneAfterMs: goneMs === null ? 'still alive after 10 s' : round(goneMs),
    });
  }

  // 3. The Agent SDK alone: how long until the CLI's own watchdog notices the stalled stream?
  {
    const pids = [];
    const abortController = new AbortController();
    requests.length = 0;
    const q = query({
      prompt: 'Say hi.',
      options: {
        ...baseOptions('claude-stall'),
        includePartialMessages: true,
        abortController,
        spawnClaudeCodeProcess: recordingSpawn(pids),
      },
    });
    let messageStartAt = 0;
    let watchdogAt = 0;
    let watchdogSaw = '';
    let resultAt = 0;
    const t0 = now();
    const outcome = await Promise.race([
      (async () => {
        try {
          for await (const m of q) {
            if (
              m.type === 'stream_event' &&
              m.event.type === 'message_start' &&
              messageStartAt === 0
            )
              messageStartAt = now();
            else if (messageStartAt !== 0 && watchdogAt === 0) {
              // The first sign of life after the stall is the watchdog abandoning the stream.
              watchdogAt = now();
              watchdogSaw =
                m.type === 'stream_event'
                  ? `stream_event ${m.event.type}${m.abandoned_blocks ? ' (abandoned)' : ''}`
                  : m.type;
            }
            if (m.type === 'result') {
              resultAt = now();
              return `result ${m.subtype} is_error=${m.is_error} ${String(m.result ?? m.errors).slice(0, 80)}`;
            }
          }
          return 'ended without result';
        } catch (e) {
          return `threw: ${e.message.slice(0, 80)}`;
        }
      })(),
      new Promise((r) => setTimeout(() => r(null), capS * 1000)),
    ]);
    const retry = requests[1];
    // And what the SDK's own abort() + close() do to the CLI.
    abortController.abort();
    q.close();
    const goneMs = await waitGone(pids[0], 15_000);
    report('agent-sdk.alone', {
      watchdogAfterSilenceMs: watchdogAt === 0 ? null : round(watchdogAt - messageStartAt),
      watchdogSaw:
        watchdogAt === 0
          ? `nothing within ${capS} s${full ? '' : ' (cap; --full waits 660 s)'}`
          : watchdogSaw,
      thenRequested:
        retry === undefined
          ? null
          : `${retry.stream ? 'streaming' : 'non-streaming'} retry after ${round(retry.at - messageStartAt)} ms`,
      outcome: outcome ?? `no result after ${capS} s`,
      resultAfterSilenceMs: resultAt === 0 ? null : round(resultAt - messageStartAt),
      totalMs: round(now() - t0),
      cliGoneAfterAbortCloseMs:
        resultAt !== 0
          ? 'n/a: the CLI ended the turn by itself'
          : goneMs === null
            ? 'still alive after 15 s'
            : round(goneMs),
    });
  }

  // 4. @anthropic-ai/sdk: streamMessage with idleMs 2000 vs messages.stream() alone.
  {
    const client = new Anthropic(
      anthropicClientOptions({ baseURL: chaos.url, apiKey: 'bench', logLevel: 'off' }),
    );
    const body = {
      model: 'claude-stall',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'hi' }],
    };
    let last = 0;
    const error = await streamMessage(client, body, {
      idleMs: IDLE_MS,
      onEvent: () => (last = now()),
    }).catch((e) => e);
    report('anthropic-sdk.recourse', {
      error: `${error.name}(${error.phase})`,
      detectedAfterSilenceMs: round(now() - last),
    });

    const alone = client.messages.stream(body);
    alone.done().catch(() => {});
    let lastAlone = now();
    const outcome = await Promise.race([
      (async () => {
        try {
          for await (const _ of alone) lastAlone = now();
          return 'ended';
        } catch (e) {
          return `threw ${e.name}`;
        }
      })(),
      new Promise((r) => setTimeout(() => r(null), Math.min(capS, 20) * 1000)),
    ]);
    alone.abort();
    report('anthropic-sdk.alone', {
      outcome:
        outcome ??
        `nothing after ${Math.min(capS, 20)} s of silence: no idle timeout once headers arrive (the 10 min timeout covers headers only)`,
      detectedAfterSilenceMs: outcome === null ? null : round(now() - lastAlone),
    });
  }
} finally {
  await chaos.close();
  rmSync(home, { recursive: true, force: true });
}

const r = results;
console.log('\nsummary (idleMs 2000, stall after message_start)');
console.log(
  `  CLI start-up (query → system/init): median ${r['agent-sdk.startup'].initMs.median} ms (min ${r['agent-sdk.startup'].initMs.min}, max ${r['agent-sdk.startup'].initMs.max})`,
);
console.log(
  `  Agent SDK + recourse runQuery: StallError ${r['agent-sdk.recourse'].detectedAfterSilenceMs} ms after the last message; CLI gone ${r['agent-sdk.recourse'].cliGoneAfterMs} ms later`,
);
const alone = r['agent-sdk.alone'];
console.log(
  `  Agent SDK alone: ${alone.watchdogAfterSilenceMs === null ? alone.watchdogSaw : `the CLI's watchdog fired ${alone.watchdogAfterSilenceMs} ms after the last message (${alone.watchdogSaw}${alone.thenRequested ? `, then a ${alone.thenRequested}` : ''}); ${alone.resultAfterSilenceMs === null ? alone.outcome : `${alone.outcome}… ${alone.resultAfterSilenceMs} ms after the last message`}`}; after abort()+close() the CLI is gone in ${alone.cliGoneAfterAbortCloseMs} ms`,
);
console.log(
  `  Anthropic SDK + recourse streamMessage: StallError ${r['anthropic-sdk.recourse'].detectedAfterSilenceMs} ms after the last event`,
);
console.log(`  Anthropic SDK alone: ${r['anthropic-sdk.alone'].outcome}`);
