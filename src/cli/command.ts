import type { FlagValues, Flags } from './flags.js';

/** Where a command writes and what it reads from its surroundings (injectable for in-process runs). */
export interface CliIo {
  stdout: CliOutput;
  stderr: CliOutput;
  /** The environment (`NO_COLOR`, `BROWSER`, `ANTHROPIC_API_KEY`, …). */
  env: Readonly<Record<string, string | undefined>>;
  /** Stops a long-running command (chaos serve) like SIGINT does. */
  signal?: AbortSignal;
}

/** A stream a command writes to; `isTTY`, `columns`, `rows` and `on('resize')` when it is a terminal. */
export interface CliOutput {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
  rows?: number;
  on?(event: 'resize', listener: () => void): unknown;
  off?(event: 'resize', listener: () => void): unknown;
}

/** What a command receives once its arguments are parsed and checked. */
export interface CommandInput<S extends Flags> {
  flags: FlagValues<S>;
  positionals: string[];
}

/** One leaf command (`demo`, `chaos serve`, `report`). */
export interface Command<S extends Flags = Flags> {
  /** The words after `recourse`: `demo`, `chaos serve`. */
  readonly name: string;
  /** One line for the list of commands. */
  readonly summary: string;
  /** The synopsis after `recourse `: `report RUN.jsonl [-o FILE] [--open]`. */
  readonly synopsis: string;
  /** Paragraphs shown between the synopsis and the options. */
  readonly description: string;
  readonly flags: S;
  /** How many positional arguments it takes. */
  readonly positionals: { readonly min: number; readonly max: number };
  /** Groups of flags that cannot be given together (`--agent-sdk`, `--simulated`). */
  readonly conflicts?: ReadonlyArray<ReadonlyArray<keyof S & string>>;
  readonly examples?: readonly string[];
  /** Resolves with the exit code; bad input found late goes through {@link usageError}. */
  run(input: CommandInput<S>, io: CliIo): Promise<number>;
}

/** Commands under one word: `chaos serve`, `escalations list`. */
export interface CommandGroup {
  readonly name: string;
  readonly summary: string;
  readonly commands: readonly Command<Flags>[];
}

/**
 * Defines a command with its flags typed from their declarations.
 *
 * @example
 * const hello = command({ name: 'hello', summary: 'greets', synopsis: 'hello', description: '', flags: {},
 *   positionals: { min: 0, max: 0 }, run: async (_, io) => (io.stdout.write('hi\n'), 0) })
 */
export function command<S extends Flags>(spec: Command<S>): Command<Flags> {
  return spec as unknown as Command<Flags>;
}

/**
 * Reports bad input the way every command does: `recourse <command>: <message>`, a pointer to the
 * command's help (never the global usage), and exit code 2.
 *
 * @example
 * if (!existsSync(file)) return usageError(io, 'report', `cannot read ${file}`)
 */
export function usageError(io: CliIo, name: string, message: string): number {
  io.stderr.write(`recourse ${name}: ${message}\nRun "recourse ${name} --help" for the options.\n`);
  return 2;
}
