// Case 16: what mcpClient adds to an MCP tool call on a local stdio server.
// Not yet in bench/run.js's CASES: registering it needs its section in bench/NOTES.template.md and
// the generated pages regenerated, which is done once for all new cases. Its section:
//   {{title:mcp}} — What `mcpClient.callTool` adds to a bare `client.callTool` of the official MCP
//   SDK, on one local stdio server (`recourse chaos mcp --stdio`) and one connected `Client` shared
//   by both arms, sequential calls of a read-only tool, the arms alternating. Goal: at most 5 %.
//   Per call mcpClient runs the tool's pipeline (instrument, the server's breaker, retry), one
//   timer for the idle and total limits, and one AbortController (the SDK needs it to send
//   notifications/cancelled on a stall), and asks for progress (a progressToken). {{tables:mcp}}
import { fmt } from '../lib/format.js';
import { runWorker } from '../lib/spawn.js';
import { median, quantile } from '../lib/stats.js';

export const id = 'mcp';
export const title =
  '16. MCP tool calls: mcpClient.callTool against a bare SDK client.callTool (local stdio server)';

export async function run(ctx) {
  const p = ctx.quick ? { rounds: 15, calls: 200 } : { rounds: 41, calls: 500 };
  const r = await runWorker({
    node: ctx.main.path,
    worker: 'mcp.worker.js',
    args: [p.rounds, p.calls],
    timeoutMs: 600_000,
  });
  const arm = (values) => ({
    median: median(values),
    p10: quantile(values, 0.1),
    p90: quantile(values, 0.9),
  });
  const bare = arm(r.perCallUs.bare);
  const wrapped = arm(r.perCallUs.mcpClient);
  // Per round, the two arms ran back to back: their ratio cancels the machine's drift.
  const ratios = r.perCallUs.mcpClient.map((v, i) => v / r.perCallUs.bare[i] - 1);
  const overhead = median(ratios);
  const cpu = (arm) => median(r.cpuPerCallUs[arm]);
  const cpuOverhead = median(
    r.cpuPerCallUs.mcpClient.map((v, i) => v / r.cpuPerCallUs.bare[i] - 1),
  );
  const data = {
    bare,
    mcpClient: wrapped,
    overhead,
    overheadP90: quantile(ratios, 0.9),
    clientCpuUs: { bare: cpu('bare'), mcpClient: cpu('mcpClient') },
    cpuOverhead,
  };
  const columns = [
    { key: 'arm', label: 'arm', align: 'left' },
    { key: 'median', label: 'µs per call (median)' },
    { key: 'p10', label: 'p10' },
    { key: 'p90', label: 'p90' },
  ];
  const rows = [
    {
      arm: 'client.callTool (SDK, bare)',
      median: fmt(bare.median, 1),
      p10: fmt(bare.p10, 1),
      p90: fmt(bare.p90, 1),
    },
    {
      arm: 'mcpClient.callTool',
      median: fmt(wrapped.median, 1),
      p10: fmt(wrapped.p10, 1),
      p90: fmt(wrapped.p90, 1),
    },
  ];
  const notes = [
    `${p.rounds} rounds of ${p.calls} sequential calls of the read-only tool per arm, arms alternating; one stdio server process (recourse chaos mcp --stdio), one connected SDK Client shared by both arms.`,
    `Overhead of mcpClient (median of the per-round ratios): ${fmt(overhead * 100, 1)}% (goal ≤ 5%); p90 of the ratios ${fmt(data.overheadP90 * 100, 1)}%.`,
    `CPU of the client process per call: ${fmt(data.clientCpuUs.bare, 1)} µs bare, ${fmt(data.clientCpuUs.mcpClient, 1)} µs through mcpClient (${fmt(cpuOverhead * 100, 1)}% more; the server process is not counted).`,
  ];
  if (ctx.quick)
    notes.push(`--quick: ${p.rounds} rounds of ${p.calls} calls instead of 41 of 500.`);
  return { params: p, data, tables: [{ title, columns, rows, notes }] };
}
