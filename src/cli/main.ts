#!/usr/bin/env node
import { chaosCommand } from './chaos-command.js';
import { agentSdkBackend } from './demo/agent-sdk-backend.js';
import { anthropicBackend } from './demo/anthropic-backend.js';
import { runDemo, TOPICS } from './demo/run-demo.js';
import { simulatedBackend } from './demo/simulated-backend.js';
import { seededRandom } from '../random/seeded-random.js';

const USAGE = `usage: recourse <command>

commands:
  demo [--seed N] [--agent-sdk | --simulated] [--live] [--topics N]
                                     the research orchestrator demo: the real @anthropic-ai/sdk against an
                                     embedded chaos server (default), the real Claude Agent SDK (--agent-sdk),
                                     in-process simulated subagents (--simulated), or the real API (--live)
  chaos serve --port N --scenario F  a fault-injecting Anthropic/OpenAI-compatible server
`;

function intFlag(args: string[], name: string, fallback: number): number | string {
  const at = args.indexOf(name);
  if (at < 0) return fallback;
  const value = Number(args[at + 1]);
  return Number.isInteger(value) && value > 0 ? value : `${name} must be a positive integer, got ${args[at + 1]}`;
}

async function demoCommand(args: string[], io: { stdout: NodeJS.WriteStream; stderr: NodeJS.WriteStream }): Promise<number> {
  const known = new Set(['--seed', '--topics', '--agent-sdk', '--simulated', '--live']);
  const unknown = args.filter((a, i) => a.startsWith('-') && !known.has(a) && !(i > 0 && ['--seed', '--topics'].includes(args[i - 1]!)));
  const seed = intFlag(args, '--seed', 7);
  const count = intFlag(args, '--topics', args.includes('--agent-sdk') ? 6 : TOPICS.length);
  const problem = unknown.length > 0 ? `unknown option ${unknown[0]}` : typeof seed === 'string' ? seed : typeof count === 'string' ? count : undefined;
  if (problem !== undefined || typeof seed === 'string' || typeof count === 'string') {
    io.stderr.write(`${problem}\n${USAGE}`);
    return 2;
  }
  const live = args.includes('--live');
  const backend = args.includes('--simulated')
    ? simulatedBackend(seededRandom(seed))
    : args.includes('--agent-sdk')
      ? await agentSdkBackend({ seed, live })
      : await anthropicBackend({ seed, live });
  const summary = await runDemo(io, backend, TOPICS.slice(0, count));
  return summary.failed === summary.topics ? 1 : 0;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const io = { stdout: process.stdout, stderr: process.stderr };
  switch (command) {
    case 'demo':
      return demoCommand(rest, io);
    case 'chaos':
      return chaosCommand(rest, io);
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      io.stdout.write(USAGE);
      return command === undefined ? 2 : 0;
    default:
      io.stderr.write(`unknown command "${command}"\n${USAGE}`);
      return 2;
  }
}

// `recourse demo | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
