// Case 8: `recourse report` on a log of 100,000 events: how long the page takes to make (goal:
// under 2 s), how big it is, and whether it stays usable in a browser (headless Chromium).
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fmt, withSpread } from '../lib/format.js';
import { runWorker } from '../lib/spawn.js';
import { summarize } from '../lib/stats.js';

export const id = 'report';
export const title =
  '8. recourse report on a log of 100,000 events (read + group + render + write)';

export const EVENTS = 100_000;

export async function run(ctx) {
  const p = { events: EVENTS, rounds: ctx.quick ? 1 : 5 };
  const dir = await mkdtemp(join(tmpdir(), 'recourse-bench-report-'));
  try {
    const log = join(dir, 'run.jsonl');
    const html = join(dir, 'report.html');
    const made = await runWorker({
      node: ctx.main.path,
      worker: 'report-log.worker.js',
      args: [log, p.events],
    });
    ctx.log(
      `log: ${fmt(made.events)} events of ${fmt(made.calls)} logical calls, written in ${fmt(made.seconds, 1)} s`,
    );
    const runs = [];
    for (let i = 0; i < p.rounds; i++)
      runs.push(
        await runWorker({ node: ctx.main.path, worker: 'report.worker.js', args: [log, html] }),
      );
    const s = (f) => summarize(runs.map(f));
    const first = runs[0];
    const data = {
      events: first.events,
      calls: first.calls,
      logMB: first.logBytes / 2 ** 20,
      htmlMB: first.htmlBytes / 2 ** 20,
      totalMs: s((r) => r.ms.total),
      cpuMs: s((r) => r.cpuMs),
      parseMs: s((r) => r.ms.read + r.ms.parse),
      buildMs: s((r) => r.ms.build),
      renderMs: s((r) => r.ms.render + r.ms.write),
      rssMB: s((r) => r.rssMB),
    };
    if (existsSync('/usr/bin/chromium')) {
      data.browser = await runWorker({
        node: ctx.main.path,
        worker: 'report-browser.worker.js',
        args: [html],
        timeoutMs: 180_000,
      });
    } else {
      ctx.log('no /usr/bin/chromium: the page is not measured in a browser');
    }
    const columns = [
      { key: 'what', label: 'measure', align: 'left' },
      { key: 'value', label: `median (min–max) of ${p.rounds} fresh process(es)`, align: 'left' },
    ];
    const rows = [
      {
        what: 'log',
        value: `${fmt(data.events)} events, ${fmt(data.calls)} logical calls, ${fmt(data.logMB, 1)} MB`,
      },
      { what: 'wall time, log to page on disk', value: `${withSpread(data.totalMs)} ms` },
      { what: '  of which read + parse', value: `${withSpread(data.parseMs)} ms` },
      { what: '  of which group + build', value: `${withSpread(data.buildMs)} ms` },
      { what: '  of which render + write', value: `${withSpread(data.renderMs)} ms` },
      { what: 'CPU time (user + system)', value: `${withSpread(data.cpuMs)} ms` },
      { what: 'peak RSS', value: `${withSpread(data.rssMB)} MB` },
      { what: 'page', value: `${fmt(data.htmlMB, 1)} MB` },
    ];
    if (data.browser) {
      const b = data.browser;
      rows.push(
        { what: 'Chromium: load to first drawing', value: `${fmt(b.loadMs)} ms` },
        {
          what: 'Chromium: drawing after a scroll (median of 30)',
          value: `${fmt(b.scrollMs, 1)} ms`,
        },
        { what: 'Chromium: drawing after a zoom (median of 30)', value: `${fmt(b.zoomMs, 1)} ms` },
        {
          what: 'Chromium: DOM elements / JS heap',
          value: `${fmt(b.domNodes)} / ${b.heapMB === null ? '—' : `${fmt(b.heapMB)} MB`}`,
        },
      );
    }
    const notes = [
      `The log comes from real policies logged by the real jsonLogger (research ladders with breakers, retry, a stall watch, 64 at a time, seeded faults); each round is \`recourse report\`'s work in a fresh process: read the file, parse and redact every line, group the events into calls, build the page and write it.`,
      'The timeline draws only the rows in view on a canvas, so the page keeps a small DOM whatever the log size.',
    ];
    return { params: p, data, tables: [{ title, columns, rows, notes }] };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
