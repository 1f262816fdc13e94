// Case 8 worker: turns the log at `file` into its report page at `out`, as `recourse report` does,
// timing each phase in this fresh process. Prints { ms: { read, parse, build, render, write, total }, … }.
import { readFile, writeFile } from 'node:fs/promises';
import { loadEntry } from '../lib/recourse.js';
import { report } from '../lib/spawn.js';

const [file, out] = process.argv.slice(2);
const { parseEventLog } = await loadEntry('report/read-event-log.js');
const { buildReport } = await loadEntry('report/build-report.js');
const { renderReportHtml } = await loadEntry('report/render-html.js');

const cpu0 = process.cpuUsage();
const t0 = performance.now();
const text = await readFile(file, 'utf8');
const t1 = performance.now();
const log = parseEventLog(text);
const t2 = performance.now();
const built = buildReport(log, 'bench');
const t3 = performance.now();
const html = renderReportHtml(built, { version: 'bench', source: 'bench.jsonl' });
const t4 = performance.now();
await writeFile(out, html);
const t5 = performance.now();
report({
  events: log.events.length,
  calls: built.data.calls.id.length,
  logBytes: Buffer.byteLength(text),
  htmlBytes: Buffer.byteLength(html),
  rssMB: process.memoryUsage().rss / 2 ** 20,
  // CPU time of this process (user + system): what the wall time would be on an idle core
  cpuMs: (() => {
    const c = process.cpuUsage(cpu0);
    return (c.user + c.system) / 1000;
  })(),
  ms: {
    read: t1 - t0,
    parse: t2 - t1,
    build: t3 - t2,
    render: t4 - t3,
    write: t5 - t4,
    total: t5 - t0,
  },
});
