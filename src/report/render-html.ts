import type { Report } from './build-report.js';
import { escapeHtml, scriptJson } from './escape-html.js';
import { formatMs, latencyHistogram } from './histogram-svg.js';
import { pageMain } from './page-script.js';
import { PAGE_STYLE } from './page-style.js';
import type { SkippedLines } from './read-event-log.js';

const pct = (n: number, d: number): string =>
  d === 0 ? '–' : `${((100 * n) / d).toFixed(n === d || n === 0 ? 0 : 1)}%`;
const ms = (v: number | undefined): string => (v === undefined ? '–' : formatMs(v));
const lines = (list: readonly number[], count: number): string =>
  `line${count === 1 ? '' : 's'} ${list.join(', ')}${count > list.length ? ', …' : ''}`;

/** The sentences that say what the report left out or changed; empty when nothing. */
export function skippedNotes(skipped: SkippedLines, outOfOrder: number): string[] {
  const notes: string[] = [];
  if (skipped.malformedCount > 0)
    notes.push(
      `skipped ${skipped.malformedCount} line(s) that are not JSON (${lines(skipped.malformed, skipped.malformedCount)})`,
    );
  if (skipped.notEventsCount > 0)
    notes.push(
      `skipped ${skipped.notEventsCount} JSON line(s) without an event name or timestamp (${lines(skipped.notEvents, skipped.notEventsCount)})`,
    );
  for (const u of skipped.unknownTypes)
    notes.push(
      `skipped ${u.count} event(s) of unknown type "${u.type}" (first on line ${u.firstLine})`,
    );
  if (outOfOrder > 0)
    notes.push(`the log goes back in time at ${outOfOrder} line(s): events sorted by timestamp`);
  return notes;
}

function summaryTable(report: Report): string {
  const c = report.summary.calls;
  const head =
    '<tr><th>calls</th><th>success</th><th>degraded</th><th>failed</th><th>cancelled</th><th>retries</th><th>stalls</th><th>requests</th><th>requests per call</th></tr>';
  const row = `<tr><td>${c.calls}</td><td>${c.success} <span class="muted">${pct(c.success, c.calls)}</span></td><td>${c.degraded} <span class="muted">${pct(c.degraded, c.calls)}</span></td><td class="${c.failed > 0 ? 'bad' : ''}">${c.failed} <span class="muted">${pct(c.failed, c.calls)}</span></td><td>${c.cancelled}</td><td>${c.retries}</td><td>${c.stalls}</td><td>${c.requests}</td><td>${c.calls === 0 ? '–' : (c.requests / c.calls).toFixed(2)}</td></tr>`;
  const depHead =
    '<tr><th>dependency</th><th>calls</th><th>failed</th><th>retries</th><th>stalls</th><th>timeouts</th><th>invalid results</th><th>refused (open circuit)</th><th>circuit opened</th><th>requests</th><th>p50</th><th>p95</th><th>p99</th></tr>';
  const depRows = report.summary.dependencies
    .map(
      (d) =>
        `<tr><th scope="row">${escapeHtml(d.dependency)}</th><td>${d.calls}</td><td>${d.failures} <span class="muted">${pct(d.failures, d.calls)}</span></td><td>${d.retries}</td><td>${d.stalls}</td><td>${d.timeouts}</td><td>${d.invalid}</td><td>${d.rejects}</td><td>${d.opened}</td><td>${d.requests ?? '–'}</td><td>${ms(d.p50)}</td><td>${ms(d.p95)}</td><td>${ms(d.p99)}</td></tr>`,
    )
    .join('');
  return `<h3>Logical calls</h3><table id="summary-calls">${head}${row}</table>
<h3>Per dependency</h3><table id="summary-dependencies">${depHead}${depRows}</table>
<p class="muted">A logical call is one row of the timeline (a fallback ladder with all its paths, or one instrumented call). Requests are attempts that reached a dependency; a call refused by an open circuit makes none. Latency is over each dependency's <code>call</code> events.</p>`;
}

function histograms(report: Report): string {
  const deps = report.summary.dependencies.filter((d) => d.okMs.length + d.failedMs.length > 0);
  if (deps.length === 0)
    return '<p class="muted">The log has no <code>call</code> events with durations (add <code>instrument({ name })</code> to a policy).</p>';
  return `<div class="histograms">${deps
    .map(
      (d) =>
        `<figure><figcaption>${escapeHtml(d.dependency)} <span class="muted">(${d.okMs.length + d.failedMs.length} calls)</span></figcaption>${latencyHistogram(d.dependency, d.okMs, d.failedMs)}</figure>`,
    )
    .join('')}</div>`;
}

const LEGEND: Array<[string, string]> = [
  ['swatch path', 'a path (dependency) of the call'],
  ['swatch ok', 'attempt that succeeded'],
  ['swatch failed', 'attempt that failed'],
  ['swatch backoff', 'backoff before the next attempt'],
  ['glyph stall', 'stall or timeout'],
  ['glyph reject', 'refused: circuit open'],
  ['glyph hop', 'fallback to the next path'],
  ['glyph state', 'this call moved a breaker'],
  ['glyph served', 'answer (amber: degraded)'],
];

/**
 * The report as one self-contained HTML page: styles, data and script inline, nothing fetched.
 * The data is JSON inside a `<script type="application/json">` (with `<` escaped), and every
 * text the server writes into the markup is HTML-escaped.
 *
 * @example
 * writeFileSync('report.html', renderReportHtml(buildReport(parseEventLog(text), 'run.jsonl'), { version: '0.1.0' }))
 */
export function renderReportHtml(report: Report, o: { version: string; source: string }): string {
  const { data, log } = report;
  const notes = skippedNotes(log.skipped, log.outOfOrder);
  const start = log.events === 0 ? '' : new Date(data.t0).toISOString();
  const grouping =
    report.grouped === 'by-id'
      ? ''
      : `<p class="note">${report.grouped === 'by-time' ? 'This log has no call ids' : 'Some events have no call id'} (<code>call_id</code>, written by <code>jsonLogger</code> for events inside a call): those rows are grouped by time — one row per <code>call</code> event, with the events of its dependency that happened during it.</p>`;
  const skippedHtml =
    notes.length === 0
      ? `<p id="skipped" class="muted" data-skipped="0">Every line of the log was read.</p>`
      : `<div id="skipped" class="note" data-skipped="${notes.length}"><strong>While reading the log:</strong><ul>${notes.map((n) => `<li>${escapeHtml(n)}</li>`).join('')}</ul></div>`;
  const body =
    log.events === 0
      ? '<p class="note">The log has no events to draw.</p>'
      : `<section>
<h2>Timeline <span class="muted">(${data.calls.id.length} logical calls)</span></h2>
<div class="legend">${LEGEND.map(([cls, text]) => `<span><i class="${cls}"></i>${escapeHtml(text)}</span>`).join('')}</div>
<div class="controls"><button id="zoom-in" type="button">zoom in</button><button id="zoom-out" type="button">zoom out</button><button id="zoom-reset" type="button">whole run</button>
<span class="muted">Ctrl/⌘/Shift + wheel zooms at the pointer, drag pans; hover for details; click a failed call (✘) for why it failed.</span></div>
<div id="timeline"><canvas id="lanes"></canvas><div id="rows-scroll"><div id="rows-spacer"><canvas id="rows"></canvas></div></div></div>
<aside id="explain" hidden><div class="explain-head"><h3 id="explain-title"></h3><button id="explain-close" type="button" aria-label="close">×</button></div><pre id="explain-text"></pre></aside>
</section>
<section><h2>Summary</h2>${summaryTable(report)}</section>
<section><h2>Latency per dependency</h2>${histograms(report)}</section>`;
  const script =
    log.events === 0
      ? ''
      : `<script type="application/json" id="report-data">${scriptJson(data)}</script>
<script>(${pageMain.toString()})(document, window, JSON.parse(document.getElementById('report-data').textContent));</script>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(`recourse report — ${data.title}`)}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<header>
<h1>recourse report <span class="muted">${escapeHtml(data.title)}</span></h1>
<p class="muted">${log.events} events from ${escapeHtml(o.source)}${start === '' ? '' : `, ${escapeHtml(start)} for ${escapeHtml(formatMs(data.span))}`} · ${log.lines} lines read</p>
${skippedHtml}
${grouping}
</header>
${body}
<div id="tooltip" role="tooltip" hidden></div>
<footer class="muted">Generated by recourse ${escapeHtml(o.version)} — self-contained: nothing on this page is fetched from the network.</footer>
${script}
</body>
</html>
`;
}
