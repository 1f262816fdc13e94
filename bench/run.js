#!/usr/bin/env node
// recourse benchmark suite: `npm run bench` (full) or `npm run bench -- --quick`.
// Each case runs its measurements in fresh child processes; this file only orchestrates, prints
// one table per case and writes bench/results.json. See BENCHMARKS.md.
import { execFileSync } from 'node:child_process';
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs, selectCases, USAGE } from './lib/args.js';
import { textTable } from './lib/format.js';
import { evaluateGoals, GOAL_COLUMNS } from './lib/goals.js';
import { machineInfo } from './lib/machine.js';
import { describeNode } from './lib/spawn.js';
import * as overhead from './cases/overhead.js';
import * as watchCost from './cases/watch-cost.js';
import * as stall from './cases/stall-precision.js';
import * as memory from './cases/breaker-memory.js';
import * as amplification from './cases/amplification.js';
import * as jitter from './cases/jitter.js';
import * as chaos from './cases/chaos.js';
import * as report from './cases/report.js';
import * as resume from './cases/resume.js';
import * as rateLimit from './cases/rate-limit.js';
import * as hedgeCase from './cases/hedge.js';
import * as adaptiveStall from './cases/adaptive-stall.js';
import * as cluster from './cases/cluster.js';
import * as instructions from './cases/instructions.js';
import * as bundleSize from './cases/bundle-size.js';
import * as mcp from './cases/mcp.js';
import * as fleet from './cases/fleet.js';

const CASES = [
  overhead,
  watchCost,
  stall,
  memory,
  amplification,
  jitter,
  chaos,
  report,
  resume,
  rateLimit,
  hedgeCase,
  adaptiveStall,
  cluster,
  instructions,
  bundleSize,
  mcp,
  fleet,
];

let args;
try {
  args = parseArgs(process.argv.slice(2));
} catch (error) {
  console.error(error.message);
  process.exit(2);
}
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}

let selected;
try {
  selected = selectCases(CASES, args.only);
} catch (error) {
  console.error(`${error.message}\n${USAGE}`);
  process.exit(2);
}

// Every worker of this run loads the same build: a snapshot of dist/ taken now (other work may
// rebuild dist/ while the bench runs). RECOURSE_DIST, when set, names another build to measure.
const snapshot = fileURLToPath(new URL('./.dist-snapshot/', import.meta.url));
const ownSnapshot = process.env.RECOURSE_DIST === undefined;
if (ownSnapshot) {
  await rm(snapshot, { recursive: true, force: true });
  await cp(fileURLToPath(new URL('../dist/', import.meta.url)), snapshot, { recursive: true });
  process.env.RECOURSE_DIST = `${snapshot}index.js`;
}

const main = await describeNode(process.execPath);
const extra = [];
for (const path of args.nodes) extra.push(await describeNode(path));
const runtimes = [main, ...extra.filter((rt) => rt.version !== main.version)];
const out = args.out ?? fileURLToPath(new URL('./results.json', import.meta.url));

function gitRevision() {
  try {
    const cwd = fileURLToPath(new URL('..', import.meta.url));
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd,
      encoding: 'utf8',
    }).trim();
    const dirty =
      execFileSync('git', ['status', '--porcelain', '--', 'src'], {
        cwd,
        encoding: 'utf8',
      }).trim() !== '';
    return dirty ? `${head} + uncommitted changes under src/` : head;
  } catch {
    return 'unknown';
  }
}

const results = {
  command: `node bench/run.js ${process.argv.slice(2).join(' ')}`.trim(),
  revision: gitRevision(),
  mode: args.quick ? 'quick' : 'full',
  date: new Date().toISOString(),
  machine: machineInfo(),
  runtimes,
  cases: {},
};

// --merge: keep the cases of the existing results file that this run does not measure (each case
// records when and how it was measured, so BENCHMARKS.md can say which run a table comes from).
let previous;
if (args.merge) {
  try {
    previous = JSON.parse(await readFile(out, 'utf8'));
  } catch (error) {
    console.error(`--merge: cannot read ${out}: ${error.message}`);
    process.exit(2);
  }
  for (const [id, c] of Object.entries(previous.cases ?? {})) {
    if (selected.some((x) => x.id === id)) continue;
    results.cases[id] = {
      ...c,
      measured: c.measured ?? {
        date: previous.date,
        revision: previous.revision,
        command: previous.command,
      },
    };
  }
  for (const rt of previous.runtimes ?? [])
    if (!runtimes.some((x) => x.version === rt.version)) runtimes.push(rt);
  if (previous.notes !== undefined) results.notes = previous.notes;
}

const started = Date.now();
console.log(
  `recourse bench (${results.mode}) on ${results.machine.cpu}, ${results.machine.cores} cores; Node ${runtimes.map((r) => r.version).join(', ')}`,
);
for (const c of selected) {
  const t0 = Date.now();
  console.log(`\n${c.title}`);
  const ctx = {
    quick: args.quick,
    rounds: args.rounds,
    runtimes: c.perRuntime ? runtimes : [main],
    main,
    log: (msg) => console.log(`  · ${msg}`),
  };
  try {
    let r = await c.run(ctx);
    r.seconds = (Date.now() - t0) / 1000;
    r.measured = { date: results.date, revision: results.revision, command: results.command };
    // A case that measures part of itself (fleet: FLEET_BACKENDS) keeps the rest of the previous
    // result under --merge; `merge` says how.
    const before = previous?.cases?.[c.id];
    if (c.merge !== undefined && before !== undefined && before.error === undefined)
      r = c.merge(
        {
          ...before,
          measured: before.measured ?? {
            date: previous.date,
            revision: previous.revision,
            command: previous.command,
          },
        },
        r,
      );
    results.cases[c.id] = r;
    for (const t of r.tables) {
      if (t.title !== c.title) console.log(`\n  ${t.title}`);
      console.log(textTable(t.columns, t.rows));
      for (const n of t.notes ?? []) console.log(`  ${n}`);
    }
    console.log(`  (${r.seconds.toFixed(1)} s)`);
  } catch (error) {
    console.error(`  FAILED: ${error.stack ?? error}`);
    results.cases[c.id] = { error: String(error.stack ?? error) };
    process.exitCode = 1;
  }
}

// the cases in the order of CASES, merged ones included
const order = (id) => {
  const i = CASES.findIndex((c) => c.id === id);
  return i === -1 ? CASES.length : i;
};
results.cases = Object.fromEntries(
  Object.entries(results.cases).sort(([a], [b]) => order(a) - order(b)),
);
results.machine.loadavgAtEnd = machineInfo().loadavgAtStart;
results.goals = evaluateGoals(results);
if (results.goals.length > 0) {
  console.log('\nGoals');
  console.log(textTable(GOAL_COLUMNS, results.goals));
}
results.seconds = (Date.now() - started) / 1000;
if (ownSnapshot) await rm(snapshot, { recursive: true, force: true });
await writeFile(out, `${JSON.stringify(results, null, 2)}\n`);
console.log(`\nwrote ${out} (${results.seconds.toFixed(0)} s in all)`);
