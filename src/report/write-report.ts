import { writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { buildReport } from './build-report.js';
import { readEventLogFile } from './read-event-log-file.js';
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
  // Line by line: a log of any size is read without holding its text; only the page must fit in
  // one string.
  const log = await readEventLogFile(input);
  const report = buildReport(log, o.title ?? basename(input));
  let html: string;
  try {
    html = renderReportHtml(report, { version: o.version, source: basename(input) });
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new RangeError(
      `the report page of ${log.events.length} events is too large to write as one page (${error.message}); report a part of the log (split it by time)`,
    );
  }
  await writeFile(output, html);
  return {
    output,
    events: log.events.length,
    calls: report.data.calls.id.length,
    bytes: Buffer.byteLength(html),
    notes: skippedNotes(log.skipped, log.outOfOrder),
  };
}
