// Case 16: what mcpClient adds to an MCP tool call on a local stdio server, on every runtime of
// the run (Node 24 with --node). The goal compares mcpClient with its defaults to a bare
// client.callTool; the other arms split that difference into what the protocol's progress token
// costs (any idle limit that progress resets needs one), what the SDK call with the same limits
// written by hand costs (the floor for any wrapper that has them), and what mcpClient itself adds.
import { fmt } from '../lib/format.js';
import { runWorker } from '../lib/spawn.js';
import { median, quantile } from '../lib/stats.js';

export const id = 'mcp';
export const title =
  '16. MCP tool calls: mcpClient.callTool against a bare SDK client.callTool (local stdio server)';
export const perRuntime = true;

const ARMS = [
  { name: 'bare', label: 'client.callTool (SDK, bare)' },
  { name: 'bareProgress', label: 'client.callTool with onprogress (SDK, a progress token)' },
  {
    name: 'bareLimits',
    label:
      'client.callTool with the same limits by hand (SDK: onprogress, resetTimeoutOnProgress, an AbortController)',
  },
  { name: 'mcpClient', label: 'mcpClient.callTool (defaults: idleMs 30000, timeoutMs 120000)' },
  {
    name: 'mcpClientNoIdle',
    label: 'mcpClient.callTool with idleMs: Infinity (no progress token)',
  },
];

/** Median of the per-round ratios to the bare arm: the arms of a round ran back to back. */
const overBare = (values, bare) => median(values.map((v, i) => v / bare[i] - 1));

export async function run(ctx) {
  // Short rounds, many of them: the arms of a round run within a few ms of each other, so a noisy
  // moment of a shared machine lands on all of them.
  const p = ctx.quick ? { rounds: 41, calls: 100 } : { rounds: 301, calls: 100 };
  const data = {};
  const rows = [];
  for (const rt of ctx.runtimes) {
    ctx.log(`${rt.version}: ${p.rounds} rounds of ${p.calls} calls per arm`);
    const r = await runWorker({
      node: rt.path,
      worker: 'mcp.worker.js',
      args: [p.rounds, p.calls],
      timeoutMs: 600_000,
    });
    const d = {};
    for (const { name } of ARMS) {
      const wall = r.perCallUs[name];
      const cpu = r.cpuPerCallUs[name];
      const server = r.serverCpuPerCallUs[name];
      d[name] = {
        median: median(wall),
        p10: quantile(wall, 0.1),
        p90: quantile(wall, 0.9),
        overhead: overBare(wall, r.perCallUs.bare),
        // Over the same limits written by hand: what mcpClient adds that the SDK call needs anyway.
        overLimits: overBare(wall, r.perCallUs.bareLimits),
        overheadP90: quantile(
          wall.map((v, i) => v / r.perCallUs.bare[i] - 1),
          0.9,
        ),
        clientCpuUs: median(cpu),
        cpuOverhead: overBare(cpu, r.cpuPerCallUs.bare),
        serverCpuUs: server.length === 0 ? undefined : median(server),
      };
    }
    data[rt.version] = d;
    for (const { name, label } of ARMS) {
      const a = d[name];
      rows.push({
        node: rt.version,
        arm: label,
        median: fmt(a.median, 1),
        range: `${fmt(a.p10, 1)}–${fmt(a.p90, 1)}`,
        over: name === 'bare' ? '—' : `${fmt(a.overhead * 100, 1)}%`,
        client: fmt(a.clientCpuUs, 1),
        server: fmt(a.serverCpuUs, 1),
      });
    }
  }
  const columns = [
    { key: 'node', label: 'node', align: 'left' },
    { key: 'arm', label: 'arm', align: 'left' },
    { key: 'median', label: 'µs per call (median)' },
    { key: 'range', label: 'p10–p90' },
    { key: 'over', label: 'over bare (median ratio)' },
    { key: 'client', label: 'client CPU µs' },
    { key: 'server', label: 'server CPU µs' },
  ];
  const notes = [
    `${p.rounds} rounds of ${p.calls} sequential calls of the read-only tool per arm, the arms back to back in each round (reversed every other round); one stdio server process (recourse chaos mcp --stdio) and one connected SDK Client shared by every arm, per runtime.`,
    '"over bare" is the median of the per-round ratios of wall time to the bare arm of the same round (goal for mcpClient with its defaults: ≤ 5%). The call waits for the server, so wall time is about the client CPU plus the server CPU: the CPU columns (medians per call; the server is read from /proc/<pid>/schedstat) say on which side a difference is.',
  ];
  for (const rt of ctx.runtimes) {
    const d = data[rt.version];
    notes.push(
      `${rt.version}: mcpClient ${fmt(d.mcpClient.overhead * 100, 1)}% over bare (p90 of the ratios ${fmt(d.mcpClient.overheadP90 * 100, 1)}%); the SDK's own progress token alone ${fmt(d.bareProgress.overhead * 100, 1)}%, the SDK call with the same limits by hand ${fmt(d.bareLimits.overhead * 100, 1)}% (mcpClient ${fmt(d.mcpClient.overLimits * 100, 1)}% over that); mcpClient without a progress token ${fmt(d.mcpClientNoIdle.overhead * 100, 1)}%. Client CPU: ${fmt(d.mcpClient.cpuOverhead * 100, 1)}% more through mcpClient, ${fmt(d.mcpClientNoIdle.cpuOverhead * 100, 1)}% with idleMs: Infinity.`,
    );
  }
  if (ctx.quick)
    notes.push(`--quick: ${p.rounds} rounds of ${p.calls} calls instead of 301 of 100.`);
  return { params: p, data, tables: [{ title, columns, rows, notes }] };
}
