// What a run of MCP tool calls leaves in the JSON log and in `recourse report`: every line names
// the server and the tool (`server/tool`), the breaker names the server, and each tool call is a
// row of the report.
import { afterEach, describe, expect, it } from 'vitest';
import { constant } from '../../src/backoff/constant.js';
import { subscribe } from '../../src/events/subscribe.js';
import { type McpClient, mcpClient } from '../../src/mcp/index.js';
import { buildCallRow } from '../../src/report/call-rows.js';
import { groupCalls } from '../../src/report/group-calls.js';
import { parseEventLog } from '../../src/report/read-event-log.js';
import { jsonLogger, type LogLine } from '../../src/telemetry/json-logger.js';
import { type Harness, startHarness } from './helpers.js';

let harness: Harness | undefined;
let client: McpClient | undefined;
afterEach(async () => {
  await client?.close();
  await harness?.close();
});

describe('mcpClient telemetry', () => {
  it('log lines name server/tool; the report has a row per tool call with its retries and stalls', async () => {
    harness = await startHarness('http', { faults: { read: ['error'] } });
    client = mcpClient({
      name: 'files',
      connect: harness.connect,
      idleMs: 1_000,
      retry: { maxAttempts: 3, backoff: constant(10) },
      breaker: { failureThreshold: 1 },
    });
    const lines: string[] = [];
    const stop = subscribe(jsonLogger({ write: (l: string) => lines.push(l) }));
    try {
      await client.callTool({ name: 'read' });
      await expect(client.callTool({ name: 'hang' })).rejects.toThrow(/outcome unknown/);
    } finally {
      stop();
    }
    const parsed = lines.map((l) => JSON.parse(l) as LogLine);
    const seen = parsed.map((l) => [l.event, l.dependency]);
    expect(seen).toContainEqual(['retry', 'files/read']);
    expect(seen).toContainEqual(['call', 'files/read']);
    expect(seen).toContainEqual(['stall', 'files/hang']);
    expect(seen).toContainEqual(['call', 'files/hang']);
    // The stall opened the server's breaker (threshold 1): its state line names the server.
    expect(parsed.find((l) => l.event === 'state')).toMatchObject({
      dependency: 'files',
      to: 'open',
    });
    expect(
      parsed.find((l) => l.event === 'call' && l.dependency === 'files/hang')?.error,
    ).toMatchObject({
      type: 'StallError',
      reason: 'outcome_unknown',
      retryable: false,
    });

    const log = parseEventLog(lines.join(''));
    const rows = groupCalls(log.events).map((g) => buildCallRow(log.events, g));
    expect(rows.map((r) => [r.name, r.status, r.requests, r.retries, r.stalls])).toEqual([
      ['files/read', 'success', 2, 1, 0],
      ['files/hang', 'failed', 1, 0, 1],
    ]);
  });
});
