import { parseArgs } from 'node:util';
import { closestName } from '../options/validate-options.js';
import { errorText } from '../text/safe-text.js';
import type { Command, CommandInput } from './command.js';
import type { Flags } from './flags.js';

/** What parsing a command's arguments gave. */
export type ParsedArgs<S extends Flags> =
  | { kind: 'help' }
  | { kind: 'error'; message: string }
  | ({ kind: 'ok' } & CommandInput<S>);

type ParseArgsOptions = Record<string, { type: 'string' | 'boolean'; short?: string }>;

/**
 * Parses `argv` for `command` with `util.parseArgs`, then checks what parseArgs leaves loose:
 * unknown flags (with the closest known one), a value flag without its value (also when the next
 * word is another flag), a value given to a boolean flag, a flag given twice, positional counts,
 * each value's own rule, an empty argument (`approve ""`), and flags that contradict each other. `-h` / `--help` anywhere wins.
 *
 * @example
 * const parsed = parseCommandArgs(demoCommand, ['--seed', '3'])
 * if (parsed.kind === 'ok') parsed.flags.seed // 3
 */
export function parseCommandArgs<S extends Flags>(
  command: Command<S>,
  argv: readonly string[],
): ParsedArgs<S> {
  const options: ParseArgsOptions = { help: { type: 'boolean', short: 'h' } };
  for (const [name, flag] of Object.entries(command.flags)) {
    options[name] = {
      type: flag.kind === 'boolean' ? 'boolean' : 'string',
      ...(flag.short === undefined ? {} : { short: flag.short }),
    };
  }
  // strict: false hands back every token, so the messages below are ours and name the flag.
  const { tokens } = parseArgs({
    args: [...argv],
    options,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  if (tokens.some((t) => t.kind === 'option' && t.name === 'help')) return { kind: 'help' };

  const flags: Record<string, unknown> = {};
  const positionals: string[] = [];
  const given = new Set<string>();
  for (const token of tokens) {
    if (token.kind === 'option-terminator') continue;
    if (token.kind === 'positional') {
      positionals.push(token.value);
      continue;
    }
    const flag = command.flags[token.name];
    if (flag === undefined) {
      // A one-letter typo (-z) is too short to guess from.
      const hint =
        token.name.length > 2 ? closestName(token.name, Object.keys(command.flags)) : undefined;
      return {
        kind: 'error',
        message: `unknown option ${token.rawName}${hint === undefined ? '' : ` (did you mean --${hint}?)`}`,
      };
    }
    const shown = `--${token.name}`;
    if (given.has(token.name)) return { kind: 'error', message: `${shown} is given twice` };
    given.add(token.name);
    if (flag.kind === 'boolean') {
      if (token.value !== undefined)
        return { kind: 'error', message: `${shown} takes no value, got "${token.value}"` };
      flags[token.name] = true;
      continue;
    }
    // parseArgs takes the next word as the value even when it is another flag (`--scenario --port 1`);
    // `--scenario=--odd` is how to pass a value that starts with a dash.
    const raw = token.value;
    if (
      raw === undefined ||
      raw === '' ||
      (!token.inlineValue && raw.startsWith('-') && raw !== '-')
    ) {
      return { kind: 'error', message: `${shown} needs a value (${shown} ${flag.value})` };
    }
    try {
      flags[token.name] = flag.parse(raw);
    } catch (error) {
      return {
        kind: 'error',
        message: `${shown} ${errorText(error).replace(/^RangeError: /, '')}, got "${raw}"`,
      };
    }
  }

  for (const group of command.conflicts ?? []) {
    const clash = group.filter((name) => given.has(name));
    if (clash.length > 1)
      return {
        kind: 'error',
        message: `${clash.map((n) => `--${n}`).join(' and ')} cannot be used together`,
      };
  }
  const { min, max } = command.positionals;
  if (positionals.length > max) {
    return {
      kind: 'error',
      message:
        max === 0
          ? `unexpected argument "${positionals[0]}"`
          : `unexpected argument "${positionals[max]}" (takes at most ${max})`,
    };
  }
  if (positionals.length < min)
    return { kind: 'error', message: `missing argument: ${command.synopsis}` };
  const empty = positionals.indexOf('');
  if (empty !== -1)
    return {
      kind: 'error',
      message: `${positionalName(command, empty)} must not be empty, got ""`,
    };
  return { kind: 'ok', flags: flags as CommandInput<S>['flags'], positionals };
}

/** The placeholder of positional `index` in the synopsis (`ID`, `RUN.jsonl`), else "argument N". */
function positionalName<S extends Flags>(command: Command<S>, index: number): string {
  const words = command.synopsis.slice(command.name.length).trim().split(/\s+/);
  const end = words.findIndex((w) => w.startsWith('['));
  const names = end === -1 ? words : words.slice(0, end);
  return names[index] ?? `argument ${index + 1}`;
}
