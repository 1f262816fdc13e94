#!/usr/bin/env node
// Renders bench/results.json into the documents that quote it:
//   node bench/report.js [results.json]                        print BENCHMARKS.md
//   node bench/report.js [results.json] --update BENCHMARKS.md  write it (prose from bench/BENCHMARKS.template.md)
//   node bench/report.js [results.json] --update bench/NOTES.md the lab notes (bench/NOTES.template.md)
//   node bench/report.js [results.json] --update README.md      replace the comparison table between
//                                                              <!-- bench:start --> and <!-- bench:end -->
// --update may be given more than once. BENCHMARKS.md and NOTES.md are written whole; any other
// file gets its bench region replaced.
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEMPLATES, updatedDocument } from './lib/benchmarks-doc.js';

const USAGE =
  'usage: node bench/report.js [results.json] [--update BENCHMARKS.md] [--update bench/NOTES.md] [--update README.md]';
const template = (name) =>
  TEMPLATES[name] === undefined
    ? ''
    : readFileSync(fileURLToPath(new URL(`../${TEMPLATES[name]}`, import.meta.url)), 'utf8');

const args = process.argv.slice(2);
const targets = [];
const positional = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--update') {
    const t = args[++i];
    if (t === undefined) {
      console.error(`--update needs a file\n${USAGE}`);
      process.exit(2);
    }
    targets.push(t);
  } else if (args[i] === '--help' || args[i] === '-h') {
    console.log(USAGE);
    process.exit(0);
  } else if (args[i].startsWith('-')) {
    console.error(`unknown option ${args[i]}\n${USAGE}`);
    process.exit(2);
  } else positional.push(args[i]);
}
if (positional.length > 1) {
  console.error(`one results file at most\n${USAGE}`);
  process.exit(2);
}
const file = positional[0] ?? fileURLToPath(new URL('./results.json', import.meta.url));
const results = JSON.parse(readFileSync(file, 'utf8'));

if (targets.length === 0)
  console.log(updatedDocument('BENCHMARKS.md', '', results, template('BENCHMARKS.md')));
for (const target of targets) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch (error) {
    if (TEMPLATES[basename(target)] === undefined) throw error;
  }
  const name = basename(target);
  writeFileSync(target, updatedDocument(name, current, results, template(name)));
  console.log(`updated ${target}`);
}
