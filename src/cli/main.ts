#!/usr/bin/env node
import { errorText } from '../text/safe-text.js';
import { runCli } from './run-cli.js';

// `recourse demo | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `recourse: ${error instanceof Error ? (error.stack ?? errorText(error)) : errorText(error)}\n`,
    );
    process.exitCode = 1;
  },
);
