// BENCHMARKS.md (one page: a row per goal), bench/NOTES.md (the lab notes: every case's tables
// with their prose) and the README's comparison table, rendered from bench/results.json. The prose
// lives in bench/BENCHMARKS.template.md and bench/NOTES.template.md; every number comes from the
// results, so the documents cannot drift from a run (test/docs/benchmarks-doc.test.ts checks the
// committed files).
import { fmt, markdownTable, ratio } from './format.js';
import { evaluateGoals, GOAL_COLUMNS, summarizeGoals } from './goals.js';

/** The line that says where and when a result was measured. */
function measuredOn(r) {
  const nodes = r.runtimes
    .map((x) => `${x.version} (V8 ${x.v8.replace(/-node\..*/, '')})`)
    .join(' and ');
  const load = `load average ${r.machine.loadavgAtStart[0]} at the start and ${r.machine.loadavgAtEnd?.[0] ?? '?'} at the end`;
  return (
    `Measured ${r.date.slice(0, 16).replace('T', ' ')} UTC on ${r.machine.cpu} (${r.machine.cores} vCPUs, ${r.machine.memoryGB} GB, ${r.machine.os}), ` +
    `Node ${nodes}; ${load}; ${Math.round(r.seconds)} s in all. recourse at ${r.revision ?? 'unknown'}.`
  );
}

const asCommand = (command) =>
  command.replace(/^node bench\/run\.js/, 'npm run bench --').replace(/ --$/, '');

/** When and how the run was made, and which cases were measured at another time (--merge). */
export function renderRun(r) {
  const out = [measuredOn(r), '', '```sh', `${asCommand(r.command)}   # ${r.mode} mode`, '```'];
  const later = Object.entries(r.cases).filter(
    ([, c]) => c.measured !== undefined && c.measured.date !== r.date,
  );
  if (later.length > 0) {
    out.push('', 'Measured in another run (merged with `--merge`):', '');
    for (const [id, c] of later) {
      out.push(
        `- case \`${id}\`: ${c.measured.date.slice(0, 16).replace('T', ' ')} UTC, recourse at ${c.measured.revision}, \`${asCommand(c.measured.command)}\``,
      );
    }
  }
  for (const n of r.notes ?? []) out.push('', `Note: ${n}`);
  return out.join('\n');
}

export function caseTitle(r, id) {
  const c = r.cases[id];
  return c?.tables?.[0]?.title ?? c?.title;
}

/** A case's tables and their notes (the first table's title is the section heading). */
export function renderTables(r, id) {
  const c = r.cases[id];
  if (c === undefined) return `Not measured in this run (\`npm run bench -- --only ${id}\`).`;
  if (c.error) return `This case failed in this run: ${c.error.split('\n')[0]}`;
  const out = [];
  c.tables.forEach((t, i) => {
    if (i > 0) out.push(`### ${t.title}`, '');
    out.push(markdownTable(t.columns, t.rows), '');
    for (const n of t.notes ?? []) out.push(`- ${n}`);
    out.push('');
  });
  return out.join('\n').trimEnd();
}

/** The `n`-th table (from 1) of a case with its notes, under its own title (a page that has room for one). */
export function renderTable(r, id, n) {
  const c = r.cases[id];
  if (c === undefined) return `Not measured in this run (\`npm run bench -- --only ${id}\`).`;
  if (c.error) return `This case failed in this run: ${c.error.split('\n')[0]}`;
  const t = c.tables[n - 1];
  if (t === undefined) throw new Error(`case ${id} has no table ${n}`);
  const out = [`### ${t.title}`, '', markdownTable(t.columns, t.rows), ''];
  for (const note of t.notes ?? []) out.push(`- ${note}`);
  return out.join('\n').trimEnd();
}

export function renderGoals(r) {
  const goals = evaluateGoals(r);
  return goals.length === 0
    ? 'No goal could be evaluated in this run.'
    : markdownTable(GOAL_COLUMNS, goals);
}

/** The goals as one table: goal, peers, recourse on each Node, met or not. */
export function renderSummary(r) {
  const { columns, rows } = summarizeGoals(r);
  return rows.length === 0
    ? 'No goal could be evaluated in this run.'
    : markdownTable(columns, rows);
}

const PLACEHOLDER = /^\{\{(run|goals|summary|title:[\w-]+|tables:[\w-]+|table:[\w-]+:\d+)\}\}$/;

/**
 * A page of the benchmark: `template` with its placeholders filled from `results`. With
 * `everyCase` (the lab notes) the template must have a section for every case of the results.
 */
export function renderBenchmarks(
  template,
  results,
  { everyCase = true, source = 'bench/NOTES.template.md', target = 'bench/NOTES.md' } = {},
) {
  const described = new Set();
  const lines = template.split('\n').map((line) => {
    const m = PLACEHOLDER.exec(line.trim());
    if (m === null) {
      if (/\{\{[^}]*\}\}/.test(line))
        throw new Error(`unknown placeholder in the template: ${line.trim()}`);
      return line;
    }
    const [kind, id, n] = m[1].split(':');
    if (kind === 'run') return renderRun(results);
    if (kind === 'goals') return renderGoals(results);
    if (kind === 'summary') return renderSummary(results);
    if (kind === 'table') return renderTable(results, id, Number(n));
    described.add(id);
    if (kind === 'title')
      return `## ${caseTitle(results, id) ?? `${id} (not measured in this run)`}`;
    return renderTables(results, id);
  });
  const undescribed = Object.keys(results.cases).filter((id) => !described.has(id));
  if (everyCase && undescribed.length > 0) {
    throw new Error(
      `${source} has no section for case(s) ${undescribed.join(', ')}: add {{title:ID}}, prose and {{tables:ID}}`,
    );
  }
  return `<!-- Generated by \`node bench/report.js --update ${target}\` from bench/results.json and ${source}: edit those, not this file. -->\n${lines.join('\n')}`;
}

/** The README's comparison with cockatiel, opossum and p-retry: measured numbers only. */
export function renderComparison(r) {
  const overhead = r.cases.overhead?.data;
  const node = r.runtimes[0].version;
  const o = overhead?.[node] ?? {};
  const ns = (v) => (o[v] === undefined ? '—' : `+${fmt(o[v].overheadNs)} ns`);
  const mem = r.cases.memory?.data?.[node] ?? {};
  const bytes = (v) => (mem[v] === undefined ? '—' : `${fmt(mem[v].bytesPerBreaker.median)} B`);
  const amp = r.cases.amplification?.data ?? {};
  const calls = (v) => (amp[v] === undefined ? '—' : fmt(amp[v].perCall, 0));
  const watch = r.cases.watch?.data?.[node];
  const rows = [
    {
      what: 'success path, retry + breaker (time above a bare `await`)',
      recourse: ns('recourse-pipeline2'),
      cockatiel: ns('cockatiel-wrap2'),
      opossum: `${ns('opossum-notimeout')} (breaker only)`,
      pretry: `${ns('p-retry')} (retry only)`,
    },
    {
      what: '… with a timeout that fires even when fn ignores its signal',
      recourse: ns('recourse-pipeline3'),
      cockatiel: ns('cockatiel-wrap3'),
      opossum: `${ns('opossum-default')} (10 s default)`,
      pretry: 'no timeout',
    },
    {
      what: 'memory per idle circuit breaker',
      recourse: bytes('recourse-registry'),
      cockatiel: bytes('cockatiel'),
      opossum: bytes('opossum'),
      pretry: 'no breaker',
    },
    {
      what: 'calls to a dead dependency per logical call, retry(3) inside retry(3)',
      recourse: calls('recourse-nested'),
      cockatiel: calls('cockatiel-nested'),
      opossum: 'no retry',
      pretry: calls('p-retry-nested'),
    },
    {
      what: 'stall detection on a stream (cost per item over a bare `for await`)',
      recourse: watch?.watch === undefined ? '—' : `\`watch\`: ${ratio(watch.watch.timesBare)}`,
      cockatiel: 'none',
      opossum: 'none',
      pretry: 'none',
    },
  ];
  const columns = [
    { key: 'what', label: `measured (Node ${node.replace(/^v/, '')})`, align: 'left' },
    { key: 'recourse', label: 'recourse', align: 'left' },
    { key: 'cockatiel', label: 'cockatiel', align: 'left' },
    { key: 'opossum', label: 'opossum', align: 'left' },
    { key: 'pretry', label: 'p-retry', align: 'left' },
  ];
  // The run's full account (merged cases, load, revisions) is BENCHMARKS.md's; here, one line.
  const where = `${r.machine.cpu}, ${r.machine.cores} vCPUs`;
  return `${markdownTable(columns, rows)}\n\n${where}; when and how each was measured: BENCHMARKS.md.`;
}

/** The template each generated page is made from (relative to the repository). */
export const TEMPLATES = {
  'BENCHMARKS.md': 'bench/BENCHMARKS.template.md',
  'NOTES.md': 'bench/NOTES.template.md',
};

/**
 * The text of a document after an update from `results`: BENCHMARKS.md and bench/NOTES.md whole
 * (from `template`, the one {@link TEMPLATES} names), any other document with its
 * `<!-- bench:start -->` … `<!-- bench:end -->` region replaced by the comparison table.
 */
export function updatedDocument(name, current, results, template) {
  if (name === 'BENCHMARKS.md')
    return renderBenchmarks(template, results, {
      everyCase: false,
      source: TEMPLATES[name],
      target: 'BENCHMARKS.md',
    });
  if (name === 'NOTES.md') return renderBenchmarks(template, results);
  const start = current.indexOf('<!-- bench:start -->');
  const end = current.indexOf('<!-- bench:end -->');
  if (start === -1 || end < start)
    throw new Error(`${name} has no <!-- bench:start --> … <!-- bench:end --> region`);
  return `${current.slice(0, start)}<!-- bench:start -->\n${renderComparison(results)}\n${current.slice(end)}`;
}
