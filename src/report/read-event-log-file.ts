import { createReadStream } from 'node:fs';
import { type EventLog, EventLogParser } from './read-event-log.js';

/** A line longer than this is counted as not JSON and never held whole (no event is near it). */
export const MAX_LINE_CHARS = 16 * 1024 * 1024;

/**
 * @internal Reads the event log at `path` line by line (see {@link parseEventLog}), never holding
 * its whole text: a log past the longest string V8 can make (about 512 MB) is read like any other.
 * `chunkBytes` is the read size (tests use small ones to cut lines and characters apart).
 *
 * @example
 * const log = await readEventLogFile('run.jsonl')
 */
export async function readEventLogFile(
  path: string,
  options: { chunkBytes?: number; maxLineChars?: number } = {},
): Promise<EventLog> {
  const maxLine = options.maxLineChars ?? MAX_LINE_CHARS;
  const parser = new EventLogParser();
  // utf8 decoding in the stream keeps a character cut by a chunk boundary whole.
  const stream = createReadStream(path, {
    encoding: 'utf8',
    ...(options.chunkBytes === undefined ? {} : { highWaterMark: options.chunkBytes }),
  });
  let lineNo = 1;
  let pending = '';
  // A line over maxLine: its start is dropped, and the rest of it is skipped up to its end.
  let tooLong = false;
  for await (const chunk of stream as AsyncIterable<string>) {
    let start = 0;
    for (;;) {
      const end = chunk.indexOf('\n', start);
      if (end < 0) break;
      if (tooLong) {
        parser.tooLong(lineNo);
        tooLong = false;
      } else {
        parser.line(
          pending === '' ? chunk.slice(start, end) : pending + chunk.slice(start, end),
          lineNo,
        );
      }
      pending = '';
      lineNo++;
      start = end + 1;
    }
    if (tooLong) continue;
    pending += chunk.slice(start);
    if (pending.length > maxLine) {
      pending = '';
      tooLong = true;
    }
  }
  if (tooLong) parser.tooLong(lineNo);
  else parser.line(pending, lineNo);
  return parser.finish();
}
