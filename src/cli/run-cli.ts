import { closestName } from '../options/validate-options.js';
import { errorText } from '../text/safe-text.js';
import { COMMANDS } from './commands.js';
import type { CliIo, Command, CommandGroup } from './command.js';
import type { Flags } from './flags.js';
import { commandHelp, globalHelp, groupHelp } from './help-text.js';
import { parseCommandArgs } from './parse-args.js';
import { packageVersion } from './version.js';

type Entry = Command<Flags> | CommandGroup;

function names(entries: readonly Entry[]): string[] {
  return entries.map((e) => e.name);
}

function unknown(io: CliIo, where: string, word: string, known: string[]): number {
  const hint = closestName(word, known);
  const prefix = where === '' ? 'recourse' : `recourse ${where}`;
  io.stderr.write(
    `${prefix}: unknown command "${word}"${hint === undefined ? '' : ` (did you mean "${hint}"?)`}; commands: ${known.join(', ')}\n` +
      `Run "${prefix} --help" for usage.\n`,
  );
  return 2;
}

async function runCommand(
  command: Command<Flags>,
  argv: readonly string[],
  io: CliIo,
): Promise<number> {
  const parsed = parseCommandArgs(command, argv);
  if (parsed.kind === 'help') {
    io.stdout.write(commandHelp(command));
    return 0;
  }
  if (parsed.kind === 'error') {
    io.stderr.write(
      `recourse ${command.name}: ${parsed.message}\nRun "recourse ${command.name} --help" for the options.\n`,
    );
    return 2;
  }
  try {
    return await command.run({ flags: parsed.flags, positionals: parsed.positionals }, io);
  } catch (error) {
    // A failure while running (a port taken, an API key missing) is not a usage error: exit 1.
    io.stderr.write(`recourse ${command.name}: ${errorText(error)}\n`);
    if (io.env.RECOURSE_DEBUG && error instanceof Error && error.stack)
      io.stderr.write(`${error.stack}\n`);
    return 1;
  }
}

/**
 * Runs the `recourse` command line: `argv` is what follows the program name. Resolves with the
 * exit code: 0 on success and for `--help` / `--version`, 1 when a command fails while running,
 * 2 for bad arguments (the message names the command, never followed by the global usage).
 *
 * @example
 * process.exitCode = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env })
 */
export async function runCli(
  argv: readonly string[],
  io: CliIo,
  entries: readonly Entry[] = COMMANDS,
): Promise<number> {
  const [first, ...rest] = argv;
  if (first === '--version' || first === '-v') {
    io.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  if (first === '--help' || first === '-h') {
    io.stdout.write(globalHelp(packageVersion(), entries));
    return 0;
  }
  if (first === undefined) {
    io.stderr.write(globalHelp(packageVersion(), entries));
    return 2;
  }
  if (first === 'help')
    return rest.length === 0
      ? runCli(['--help'], io, entries)
      : runCli([...rest, '--help'], io, entries);
  if (first.startsWith('-')) {
    io.stderr.write(
      `recourse: unknown option ${first}; the options come after the command (recourse <command> ${first})\nRun "recourse --help" for usage.\n`,
    );
    return 2;
  }
  const entry = entries.find((e) => e.name === first);
  if (entry === undefined) return unknown(io, '', first, names(entries));
  if (!('commands' in entry)) return runCommand(entry, rest, io);

  const [sub, ...args] = rest;
  if (sub === '--help' || sub === '-h') {
    io.stdout.write(groupHelp(entry));
    return 0;
  }
  const subNames = entry.commands.map((c) => c.name.slice(entry.name.length + 1));
  if (sub === undefined || sub.startsWith('-')) {
    io.stderr.write(
      `recourse ${entry.name}: missing command (${subNames.join(', ')})\nRun "recourse ${entry.name} --help" for usage.\n`,
    );
    return 2;
  }
  const command = entry.commands.find((c) => c.name === `${entry.name} ${sub}`);
  if (command === undefined) return unknown(io, entry.name, sub, subNames);
  return runCommand(command, args, io);
}
