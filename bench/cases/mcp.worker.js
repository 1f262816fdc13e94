// MCP case worker: the cost of mcpClient.callTool over a bare SDK client.callTool, on one local
// stdio server (`recourse chaos mcp --stdio`, the SDK's McpServer) and one connected Client.
//   mcp.worker.js <rounds> <callsPerRound>
// Each round makes callsPerRound sequential calls of the read-only `read` tool through each arm,
// the arms in a new order each round (reversed every other round), so all see the same machine.
// Arms: the bare SDK call; the bare SDK call asking for progress (`onprogress`: a progress token,
// what any idle limit that progress resets needs); the bare SDK call with the limits mcpClient's
// defaults give it, written by hand (a progress token, the idle limit reset by progress, and an
// AbortController, the one way the SDK offers to cancel a request early: the least any wrapper
// with an idle limit and a total cap can do); mcpClient with its defaults (idleMs 30000 <
// timeoutMs 120000: a progress token and an AbortController per call); mcpClient with
// idleMs: Infinity (neither).
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { loadEntry } from '../lib/recourse.js';
import { report } from '../lib/spawn.js';

const [roundsArg, callsArg] = process.argv.slice(2);
const rounds = Number(roundsArg);
const calls = Number(callsArg);
const bin = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

const { mcpClient } = await loadEntry('mcp/index.js');
const client = new Client({ name: 'bench', version: '1.0.0' });
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [bin, 'chaos', 'mcp', '--stdio', '--quiet'],
  stderr: 'ignore',
});
await client.connect(transport);
const mcp = mcpClient({ name: 'bench', connect: async () => client });
const noIdle = mcpClient({ name: 'bench-no-idle', connect: async () => client, idleMs: Infinity });

// The server process's CPU time, ns (Linux: /proc/<pid>/schedstat); undefined elsewhere.
const serverNs = () => {
  try {
    return Number(readFileSync(`/proc/${transport.pid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return undefined;
  }
};
const noop = () => {};
const arms = {
  bare: () => client.callTool({ name: 'read' }),
  bareProgress: () => client.callTool({ name: 'read' }, undefined, { onprogress: noop }),
  bareLimits: () =>
    client.callTool({ name: 'read' }, undefined, {
      signal: new AbortController().signal,
      timeout: 30_000,
      resetTimeoutOnProgress: true,
      onprogress: noop,
    }),
  mcpClient: () => mcp.callTool({ name: 'read' }),
  mcpClientNoIdle: () => noIdle.callTool({ name: 'read' }),
};
const names = Object.keys(arms);
const fresh = () => Object.fromEntries(names.map((n) => [n, []]));
let perCall = fresh();
// This process's CPU per call: what the client side costs, whatever the scheduler does to the wall clock.
let cpuPerCall = fresh();
let serverCpuPerCall = fresh();
async function run(arm) {
  const call = arms[arm];
  const server = serverNs();
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < calls; i++) await call();
  perCall[arm].push(((performance.now() - started) * 1000) / calls);
  const used = process.cpuUsage(cpu);
  cpuPerCall[arm].push((used.user + used.system) / calls);
  const after = serverNs();
  if (server !== undefined && after !== undefined)
    serverCpuPerCall[arm].push((after - server) / 1000 / calls);
}
// Warm-up: JIT, the annotations read once by mcpClient.
for (let i = 0; i < 3; i++) for (const arm of names) await run(arm);
perCall = fresh();
cpuPerCall = fresh();
serverCpuPerCall = fresh();
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? names : [...names].reverse();
  for (const arm of order) await run(arm);
}
await mcp.close();
await noIdle.close();
report({
  rounds,
  calls,
  perCallUs: perCall,
  cpuPerCallUs: cpuPerCall,
  serverCpuPerCallUs: serverCpuPerCall,
});
