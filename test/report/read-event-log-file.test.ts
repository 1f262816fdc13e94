import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseEventLog } from '../../src/report/read-event-log.js';
import { readEventLogFile } from '../../src/report/read-event-log-file.js';
import { writeReport } from '../../src/report/write-report.js';
import { ladderLog, logLine } from './log-lines.js';

// `recourse report` reads its log line by line: a log past the longest string V8 can make (about
// 512 MB) is read like any other. Small chunks cut lines, CRLF pairs and UTF-8 characters apart.

const dir = mkdtempSync(join(tmpdir(), 'recourse-report-stream-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function logFile(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const mixed = [
  ...ladderLog(),
  logLine({ at: 3, event: 'retry', dependency: 'é☃𝄞-search', delay_ms: 5 }),
  '{"timestamp": "2026-03-01T10:00:00.020Z", "event": "retry"',
  '',
  '{"hello": "world"}',
  logLine({ at: 30, event: 'teleport', dependency: 'ünïcode' }),
  logLine({ at: 1, event: 'giveup', dependency: 'a' }),
  'plain text',
];

describe('reading an event log file line by line', () => {
  for (const [eol, name] of [
    ['\n', 'LF'],
    ['\r\n', 'CRLF'],
  ] as const) {
    for (const trailing of [true, false]) {
      it(`${name}${trailing ? ', final line break' : ', no final line break'}: in chunks of 1, 3, 7 and 64 KiB bytes it reads what the whole text reads`, async () => {
        const text = mixed.join(eol) + (trailing ? eol : '');
        const path = logFile(`mixed-${name}-${trailing}.jsonl`, text);
        const whole = parseEventLog(text);
        expect(whole.events.length).toBeGreaterThan(5);
        for (const chunkBytes of [1, 3, 7, 65_536]) {
          expect(await readEventLogFile(path, { chunkBytes })).toEqual(whole);
        }
      });
    }
  }

  it('counts a line too long to hold as not JSON, without holding it, and reads on', async () => {
    const long = `{"event":"retry","pad":"${'x'.repeat(5_000)}"}`;
    const text = [
      logLine({ at: 1, event: 'retry' }),
      long,
      logLine({ at: 2, event: 'giveup' }),
    ].join('\n');
    const path = logFile('long-line.jsonl', text);
    const log = await readEventLogFile(path, { chunkBytes: 100, maxLineChars: 1_000 });
    expect(log.events.map((e) => [e.type, e.line])).toEqual([
      ['retry', 1],
      ['giveup', 3],
    ]);
    expect(log.skipped.malformed).toEqual([2]);
    expect(log.lines).toBe(3);
  });

  it('writeReport reads the log through the file reader', async () => {
    const path = logFile('run.jsonl', `${ladderLog().join('\n')}\n`);
    const written = await writeReport(path, join(dir, 'run.html'), { version: 't' });
    expect(written.events).toBe(parseEventLog(ladderLog().join('\n')).events.length);
  });
});
