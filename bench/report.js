#!/usr/bin/env node
// Renders bench/results.json as the markdown of README.md's measured part:
//   node bench/report.js [results.json]                      print it
//   node bench/report.js [results.json] --update FILE.md     replace what lies between
//                                                            <!-- bench:start --> and <!-- bench:end -->
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { markdownTable } from './lib/format.js';
import { evaluateGoals, GOAL_COLUMNS } from './lib/goals.js';

const args = process.argv.slice(2);
const u = args.indexOf('--update');
const target = u === -1 ? undefined : args[u + 1];
const positional = args.filter((a, i) => a !== '--update' && i !== u + 1);
const file = positional[0] ?? fileURLToPath(new URL('./results.json', import.meta.url));
const r = JSON.parse(readFileSync(file, 'utf8'));

const out = [];
const nodes = r.runtimes.map((x) => `${x.version} (V8 ${x.v8.replace(/-node\..*/, '')})`).join(' and ');
out.push(
  `Measured ${r.date.slice(0, 16).replace('T', ' ')} UTC on ${r.machine.cpu} (${r.machine.cores} vCPUs, ${r.machine.memoryGB} GB, ${r.machine.os}), ` +
    `Node ${nodes}; load average ${r.machine.loadavgAtStart[0]} at the start and ${r.machine.loadavgAtEnd?.[0] ?? '?'} at the end; ${Math.round(r.seconds)} s in all. ` +
    `recourse at ${r.revision ?? 'unknown'}.`,
);
out.push('');
out.push('```sh');
out.push(`${r.command.replace(/^node bench\/run\.js/, 'npm run bench --').replace(/ --$/, '')}   # ${r.mode} mode`);
out.push('```');
for (const c of Object.values(r.cases)) {
  if (c.error) {
    out.push('', `(a case failed: ${c.error.split('\n')[0]})`);
    continue;
  }
  for (const t of c.tables) {
    out.push('', `### ${t.title}`, '', markdownTable(t.columns, t.rows), '');
    for (const n of t.notes ?? []) out.push(`- ${n}`);
  }
}
const goals = evaluateGoals(r);
if (goals.length > 0) {
  out.push('', '### Goals, as measured in this run', '');
  out.push(
    markdownTable(
      GOAL_COLUMNS,
      goals,
    ),
  );
}
const text = out.join('\n');
if (target === undefined) console.log(text);
else {
  const doc = readFileSync(target, 'utf8');
  const start = doc.indexOf('<!-- bench:start -->');
  const end = doc.indexOf('<!-- bench:end -->');
  if (start === -1 || end < start) throw new Error(`${target} has no <!-- bench:start --> … <!-- bench:end --> region`);
  writeFileSync(target, `${doc.slice(0, start)}<!-- bench:start -->\n${text}\n${doc.slice(end)}`);
  console.log(`updated ${target}`);
}
