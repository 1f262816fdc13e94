import { describe, expect, it } from 'vitest';
import { command } from '../../src/cli/command.js';
import { booleanFlag, choiceFlag, integerFlag, textFlag } from '../../src/cli/flags.js';
import { commandHelp } from '../../src/cli/help-text.js';
import { parseCommandArgs } from '../../src/cli/parse-args.js';

const cmd = command({
  name: 'report',
  summary: 's',
  synopsis: 'report RUN.jsonl [-o FILE]',
  description: 'd',
  flags: {
    output: textFlag('FILE', 'where to write', 'o'),
    open: booleanFlag('open it'),
    workers: integerFlag('N', 'processes', 1, 64),
    store: choiceFlag('KIND', 'store', ['memory', 'redis']),
    a: booleanFlag('a'),
    b: booleanFlag('b'),
  },
  positionals: { min: 1, max: 1 },
  conflicts: [['a', 'b']],
  run: async () => 0,
});

const parse = (...argv: string[]) => parseCommandArgs(cmd, argv);

describe('parseCommandArgs', () => {
  it('parses long, inline, short and terminated forms into typed values', () => {
    expect(parse('run.jsonl', '-o', 'r.html', '--workers=4', '--open', '--store', 'redis')).toEqual(
      {
        kind: 'ok',
        flags: { output: 'r.html', workers: 4, open: true, store: 'redis' },
        positionals: ['run.jsonl'],
      },
    );
    expect(parse('--output=-', '--', '--odd-name.jsonl')).toEqual({
      kind: 'ok',
      flags: { output: '-' },
      positionals: ['--odd-name.jsonl'],
    });
    expect(parse('x', '--output=--weird')).toMatchObject({
      kind: 'ok',
      flags: { output: '--weird' },
    });
  });

  it('names the flag and the value in every problem', () => {
    expect(parse('x', '--workers', '65')).toEqual({
      kind: 'error',
      message: '--workers must be an integer between 1 and 64, got "65"',
    });
    expect(parse('x', '--workers', '2.5')).toEqual({
      kind: 'error',
      message: '--workers must be an integer between 1 and 64, got "2.5"',
    });
    expect(parse('x', '--workers', '')).toEqual({
      kind: 'error',
      message: '--workers needs a value (--workers N)',
    });
    expect(parse('x', '-o')).toEqual({
      kind: 'error',
      message: '--output needs a value (--output FILE)',
    });
    expect(parse('x', '--open=no')).toEqual({
      kind: 'error',
      message: '--open takes no value, got "no"',
    });
    expect(parse('x', '-o', 'a', '--output', 'b')).toEqual({
      kind: 'error',
      message: '--output is given twice',
    });
    expect(parse('x', '--a', '--b')).toEqual({
      kind: 'error',
      message: '--a and --b cannot be used together',
    });
    expect(parse('x', '-z')).toEqual({ kind: 'error', message: 'unknown option -z' });
    expect(parse('x', '--ouptut', 'y')).toEqual({
      kind: 'error',
      message: 'unknown option --ouptut (did you mean --output?)',
    });
    expect(parse()).toEqual({
      kind: 'error',
      message: 'missing argument: report RUN.jsonl [-o FILE]',
    });
    expect(parse('x', 'y')).toEqual({
      kind: 'error',
      message: 'unexpected argument "y" (takes at most 1)',
    });
  });

  it('lets --help win anywhere, even after a bad flag', () => {
    expect(parse('--nope', '-h')).toEqual({ kind: 'help' });
    expect(parse('--workers', '0', '--help')).toEqual({ kind: 'help' });
  });

  it('documents every flag in the help text', () => {
    const help = commandHelp(cmd);
    expect(help).toContain('-o, --output FILE');
    expect(help).toContain('--workers N');
    expect(help).toMatch(/--store KIND +store \(memory, redis\)/);
    expect(help).toContain('-h, --help');
  });
});
