// The client-side cost of mcpClient.callTool over a bare SDK client.callTool, with no server: the
// SDK's Client over a transport that answers every request in the next microtask, so the two arms
// differ only by what runs in this process, on a hot JIT (bench case 16 measures the real thing,
// a stdio server, where the same work costs about three times more).
//
//   npm run build && node bench/mcp-in-process.mjs [calls] [rounds]      # ~10 s; one JSON line
//
// Arms: bare, mcpClient with its defaults, mcpClient with idleMs: Infinity (no progress token);
// interleaved round by round; the median per-round difference to bare, µs per call.
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';

// RECOURSE_DIST names another build to measure (an earlier commit's dist/index.js).
const dist = new URL(process.env.RECOURSE_DIST ?? '../dist/index.js', import.meta.url);
const { mcpClient } = await import(new URL('mcp/index.js', dist).href);

const tools = [
  { name: 'read', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
];
/** A transport whose server answers at once: initialize, tools/list and tools/call. */
class InstantTransport {
  async start() {}
  async close() {
    this.onclose?.();
  }
  async send(message) {
    if (message.id === undefined) return;
    const result =
      message.method === 'initialize'
        ? {
            protocolVersion: message.params.protocolVersion,
            capabilities: { tools: {} },
            serverInfo: { name: 'instant', version: '1.0.0' },
          }
        : message.method === 'tools/list'
          ? { tools }
          : { content: [{ type: 'text', text: 'ok' }] };
    queueMicrotask(() => this.onmessage?.({ jsonrpc: '2.0', id: message.id, result }));
  }
}

const client = new Client({ name: 'bench', version: '1.0.0' });
await client.connect(new InstantTransport());
const defaults = mcpClient({ name: 'defaults', connect: async () => client });
const noIdle = mcpClient({ name: 'no-idle', connect: async () => client, idleMs: Infinity });
const arms = {
  bare: () => client.callTool({ name: 'read' }),
  mcpClient: () => defaults.callTool({ name: 'read' }),
  mcpClientNoIdle: () => noIdle.callTool({ name: 'read' }),
};
const calls = Number(process.argv[2] ?? 20_000);
const rounds = Number(process.argv[3] ?? 21);
const names = Object.keys(arms);
const perCall = Object.fromEntries(names.map((n) => [n, []]));
async function run(arm) {
  const call = arms[arm];
  const started = performance.now();
  for (let i = 0; i < calls; i++) await call();
  perCall[arm].push(((performance.now() - started) * 1000) / calls);
}
for (let i = 0; i < 3; i++) for (const arm of names) await run(arm);
for (const n of names) perCall[n].length = 0;
for (let r = 0; r < rounds; r++)
  for (const arm of r % 2 ? [...names].reverse() : names) await run(arm);
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const out = { node: process.version, calls, rounds, bareUs: median(perCall.bare) };
for (const n of names.slice(1))
  out[`${n}OverBareUs`] = median(perCall[n].map((v, i) => v - perCall.bare[i]));
console.log(JSON.stringify(out));
