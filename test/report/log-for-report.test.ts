import { describe, expect, it } from 'vitest';
import { fallback, jsonLogger, pipeline, retry, subscribe } from '../../src/index.js';
import { toLogLine } from '../../src/telemetry/json-logger.js';
import { instrument } from '../../src/telemetry/instrument.js';
import { parseEventLog } from '../../src/report/read-event-log.js';
import { degradationSteps } from '../../src/report/run-lanes.js';

// What the JSON log must carry for `recourse report`.
describe('the event log, as the report reads it', () => {
  it("a degradation's level index does not overwrite the line's severity", () => {
    const line = toLogLine({ type: 'degradation', policy: 'degradation', name: 'agent', at: 1_000, from: 'normal', to: 'hard', level: 2, direction: 'escalate', errorRate: 0.7, calls: 9 });
    expect(line.level).toBe('warn');
    expect(line.degradation_level).toBe(2);
    const log = parseEventLog(JSON.stringify(line));
    expect(degradationSteps(log.events, 0).map((s) => [s.level, s.name])).toEqual([
      [0, 'normal'],
      [2, 'hard'],
    ]);
  });

  it('a failed call carries its whole explain tree: paths, attempts, causes', async () => {
    const lines: string[] = [];
    const stop = subscribe(jsonLogger({ write: (l: string) => lines.push(l) }));
    try {
      const ladder = fallback([
        { name: 'a', run: () => Promise.reject(Object.assign(new Error('529 overloaded'), { status: 529 })), policy: pipeline(instrument({ name: 'a' }), retry({ name: 'a', maxAttempts: 2, backoff: { delay: () => 0 } })) },
        { name: 'b', run: () => Promise.reject(new TypeError('b is broken')) },
      ]);
      await expect(instrument({ name: 'outer' }).execute(() => ladder.execute())).rejects.toThrow();
    } finally {
      stop();
    }
    const calls = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.event === 'call');
    const outer = calls.find((l) => l.dependency === 'outer')!;
    const tree = outer.explain as { type: string; children: Array<{ label: string; type: string; children: Array<{ label: string }> }> };
    expect(tree.type).toBe('AllPathsFailedError');
    expect(tree.children.map((c) => [c.label, c.type])).toEqual([
      ['path "a"', 'RetriesExhaustedError'],
      ['path "b"', 'TypeError'],
    ]);
    expect(tree.children[0]!.children.map((c) => c.label)).toEqual(['attempt 1', 'attempt 2']);
    // successes carry none
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.outcome === 'success' && 'explain' in l)).toEqual([]);
  });
});
