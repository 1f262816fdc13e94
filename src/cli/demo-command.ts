import { command, usageError } from './command.js';
import { colorEnabled } from './color.js';
import { DEMO_BACKEND_NAMES, DEMO_BACKENDS, type DemoBackendName } from './demo/demo-backends.js';
import { runDemo, TOPICS } from './demo/run-demo.js';
import { booleanFlag, choiceFlag, integerFlag } from './flags.js';

const NAME = 'demo';

const flags = {
  backend: choiceFlag('NAME', 'where the subagents run; default anthropic', DEMO_BACKEND_NAMES),
  'agent-sdk': booleanFlag('same as --backend agent-sdk'),
  simulated: booleanFlag('same as --backend simulated'),
  live: booleanFlag('talk to the real Anthropic API (needs ANTHROPIC_API_KEY) instead of the embedded chaos server'),
  seed: integerFlag('N', 'seed of the fault scenario, so a run repeats request by request (default 7)', 0, 2 ** 32 - 1),
  topics: integerFlag('N', `how many topics to research (default ${TOPICS.length}; 6 with the Agent SDK)`, 1, TOPICS.length),
};

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
  synopsis: 'demo [--backend NAME | --agent-sdk | --simulated] [--live] [--seed N] [--topics N]',
  description: [
    'Runs a research orchestrator: each topic goes to a deep-research subagent and falls back to',
    'quick-search; every path has its own circuit breaker, retry with jittered backoff, stall',
    'detection per streamed message and a check that rejects empty answers. Faults come from a',
    'seeded scenario (a 529 outage at the start, then stalls, 529s and empty answers), so a run',
    'repeats. A terminal gets a live table (colours off with NO_COLOR); a pipe gets one line per event.',
    '',
    'Backends:',
    ...DEMO_BACKEND_NAMES.map((n) => `  ${n.padEnd(10)} ${DEMO_BACKENDS[n].summary}`),
  ].join('\n'),
  flags,
  positionals: { min: 0, max: 0 },
  conflicts: [
    ['backend', 'agent-sdk', 'simulated'],
    ['live', 'simulated'],
  ],
  examples: ['recourse demo', 'recourse demo --simulated --topics 5', 'recourse demo --agent-sdk --seed 3', 'ANTHROPIC_API_KEY=… recourse demo --live'],
  async run({ flags: f }, io) {
    const name: DemoBackendName = f.backend ?? (f['agent-sdk'] ? 'agent-sdk' : f.simulated ? 'simulated' : 'anthropic');
    const choice = DEMO_BACKENDS[name];
    const live = f.live === true;
    if (live && !choice.canGoLive) return usageError(io, NAME, `--live cannot be used with --backend ${name}`);
    if (live && !io.env.ANTHROPIC_API_KEY) return usageError(io, NAME, '--live needs ANTHROPIC_API_KEY in the environment');
    const backend = await choice.create({ seed: f.seed ?? 7, live });
    const summary = await runDemo({ stdout: io.stdout, color: colorEnabled(io.stdout, io.env) }, backend, TOPICS.slice(0, f.topics ?? choice.defaultTopics));
    return summary.failed === summary.topics ? 1 : 0;
  },
});
