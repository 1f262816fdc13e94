import { readFile, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { buildReport } from './build-report.js';
import { parseEventLog } from './read-event-log.js';
import { renderReportHtml, skippedNotes } from './render-html.js';

/** What {@link writeReport} did. */
export interface WrittenReport {
  output: string;
  events: number;
  calls: number;
  bytes: number;
  /** What was skipped or changed while reading (the page says the same). */
  notes: string[];
}

/**
 * Reads the JSON-lines event log at `input` and writes its report page to `output`.
 *
 * @example
 * const { calls } = await writeReport('run.jsonl', 'report.html', { version: '0.1.0' })
 */
export async function writeReport(
  input: string,
  output: string,
  o: { version: string; title?: string },
): Promise<WrittenReport> {
  const log = parseEventLog(await readFile(input, 'utf8'));
  const report = buildReport(log, o.title ?? basename(input));
  const html = renderReportHtml(report, { version: o.version, source: basename(input) });
  await writeFile(output, html);
  return {
    output,
    events: log.events.length,
    calls: report.data.calls.id.length,
    bytes: Buffer.byteLength(html),
    notes: skippedNotes(log.skipped, log.outOfOrder),
  };
}
