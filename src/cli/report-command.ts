import { resolve } from 'node:path';
import { errorText } from '../text/safe-text.js';
import { writeReport } from '../report/write-report.js';
import { command, usageError } from './command.js';
import { booleanFlag, textFlag } from './flags.js';
import { openInBrowser } from './open-in-browser.js';
import { packageVersion } from './version.js';

const NAME = 'report';

const flags = {
  output: textFlag(
    'FILE',
    "where to write the page (default: the log's name with .html, next to it)",
    'o',
  ),
  open: booleanFlag('open the page in a browser ($BROWSER, else open / xdg-open)'),
  title: textFlag('TEXT', "the page title (default: the log's file name)"),
};

/** The default page next to a log: `run.jsonl` → `run.html`. */
export function defaultReportPath(log: string): string {
  return /\.(jsonl|ndjson|json|log)$/i.test(log)
    ? log.replace(/\.(jsonl|ndjson|json|log)$/i, '.html')
    : `${log}.html`;
}

/**
 * `recourse report RUN.jsonl -o report.html [--open]`: turns a `jsonLogger` event log into one
 * self-contained HTML page. Exits 1 when the log cannot be read or the page cannot be written.
 *
 * @example
 * process.exitCode = await runCli(['report', 'run.jsonl', '-o', 'report.html'], io)
 */
export const reportCommand = command({
  name: NAME,
  summary: "turn a run's JSON event log into one self-contained HTML page",
  synopsis: 'report RUN.jsonl [-o FILE] [--open] [--title TEXT]',
  description: [
    'Reads a JSON-lines event log written by jsonLogger (subscribe(jsonLogger(stream))) and writes one',
    'HTML page with everything inline (it fetches nothing): a timeline with one row per logical call',
    '(attempts, backoffs, stalls, breaker refusals, fallback hops, who served it, degraded and failed',
    'calls marked; hover for an event, click a failed call for its explain tree), breaker state bands',
    'per dependency, the degradation level over time, latency histograms and a summary table.',
    'Lines that are not events, and events of unknown types, are skipped and listed on the page.',
  ].join('\n'),
  flags,
  positionals: { min: 1, max: 1 },
  examples: ['recourse report run.jsonl -o report.html', 'recourse report run.jsonl --open'],
  async run({ flags: f, positionals }, io) {
    const input = positionals[0]!;
    const output = f.output ?? defaultReportPath(input);
    if (resolve(output) === resolve(input))
      return usageError(io, NAME, `-o ${output} would overwrite the log itself`);
    let written: Awaited<ReturnType<typeof writeReport>>;
    try {
      written = await writeReport(input, output, {
        version: packageVersion(),
        ...(f.title === undefined ? {} : { title: f.title }),
      });
    } catch (error) {
      io.stderr.write(`recourse ${NAME}: ${errorText(error)}\n`);
      return 1;
    }
    for (const note of written.notes) io.stderr.write(`recourse ${NAME}: ${note}\n`);
    io.stdout.write(
      `report: ${resolve(written.output)} (${written.calls} calls, ${written.events} events)\n`,
    );
    if (f.open === true) {
      const problem = await openInBrowser(resolve(written.output), io.env);
      if (problem !== undefined)
        io.stderr.write(
          `recourse ${NAME}: could not open a browser (${problem}); the report is written\n`,
        );
    }
    return 0;
  },
});
