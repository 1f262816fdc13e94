// What a demo run leaves for `recourse report`: each topic's row carries its MCP tool calls
// (tools/read, tools/progress) beside its subagent paths, and the topics that waited for the
// bulkhead say so in the log.
import { describe, expect, it } from 'vitest';
import { runDemo, TOPICS } from '../../src/cli/demo/run-demo.js';
import { simulatedBackend } from '../../src/cli/demo/simulated-backend.js';
import { subscribe } from '../../src/events/subscribe.js';
import { seededRandom } from '../../src/random/seeded-random.js';
import { buildCallRow } from '../../src/report/call-rows.js';
import { groupCalls } from '../../src/report/group-calls.js';
import { parseEventLog } from '../../src/report/read-event-log.js';
import { jsonLogger, type LogLine } from '../../src/telemetry/json-logger.js';

describe('the demo run in its report', () => {
  it('has the tool calls in the topic rows and a bulkhead_queued line for each topic that waited', async () => {
    const lines: string[] = [];
    const stop = subscribe(jsonLogger({ write: (l: string) => lines.push(l) }));
    let summary: Awaited<ReturnType<typeof runDemo>>;
    try {
      summary = await runDemo(
        { stdout: { write: () => true } },
        simulatedBackend(seededRandom(7)),
        TOPICS.slice(0, 4),
      );
    } finally {
      stop();
    }
    const parsed = lines.map((l) => JSON.parse(l) as LogLine & Record<string, unknown>);
    // The simulated backend runs one topic at a time: the other three queued behind it.
    const queued = parsed.filter((l) => l.event === 'bulkhead_queued');
    expect(queued).toHaveLength(3);
    for (const q of queued)
      expect(q).toMatchObject({ dependency: 'subagents', max_concurrent: 1, active: 1 });
    expect(queued[0]?.msg).toMatch(
      /^bulkhead subagents: 1 of 1 slots taken, \d+ waiting; the call waits in the queue$/,
    );
    expect(summary.bulkhead).toMatchObject({ maxConcurrent: 1, peakActive: 1, peakQueued: 3 });

    const log = parseEventLog(lines.join(''));
    const rows = groupCalls(log.events).map((g) => buildCallRow(log.events, g));
    const topicRows = rows.filter((r) => r.name === 'research');
    expect(topicRows).toHaveLength(4);
    for (const row of topicRows) {
      const deps = row.paths.map((p) => p.dependency);
      expect(deps).toContain('tools/read');
      expect(deps).toContain('tools/progress');
    }
    // The fault plan fails the first read call: its row counts the retry.
    expect(topicRows.reduce((n, r) => n + r.retries, 0)).toBeGreaterThan(0);
  });
});
