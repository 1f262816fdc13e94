import { describe, expect, it } from 'vitest';
import { fallback, jsonLogger, pipeline, retry, subscribe, timeout } from '../../src/index.js';
import { toLogLine } from '../../src/telemetry/json-logger.js';
import { instrument } from '../../src/telemetry/instrument.js';
import { parseEventLog } from '../../src/report/read-event-log.js';
import { degradationSteps } from '../../src/report/run-lanes.js';

// What the JSON log must carry for `recourse report`.
describe('the event log, as the report reads it', () => {
  it("a degradation's level index does not overwrite the line's severity", () => {
    const line = toLogLine({
      type: 'degradation',
      policy: 'degradation',
      name: 'agent',
      at: 1_000,
      from: 'normal',
      to: 'hard',
      level: 2,
      direction: 'escalate',
      errorRate: 0.7,
      calls: 9,
    });
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
        {
          name: 'a',
          run: () => Promise.reject(Object.assign(new Error('529 overloaded'), { status: 529 })),
          policy: pipeline(
            instrument({ name: 'a' }),
            retry({ name: 'a', maxAttempts: 2, backoff: { delay: () => 0 } }),
          ),
        },
        { name: 'b', run: () => Promise.reject(new TypeError('b is broken')) },
      ]);
      await expect(instrument({ name: 'outer' }).execute(() => ladder.execute())).rejects.toThrow();
    } finally {
      stop();
    }
    const calls = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.event === 'call');
    const outer = calls.find((l) => l.dependency === 'outer')!;
    const tree = outer.explain as {
      type: string;
      children: Array<{ label: string; type: string; children: Array<{ label: string }> }>;
    };
    expect(tree.type).toBe('AllPathsFailedError');
    expect(tree.children.map((c) => [c.label, c.type])).toEqual([
      ['path "a"', 'RetriesExhaustedError'],
      ['path "b"', 'TypeError'],
    ]);
    expect(tree.children[0]!.children.map((c) => c.label)).toEqual(['attempt 1', 'attempt 2']);
    // successes carry none
    expect(
      lines
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.outcome === 'success' && 'explain' in l),
    ).toEqual([]);
  });

  it('every event of one logical call carries one call id; concurrent calls carry different ones', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const stop = subscribe(
      jsonLogger({ write: (l: string) => lines.push(JSON.parse(l) as Record<string, unknown>) }),
    );
    const fail = (status: number) => () =>
      Promise.reject(Object.assign(new Error(`${status}`), { status }));
    const path = (name: string) =>
      pipeline(instrument({ name }), retry({ name, maxAttempts: 2, backoff: { delay: () => 1 } }));
    const research = instrument({ name: 'research' });
    const ladder = () =>
      fallback([
        { name: 'deep', run: fail(529), policy: path('deep') },
        { name: 'quick', run: async () => 'ok', policy: path('quick') },
      ]);
    // unnamed policies too: the attempts of one top-level retry are one call
    const bare = pipeline(retry({ maxAttempts: 3, backoff: { delay: () => 1 } }), timeout(1_000));
    try {
      await Promise.all([
        research.execute(() => ladder().execute()),
        research.execute(() => ladder().execute()),
        bare.execute(fail(503)).catch(() => {}),
      ]);
    } finally {
      stop();
    }
    const ids = [...new Set(lines.map((l) => l.call_id))];
    expect(ids).toHaveLength(3);
    expect(
      ids.every((id) => typeof id === 'string' && new RegExp(`^${process.pid}\\.\\d+$`).test(id)),
    ).toBe(true);
    const byId = ids.map((id) =>
      lines
        .filter((l) => l.call_id === id)
        .map((l) => `${l.event}:${l.dependency ?? ''}`)
        .sort(),
    );
    const ladderEvents = [
      'call:deep',
      'call:quick',
      'call:research',
      'fallback:deep',
      'giveup:deep',
      'retry:deep',
      'served:research',
    ];
    expect(byId).toContainEqual(ladderEvents);
    expect(byId.filter((events) => events.join() === ladderEvents.join())).toHaveLength(2);
    expect(byId).toContainEqual(['giveup:', 'retry:', 'retry:']);
  });

  it('events outside any call carry no call id, and neither do calls made while no sink listened', async () => {
    const p = pipeline(retry({ maxAttempts: 2, backoff: { delay: () => 1 } }));
    const lines: Array<Record<string, unknown>> = [];
    const stop = subscribe(
      jsonLogger({ write: (l: string) => lines.push(JSON.parse(l) as Record<string, unknown>) }),
    );
    stop();
    await p.execute(() => Promise.reject(new Error('x'))).catch(() => {});
    expect(lines).toEqual([]);
    const line = toLogLine({
      type: 'degradation',
      policy: 'degradation',
      at: 0,
      from: 'a',
      to: 'b',
      level: 1,
      direction: 'escalate',
      errorRate: 1,
      calls: 1,
    });
    expect(line.call_id).toBeUndefined();
  });
});
