import { chaosGroup } from './chaos-serve-command.js';
import type { Command, CommandGroup } from './command.js';
import { demoCommand } from './demo-command.js';
import { escalationsGroup } from './escalations-command.js';
import type { Flags } from './flags.js';
import { reportCommand } from './report-command.js';

/**
 * Every `recourse` command, in the order `recourse --help` lists them.
 *
 * @example
 * await runCli(process.argv.slice(2), io, COMMANDS)
 */
export const COMMANDS: ReadonlyArray<Command<Flags> | CommandGroup> = [
  demoCommand,
  reportCommand,
  chaosGroup,
  escalationsGroup,
];
