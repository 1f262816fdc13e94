import type { Command, CommandGroup } from './command.js';
import type { Flags } from './flags.js';

function table(rows: ReadonlyArray<readonly [string, string]>): string {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`.trimEnd()).join('\n');
}

function flagRows(flags: Flags): Array<[string, string]> {
  const rows: Array<[string, string]> = Object.entries(flags).map(([name, flag]) => [
    `${flag.short === undefined ? '    ' : `-${flag.short}, `}--${name}${flag.kind === 'value' ? ` ${flag.value}` : ''}`,
    flag.help,
  ]);
  rows.push(['-h, --help', 'show this help']);
  return rows;
}

/**
 * The `--help` text of one command: synopsis, description, options, examples.
 *
 * @example
 * io.stdout.write(commandHelp(reportCommand))
 */
export function commandHelp(command: Command<Flags>): string {
  const parts = [
    `Usage: recourse ${command.synopsis}`,
    command.description,
    `Options:\n${table(flagRows(command.flags))}`,
  ];
  if (command.examples !== undefined && command.examples.length > 0)
    parts.push(`Examples:\n${command.examples.map((e) => `  ${e}`).join('\n')}`);
  return `${parts.filter((p) => p !== '').join('\n\n')}\n`;
}

/**
 * The `--help` text of a group of commands (`recourse chaos --help`).
 *
 * @example
 * io.stdout.write(groupHelp(chaosGroup))
 */
export function groupHelp(group: CommandGroup): string {
  const rows = group.commands.map((c): [string, string] => [
    c.name.slice(group.name.length + 1),
    c.summary,
  ]);
  return `Usage: recourse ${group.name} <command> [options]\n\n${group.summary}\n\nCommands:\n${table(rows)}\n\nRun "recourse ${group.name} <command> --help" for a command's options.\n`;
}

/**
 * The global `recourse --help` text: every command with its one-line summary.
 *
 * @example
 * io.stdout.write(globalHelp('0.1.0', COMMANDS))
 */
export function globalHelp(
  version: string,
  entries: ReadonlyArray<Command<Flags> | CommandGroup>,
): string {
  const rows: Array<[string, string]> = [];
  for (const entry of entries) {
    if ('commands' in entry) for (const c of entry.commands) rows.push([c.name, c.summary]);
    else rows.push([entry.name, entry.summary]);
  }
  return [
    `recourse ${version} — resilience for AI-agent loops`,
    'Usage: recourse <command> [options]',
    `Commands:\n${table(rows)}`,
    `Options:\n${table([
      ['-h, --help', 'show this help'],
      ['-v, --version', 'print the version'],
    ])}`,
    'Run "recourse <command> --help" for a command\'s options.\n',
  ].join('\n\n');
}
