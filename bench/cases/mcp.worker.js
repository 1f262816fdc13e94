// MCP case worker: the cost of mcpClient.callTool over a bare SDK client.callTool, on one local
// stdio server (`recourse chaos mcp --stdio`, the SDK's McpServer) and one connected Client.
//   mcp.worker.js <rounds> <callsPerRound>
// Each round makes callsPerRound sequential calls of the read-only `read` tool through each arm,
// the arms alternating (and which goes first alternating), so both see the same machine.
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
await client.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'chaos', 'mcp', '--stdio', '--quiet'],
    stderr: 'ignore',
  }),
);
const mcp = mcpClient({ name: 'bench', connect: async () => client });

const arms = {
  bare: () => client.callTool({ name: 'read' }),
  mcpClient: () => mcp.callTool({ name: 'read' }),
};
const perCall = { bare: [], mcpClient: [] };
// This process's CPU per call: what the client side costs, whatever the scheduler does to the wall clock.
const cpuPerCall = { bare: [], mcpClient: [] };
async function run(arm) {
  const call = arms[arm];
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < calls; i++) await call();
  perCall[arm].push(((performance.now() - started) * 1000) / calls);
  const used = process.cpuUsage(cpu);
  cpuPerCall[arm].push((used.user + used.system) / calls);
}
// Warm-up: JIT, the annotations read once by mcpClient.
for (let i = 0; i < 3; i++) {
  await run('bare');
  await run('mcpClient');
}
for (const m of [perCall, cpuPerCall]) {
  m.bare.length = 0;
  m.mcpClient.length = 0;
}
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? ['bare', 'mcpClient'] : ['mcpClient', 'bare'];
  for (const arm of order) await run(arm);
}
await mcp.close();
report({ rounds, calls, perCallUs: perCall, cpuPerCallUs: cpuPerCall });
