import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { startChaosServer } from '/work/wt/streams/dist/chaos/index.js';
import { agentEnv } from '/work/wt/streams/dist/claude-agent-sdk/index.js';

const [scenarioJson, prompt = 'hi', extra = '{}'] = process.argv.slice(2);
const chaos = await startChaosServer({ port: 0, ...JSON.parse(scenarioJson) });
const home = mkdtempSync(join(tmpdir(), 'gaps-'));
const t0 = performance.now();
const rows = [];
try {
  const q = query({ prompt, options: { env: agentEnv({ baseUrl: chaos.url, home }), cwd: home, persistSession: false, settingSources: [], includePartialMessages: true, ...JSON.parse(extra) } });
  for await (const m of q) {
    const t = performance.now() - t0;
    const kind = m.type === 'stream_event' ? `stream_event/${m.event.type}` : m.subtype ? `${m.type}/${m.subtype}` : m.type;
    rows.push({ t: Math.round(t), kind, info: m.type === 'system' && m.subtype?.startsWith('task') ? JSON.stringify(m).slice(0, 300) : m.type === 'user' ? JSON.stringify(m.message?.content).slice(0, 200) : m.type === 'tool_progress' ? `${m.tool_name} ${m.elapsed_time_seconds}s hb=${m.heartbeat}` : m.type === 'result' ? `${m.subtype} ${m.is_error} ${m.result?.slice?.(0, 60)}` : '' });
    if (m.type === 'result') break;
  }
} finally {
  await chaos.close();
  rmSync(home, { recursive: true, force: true });
}
let prev = 0;
for (const r of rows) { console.log(String(r.t).padStart(7), String(r.t - prev).padStart(6), r.kind, r.info); prev = r.t; }
