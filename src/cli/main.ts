#!/usr/bin/env node
import { chaosCommand } from './chaos-command.js';
import { runDemo } from './demo/run-demo.js';
import { simulatedBackend } from './demo/simulated-backend.js';
import { seededRandom } from '../random/seeded-random.js';

const USAGE = `usage: recourse <command>

commands:
  demo [--seed N]                    the research orchestrator demo (in-process subagents)
  chaos serve --port N --scenario F  a fault-injecting Anthropic/OpenAI-compatible server
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const io = { stdout: process.stdout, stderr: process.stderr };
  switch (command) {
    case 'demo': {
      const seedAt = rest.indexOf('--seed');
      const seed = seedAt >= 0 ? Number(rest[seedAt + 1]) : 7;
      if (!Number.isInteger(seed)) {
        io.stderr.write(`--seed must be an integer, got ${rest[seedAt + 1]}\n`);
        return 2;
      }
      const random = seededRandom(seed);
      const backend = simulatedBackend(random);
      const summary = await runDemo(io, backend);
      return summary.failed === summary.topics ? 1 : 0;
    }
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
