import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { writeReport } from '../report/write-report.js';
import { command, usageError } from './command.js';
import { colorEnabled } from './color.js';
import {
  CLUSTER_CONFLICTS,
  CLUSTER_FLAGS,
  CLUSTER_HELP,
  runClusterDemoCommand,
} from './demo/cluster-command.js';
import { DEMO_BACKEND_NAMES, DEMO_BACKENDS, type DemoBackendName } from './demo/demo-backends.js';
import { runDemo, TOPICS } from './demo/run-demo.js';
import { eventLogFile } from './event-log-file.js';
import { booleanFlag, choiceFlag, integerFlag, textFlag } from './flags.js';
import { openInBrowser } from './open-in-browser.js';
import { packageVersion } from './version.js';

const NAME = 'demo';
// The backends' one-liners line up after the longest name.
const NAME_WIDTH = Math.max(...DEMO_BACKEND_NAMES.map((n) => n.length));

const flags = {
  backend: choiceFlag('NAME', 'where the subagents run; default anthropic', DEMO_BACKEND_NAMES),
  'agent-sdk': booleanFlag('same as --backend agent-sdk'),
  simulated: booleanFlag('same as --backend simulated'),
  live: booleanFlag(
    'talk to the real API (needs ANTHROPIC_API_KEY; OPENAI_API_KEY with --backend openai or openai-agents) instead of the embedded chaos server',
  ),
  seed: integerFlag(
    'N',
    'seed of the fault scenario, so a run repeats request by request (default 7)',
    0,
    2 ** 32 - 1,
  ),
  topics: integerFlag(
    'N',
    `how many topics to research (default ${TOPICS.length}; 6 with the Agent SDK)`,
    1,
    TOPICS.length,
  ),
  report: textFlag(
    'FILE',
    "where to write the run's report page (default: report.html in a new folder under the temp dir)",
  ),
  log: textFlag(
    'FILE',
    "where to write the run's JSON event log (default: the report's name with .jsonl)",
  ),
  open: booleanFlag('open the report in a browser at the end'),
  approval: booleanFlag(
    'end with a high-risk tool call (publishing the brief) that waits until a person approves it from a second terminal',
  ),
  ...CLUSTER_FLAGS,
};

/** Where the demo writes its log and report: the flags, else a fresh folder under the temp dir. */
function outputPaths(
  report: string | undefined,
  log: string | undefined,
): { report: string; log: string } {
  let page = report;
  if (page === undefined) {
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    page = join(tmpdir(), `recourse-demo-${stamp}-${process.pid}`, 'report.html');
  }
  page = resolve(page);
  const events = resolve(
    log ?? (/\.html?$/i.test(page) ? page.replace(/\.html?$/i, '.jsonl') : `${page}.jsonl`),
  );
  return { report: page, log: events };
}

/**
 * `recourse demo`: the research orchestrator (deep-research → quick-search, each behind a breaker
 * and retry, stall detection per message, empty answers rejected) over the backend the flags pick.
 * Exits 1 when every topic failed.
 *
 * @example
 * process.exitCode = await runCli(['demo', '--simulated', '--topics', '5'], io)
 */
export const demoCommand = command({
  name: NAME,
  summary: 'watch recourse handle 529s, stalls and empty answers in a research-agent loop',
  synopsis:
    'demo [--backend NAME | --agent-sdk | --simulated] [--live] [--seed N] [--topics N] [--report FILE] [--log FILE] [--open] [--approval] | demo --workers N --store URL [--seed N]',
  description: [
    'Runs a research orchestrator: each topic goes to a deep-research subagent and falls back to',
    'quick-search; every path has its own circuit breaker, retry with jittered backoff, a hedge (a',
    'second request when the first is slow to start), stall limits learned per message stream and a',
    'check that rejects empty answers. Faults come from a seeded scenario (a 529 outage at the start,',
    'then stalls, 529s, empty answers and slow starts), so a run repeats. The summary says what was',
    'hedged and learned. A terminal gets a live table (colours off with NO_COLOR); a pipe gets one',
    'line per event.',
    'Each topic also calls two tools through mcpClient on a chaos MCP server the demo starts: read is',
    'flaky (retried: readOnlyHint), progress hangs now and then (a stall after 300 ms, cancelled on the',
    "server, retried); the topics fan out under a bulkhead that holds them to the backend's concurrency.",
    'Every event goes to a JSON log, and the run ends with the path of its report page (recourse report).',
    "At the end an editor writes one brief from every finding: its first plan overflows the model's",
    'context window, byClass hands the logical failure back, and the orchestrator re-plans. With',
    '--approval, publishing the brief is a high-risk tool call that waits for a person: the demo prints',
    'the "recourse escalations approve ID --store …" command to run in a second terminal.',
    '',
    ...CLUSTER_HELP,
    '',
    'Backends:',
    ...DEMO_BACKEND_NAMES.map((n) => `  ${n.padEnd(NAME_WIDTH)} ${DEMO_BACKENDS[n].summary}`),
    '',
    'recourse does not install the SDKs: a backend whose SDK is missing says which packages to install.',
  ].join('\n'),
  flags,
  positionals: { min: 0, max: 0 },
  conflicts: [['backend', 'agent-sdk', 'simulated'], ['live', 'simulated'], ...CLUSTER_CONFLICTS],
  examples: [
    'recourse demo',
    'recourse demo --simulated --topics 5',
    'recourse demo --agent-sdk --seed 3',
    'recourse demo --backend ai-sdk',
    'recourse demo --backend openai --topics 8',
    'recourse demo --approval        # then, in a second terminal: recourse escalations approve ID --store sqlite:…',
    'recourse demo --workers 4 --store postgres://postgres@127.0.0.1:5432/test',
    'ANTHROPIC_API_KEY=… recourse demo --live',
  ],
  async run({ flags: f }, io) {
    if (f.workers !== undefined || f.store !== undefined) return runClusterDemoCommand(NAME, f, io);
    const name: DemoBackendName =
      f.backend ?? (f['agent-sdk'] ? 'agent-sdk' : f.simulated ? 'simulated' : 'anthropic');
    const choice = DEMO_BACKENDS[name];
    const live = f.live === true;
    if (live && !choice.canGoLive)
      return usageError(io, NAME, `--live cannot be used with --backend ${name}`);
    if (live && !io.env[choice.liveKey])
      return usageError(io, NAME, `--live needs ${choice.liveKey} in the environment`);
    const paths = outputPaths(f.report, f.log);
    if (paths.log === paths.report)
      return usageError(io, NAME, `--log and --report are the same file (${paths.log})`);
    for (const file of [paths.report, paths.log]) mkdirSync(dirname(file), { recursive: true });
    const backend = await choice.create({ seed: f.seed ?? 7, live });
    const log = await eventLogFile(paths.log);
    let failedAll: boolean;
    try {
      const folder = dirname(paths.report);
      const approval =
        f.approval === true
          ? { store: join(folder, 'escalations.db'), publishTo: join(folder, 'brief.md') }
          : undefined;
      const summary = await runDemo(
        {
          stdout: io.stdout,
          color: colorEnabled(io.stdout, io.env),
          tools: { seed: f.seed ?? 7 },
          ...(approval === undefined ? {} : { approval }),
        },
        backend,
        TOPICS.slice(0, f.topics ?? choice.defaultTopics),
      );
      failedAll = summary.failed === summary.topics;
    } finally {
      await log.close();
    }
    const written = await writeReport(paths.log, paths.report, {
      version: packageVersion(),
      title: `recourse demo (${name}, seed ${f.seed ?? 7})`,
    });
    io.stdout.write(
      `\n  event log             ${paths.log}\n  report                ${written.output} (${written.calls} calls, ${written.events} events)\n`,
    );
    if (f.open === true) {
      const problem = await openInBrowser(written.output, io.env);
      if (problem !== undefined)
        io.stderr.write(`recourse ${NAME}: could not open a browser (${problem})\n`);
    }
    return failedAll ? 1 : 0;
  },
});
