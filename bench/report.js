#!/usr/bin/env node
// Renders bench/results.json into the documents that quote it:
//   node bench/report.js [results.json]                        print BENCHMARKS.md
//   node bench/report.js [results.json] --update BENCHMARKS.md  write it (prose from bench/BENCHMARKS.template.md)
//   node bench/report.js [results.json] --update README.md      replace the comparison table between
//                                                              <!-- bench:start --> and <!-- bench:end -->
// --update may be given more than once. A file named BENCHMARKS.md is written whole; any other file
// gets its bench region replaced.
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { updatedDocument } from './lib/benchmarks-doc.js';

const USAGE =
  'usage: node bench/report.js [results.json] [--update BENCHMARKS.md] [--update README.md]';
const TEMPLATE = fileURLToPath(new URL('./BENCHMARKS.template.md', import.meta.url));

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
const template = readFileSync(TEMPLATE, 'utf8');

if (targets.length === 0) console.log(updatedDocument('BENCHMARKS.md', '', results, template));
for (const target of targets) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch (error) {
    if (basename(target) !== 'BENCHMARKS.md') throw error;
  }
  writeFileSync(target, updatedDocument(basename(target), current, results, template));
  console.log(`updated ${target}`);
}
