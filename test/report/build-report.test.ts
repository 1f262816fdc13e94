import { describe, expect, it } from 'vitest';
import { buildReport } from '../../src/report/build-report.js';
import { buildCallRow } from '../../src/report/call-rows.js';
import { callExplain } from '../../src/report/call-explain.js';
import { groupCalls } from '../../src/report/group-calls.js';
import { parseEventLog } from '../../src/report/read-event-log.js';
import { breakerBands, degradationSteps } from '../../src/report/run-lanes.js';
import { BASE, err500, ladderLog, logLine } from './log-lines.js';

const rowsOf = (text: string) => {
  const log = parseEventLog(text);
  return { log, rows: groupCalls(log.events).map((g) => buildCallRow(log.events, g)) };
};
const itemsOf = (row: ReturnType<typeof buildCallRow>) =>
  row.items.map((i): [string, number, number, string | undefined] => [
    i.kind,
    i.start - BASE,
    i.end - BASE,
    i.dependency,
  ]);

describe('report: one row per logical call', () => {
  it('draws a degraded ladder: attempts cut at each retry, the backoff, the hop, the path that served it', () => {
    const { rows } = rowsOf(ladderLog().join('\n'));
    expect(rows.map((r) => [r.id, r.status, r.servedBy, r.name, r.requests])).toEqual([
      ['c1', 'degraded', 'quick-search', 'research', 3],
      ['c2', 'failed', undefined, 'research', 2],
      ['c3', 'success', 'deep-research', 'research', 1],
    ]);
    const c1 = rows[0]!;
    expect(itemsOf(c1)).toEqual([
      ['path', 1000, 1300, 'deep-research'],
      ['path', 1302, 1500, 'quick-search'],
      ['attempt-ok', 1302, 1500, 'quick-search'],
      ['attempt-failed', 1000, 1100, 'deep-research'],
      ['attempt-failed', 1150, 1300, 'deep-research'],
      ['backoff', 1100, 1150, 'deep-research'],
      ['hop', 1301, 1301, 'deep-research'],
      ['state', 1200, 1200, 'deep-research'],
      ['served', 1500, 1500, undefined],
    ]);
    expect([c1.start - BASE, c1.end - BASE, c1.retries, c1.stalls]).toEqual([1000, 1501, 1, 0]);
  });

  it('counts a path refused by an open breaker as no request, and marks the refusal', () => {
    const { rows } = rowsOf(ladderLog().join('\n'));
    const c2 = rows[1]!;
    expect(itemsOf(c2).filter(([k]) => k !== 'path')).toEqual([
      ['attempt-failed', 2001, 2100, 'quick-search'],
      ['attempt-failed', 2120, 2200, 'quick-search'],
      ['backoff', 2100, 2120, 'quick-search'],
      ['reject', 2000, 2000, 'deep-research'],
      ['hop', 2001, 2001, 'deep-research'],
    ]);
    expect(c2.paths).toEqual([
      { dependency: 'deep-research', outcome: 'failure', durationMs: 0.2, requests: 0 },
      { dependency: 'quick-search', outcome: 'failure', durationMs: 199, requests: 2 },
    ]);
  });

  it('rebuilds the explain tree of a failed call from its events when the log has none', () => {
    const { log, rows } = rowsOf(ladderLog().join('\n'));
    const text = callExplain(log.events, rows[1]!);
    expect(text.split('\n').slice(0, 6)).toEqual([
      'AllPathsFailedError: all 2 path(s) failed',
      '├─ path "deep-research": CircuitOpenError: circuit "deep-research" is open',
      '└─ path "quick-search": RetriesExhaustedError: gave up after 2 attempt(s)  [status 500]',
      '   ├─ attempt 1: InternalServerError: 500 boom  [transient: server_error, status 500]',
      '   └─ attempt 2: InternalServerError: 500 boom  [transient: server_error, status 500]',
      '',
    ]);
    expect(text).toContain('rebuilt from the log');
  });

  it("prints the log's own explain tree when the failed call carries one", () => {
    const explain = {
      type: 'AllPathsFailedError',
      message: 'all 1 path(s) failed',
      children: [
        {
          label: 'path "a"',
          type: 'TimeoutError',
          message: 'timed out after 50 ms',
          details: { timeoutMs: 50 },
          children: [],
        },
      ],
    };
    const { log, rows } = rowsOf(
      [
        logLine({
          at: 0,
          event: 'call',
          dependency: 'a',
          call_id: 'x',
          outcome: 'failure',
          duration_ms: 50,
          error: { type: 'TimeoutError', message: 'timed out' },
        }),
        logLine({
          at: 1,
          event: 'call',
          dependency: 'outer',
          call_id: 'x',
          outcome: 'failure',
          duration_ms: 51,
          error: { type: 'AllPathsFailedError', message: 'all' },
          explain,
        }),
      ].join('\n'),
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.status).toBe('failed');
    expect(callExplain(log.events, rows[0]!)).toBe(
      'AllPathsFailedError: all 1 path(s) failed\n└─ path "a": TimeoutError: timed out after 50 ms  [timeoutMs 50]',
    );
  });

  it('uses attempt events as the attempts when the log has them (instrument per attempt)', () => {
    const { rows } = rowsOf(
      [
        logLine({
          at: 100,
          event: 'attempt',
          dependency: 's',
          call_id: 'k',
          outcome: 'failure',
          duration_ms: 100,
          attempt: 1,
          error: err500,
        }),
        logLine({
          at: 100,
          event: 'retry',
          dependency: 's',
          call_id: 'k',
          delay_ms: 30,
          error: { ...err500, attempt: 1 },
        }),
        logLine({
          at: 180,
          event: 'attempt',
          dependency: 's',
          call_id: 'k',
          outcome: 'success',
          duration_ms: 50,
          attempt: 2,
        }),
        logLine({
          at: 181,
          event: 'call',
          dependency: 's',
          call_id: 'k',
          outcome: 'success',
          duration_ms: 181,
        }),
      ].join('\n'),
    );
    expect(itemsOf(rows[0]!).filter(([k]) => k !== 'path')).toEqual([
      ['attempt-ok', 130, 180, 's'],
      ['attempt-failed', 0, 100, 's'],
      ['backoff', 100, 130, 's'],
    ]);
    expect([rows[0]!.status, rows[0]!.servedBy, rows[0]!.requests]).toEqual(['success', 's', 2]);
  });

  it('without call ids groups by time: one row per call event, with the events of its dependency inside it', () => {
    const lines = ladderLog().map((l) => l.replace(/,"call_id":"c\d"/, ''));
    const { rows } = rowsOf(lines.join('\n'));
    // every call event is its own row now (paths and envelopes alike); the retries sit in their path's row
    expect(rows).toHaveLength(8);
    const deep = rows.find((r) => r.id === 'line 5')!;
    expect(itemsOf(deep).filter(([k]) => k.startsWith('attempt'))).toEqual([
      ['attempt-failed', 1000, 1100, 'deep-research'],
      ['attempt-failed', 1150, 1300, 'deep-research'],
    ]);
    const report = buildReport(parseEventLog(lines.join('\n')), 't');
    expect(report.grouped).toBe('by-time');
  });
});

describe('report: the run lanes and the summary', () => {
  it('bands each breaker state from its change to the next one', () => {
    const log = parseEventLog(ladderLog().join('\n'));
    const end = log.events.at(-1)!.at;
    expect(
      breakerBands(log.events, BASE + 1100, end).map((b) => [
        b.dependency,
        b.state,
        b.from - BASE,
        b.to - BASE,
      ]),
    ).toEqual([
      ['deep-research', 'closed', 1100, 1200],
      ['deep-research', 'open', 1200, 3000],
      ['deep-research', 'half-open', 3000, 3100],
      ['deep-research', 'closed', 3100, 4000],
    ]);
  });

  it('steps the degradation level, starting from the first change\'s "from"', () => {
    const log = parseEventLog(ladderLog().join('\n'));
    expect(degradationSteps(log.events, BASE).map((s) => [s.at - BASE, s.level, s.name])).toEqual([
      [0, 0, 'normal'],
      [1250, 1, 'degraded'],
      [4000, 0, 'normal'],
    ]);
  });

  it('sums calls, outcomes, retries, requests and per-dependency latency (refusals left out)', () => {
    const report = buildReport(parseEventLog(ladderLog().join('\n')), 'ladder');
    expect(report.summary.calls).toEqual({
      calls: 3,
      success: 1,
      degraded: 1,
      failed: 1,
      cancelled: 0,
      unknown: 0,
      retries: 2,
      stalls: 0,
      requests: 6,
    });
    const deep = report.summary.dependencies.find((d) => d.dependency === 'deep-research')!;
    expect(deep).toMatchObject({
      calls: 3,
      failures: 2,
      retries: 1,
      rejects: 1,
      opened: 1,
      requests: 3,
      okMs: [100],
      failedMs: [300],
    });
    const quick = report.summary.dependencies.find((d) => d.dependency === 'quick-search')!;
    expect(quick).toMatchObject({ calls: 2, failures: 1, requests: 3, p50: 198, p99: 199 });
  });

  it('puts every call, event, band and level into the page data', () => {
    const { data } = buildReport(parseEventLog(ladderLog().join('\n')), 'ladder');
    // the run starts when the first call started (c1 at 1000), not at its first line (1100)
    expect(data.t0).toBe(BASE + 1000);
    expect(data.span).toBe(3000);
    expect(data.calls.id.map((i) => data.strings[i])).toEqual(['c1', 'c2', 'c3']);
    expect(data.calls.itemStart).toEqual([0, 9, 16]);
    // c3: its path, the attempt, the breaker it closed (the probe), the answer
    expect(data.calls.items.length / 5).toBe(9 + 7 + 4);
    expect(data.events.t).toHaveLength(22);
    expect(data.bands.map((b) => data.states[b.state])).toEqual([
      'closed',
      'open',
      'half-open',
      'closed',
    ]);
    expect(data.maxLevel).toBe(1);
    expect(data.calls.explain.map((e) => e >= 0)).toEqual([false, true, false]);
  });
});
