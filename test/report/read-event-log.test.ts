import { describe, expect, it } from 'vitest';
import { buildReport } from '../../src/report/build-report.js';
import { parseEventLog } from '../../src/report/read-event-log.js';
import { renderReportHtml, skippedNotes } from '../../src/report/render-html.js';
import { BASE, ladderLog, logLine } from './log-lines.js';

const KEY = 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';

describe('reading an event log', () => {
  it('skips what is not an event and says which lines, sorts events that are out of order', () => {
    const text = [
      logLine({ at: 10, event: 'retry', dependency: 'a', delay_ms: 5 }),
      '{"timestamp": "2026-03-01T10:00:00.020Z", "event": "retry"', // cut off
      '',
      '{"hello": "world"}',
      logLine({ at: 30, event: 'teleport', dependency: 'a' }),
      logLine({ at: 5, event: 'giveup', dependency: 'a' }), // earlier than the line before it
      JSON.stringify({ timestamp: 'yesterday', event: 'retry' }),
      logLine({ at: 40, event: '__proto__' }),
      logLine({ at: 50, event: 'teleport' }),
      'plain text',
    ].join('\r\n');
    const log = parseEventLog(text);
    expect(log.events.map((e) => [e.type, e.at - BASE, e.line])).toEqual([
      ['giveup', 5, 6],
      ['retry', 10, 1],
    ]);
    expect(log.lines).toBe(9);
    expect(log.outOfOrder).toBe(1);
    expect(log.skipped).toEqual({
      malformed: [2, 10],
      malformedCount: 2,
      notEvents: [4, 7],
      notEventsCount: 2,
      unknownTypes: [
        { type: 'teleport', count: 2, firstLine: 5 },
        { type: '__proto__', count: 1, firstLine: 8 },
      ],
    });
    expect(skippedNotes(log.skipped, log.outOfOrder)).toEqual([
      'skipped 2 line(s) that are not JSON (lines 2, 10)',
      'skipped 2 JSON line(s) without an event name or timestamp (lines 4, 7)',
      'skipped 2 event(s) of unknown type "teleport" (first on line 5)',
      'skipped 1 event(s) of unknown type "__proto__" (first on line 8)',
      'the log goes back in time at 1 line(s): events sorted by timestamp',
    ]);
  });

  it("reads every event type recourse emits, the governor's and the ledger's too: none is skipped as unknown", () => {
    const types = [
      'rate_limit_wait',
      'rate_limit_learned',
      'probe_late',
      'ledger_takeover',
      'ledger_unrecorded',
      'spend_rate_exceeded',
      'hedge',
    ];
    const log = parseEventLog(
      types.map((event, i) => logLine({ at: i, event, dependency: 'a' })).join('\n'),
    );
    expect(log.skipped.unknownTypes).toEqual([]);
    expect(log.events.map((e) => e.type)).toEqual(types);
  });

  it('redacts every string it keeps: error messages, explain trees, messages and other fields', () => {
    const log = parseEventLog(
      logLine({
        at: 0,
        event: 'call',
        dependency: 'a',
        call_id: 'k',
        outcome: 'failure',
        duration_ms: 3,
        msg: `call a failure: 401 invalid x-api-key ${KEY}`,
        error: {
          type: 'AuthenticationError',
          message: `401 {"error":"invalid key ${KEY}"}`,
          status: 401,
        },
        explain: {
          type: 'AuthenticationError',
          message: `Authorization: Bearer ${KEY}`,
          children: [],
        },
        request: { headers: { 'x-api-key': 'abc-not-shaped-like-a-key' }, note: `key ${KEY}` },
      }),
    );
    const text = JSON.stringify(log.events);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain('abc-not-shaped-like-a-key');
    expect(log.events[0]!.error!.message).toBe('401 {"error":"invalid key [REDACTED]"}');
    expect(log.events[0]!.explain!.message).toBe('Authorization: [REDACTED]');
  });

  it('reads a log of only garbage into an empty report that still renders', () => {
    const log = parseEventLog('nope\n{}\n');
    expect(log.events).toEqual([]);
    const html = renderReportHtml(buildReport(log, 'junk.jsonl'), {
      version: '9.9.9',
      source: 'junk.jsonl',
    });
    expect(html).toContain('The log has no events to draw.');
    expect(html).toContain('1 line(s) that are not JSON (line 1)');
    expect(html).not.toContain('no call ids');
  });
});

describe('the report page', () => {
  it('is self-contained: no URL it would fetch, a CSP that forbids fetching, data and script inline', () => {
    const html = renderReportHtml(
      buildReport(parseEventLog(ladderLog().join('\n')), 'ladder.jsonl'),
      { version: '9.9.9', source: 'ladder.jsonl' },
    );
    expect(html).not.toMatch(/<(link|img|iframe)\b/);
    expect(html).not.toMatch(/\b(src|href)=/);
    expect(html).toContain(
      `content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"`,
    );
    expect(html).toContain('<script type="application/json" id="report-data">');
    expect(html).toContain('function pageMain(doc, win, data)');
    expect(html).toContain('<table id="summary-calls">');
    expect(html.match(/<svg class="histogram"/g)).toHaveLength(3);
  });

  it('cannot be broken out of: a log text with markup stays text, in the data and in the tables', () => {
    const evil = '</script><script>alert(1)</script><!--';
    const html = renderReportHtml(
      buildReport(
        parseEventLog(
          logLine({
            at: 0,
            event: 'call',
            dependency: evil,
            call_id: evil,
            outcome: 'success',
            duration_ms: 1,
          }),
        ),
        evil,
      ),
      { version: '1', source: 'x' },
    );
    expect(html).not.toContain('<script>alert(1)');
    expect(html).not.toContain('<!--');
    expect(html.match(/<\/script>/g)).toHaveLength(2);
    expect(html).toContain('&lt;/script&gt;&lt;script&gt;alert(1)');
  });

  it('keeps an API key out of the page', () => {
    const line = logLine({
      at: 0,
      event: 'retry',
      dependency: 'a',
      call_id: 'k',
      delay_ms: 1,
      error: { type: 'Error', message: `bad key ${KEY}` },
    });
    const html = renderReportHtml(buildReport(parseEventLog(line), 't'), {
      version: '1',
      source: 'x',
    });
    expect(html).not.toContain(KEY);
    expect(html).toContain('bad key [REDACTED]');
  });
});
