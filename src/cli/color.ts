import type { CliOutput } from './command.js';

/**
 * True when `out` may carry ANSI colours: it is a terminal, `NO_COLOR` is unset or empty
 * (https://no-color.org) and `TERM` is not `dumb`. `FORCE_COLOR` (non-empty, not `0`) turns
 * colour on even for a pipe.
 *
 * @example
 * const color = colorEnabled(process.stdout, process.env)
 */
export function colorEnabled(
  out: CliOutput,
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0')
    return true;
  return out.isTTY === true && env.TERM !== 'dumb';
}
