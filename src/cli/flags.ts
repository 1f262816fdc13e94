import { MAX_NAME_LENGTH } from '../options/validate-options.js';

// Flag declarations of the `recourse` commands. A command lists its flags once; the parser, the
// help text and the typed values all come from that list, so a new flag (a demo `--workers`, an
// `escalations` subcommand's `--store`) is one entry and nothing else.

/** A flag without a value: `--live`, `--open`. */
export interface BooleanFlag {
  readonly kind: 'boolean';
  readonly short?: string;
  readonly help: string;
}

/** A flag with a value (`--seed 7`, `--seed=7`), turned into its typed value by `parse`. */
export interface ValueFlag<T> {
  readonly kind: 'value';
  readonly short?: string;
  /** The value's placeholder in the help text: `N`, `FILE`, `URL`. */
  readonly value: string;
  readonly help: string;
  /** Throws a RangeError saying what the value must be (`must be an integer >= 1`). */
  readonly parse: (raw: string) => T;
}

/** Any flag. */
export type Flag = BooleanFlag | ValueFlag<unknown>;

/** The flags of one command, by long name (without the dashes). */
export type Flags = Readonly<Record<string, Flag>>;

/** The parsed values of `S`: a value flag gives its parsed type, a boolean flag `true`. */
export type FlagValues<S extends Flags> = {
  -readonly [K in keyof S]?: S[K] extends ValueFlag<infer T> ? T : boolean;
};

/**
 * A flag without a value.
 *
 * @example
 * const flags = { open: booleanFlag('open the report in a browser') }
 */
export function booleanFlag(help: string, short?: string): BooleanFlag {
  return { kind: 'boolean', help, ...(short === undefined ? {} : { short }) };
}

/**
 * A flag whose value is any non-empty text.
 *
 * @example
 * const flags = { scenario: textFlag('FILE', 'JSON scenario file') }
 */
export function textFlag(value: string, help: string, short?: string): ValueFlag<string> {
  return {
    kind: 'value',
    value,
    help,
    parse: (raw) => raw,
    ...(short === undefined ? {} : { short }),
  };
}

/**
 * A flag whose value is an integer in [min, max].
 *
 * @example
 * const flags = { seed: integerFlag('N', 'seed of the fault scenario (default 7)', 0, 2 ** 32 - 1) }
 */
export function integerFlag(
  value: string,
  help: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): ValueFlag<number> {
  return {
    kind: 'value',
    value,
    help,
    parse: (raw) => {
      const n = /^[+-]?\d+$/.test(raw.trim()) ? Number(raw) : Number.NaN;
      if (!Number.isSafeInteger(n) || n < min || n > max) {
        throw new RangeError(
          max === Number.MAX_SAFE_INTEGER
            ? `must be an integer >= ${min}`
            : `must be an integer between ${min} and ${max}`,
        );
      }
      return n;
    },
  };
}

/**
 * A flag whose value is one of a fixed list.
 *
 * @example
 * const flags = { backend: choiceFlag('NAME', 'where the subagents run', ['anthropic', 'simulated']) }
 */
export function choiceFlag<T extends string>(
  value: string,
  help: string,
  choices: readonly T[],
): ValueFlag<T> {
  return {
    kind: 'value',
    value,
    help: `${help} (${choices.join(', ')})`,
    parse: (raw) => {
      if (!(choices as readonly string[]).includes(raw))
        throw new RangeError(`must be one of ${choices.join(', ')}`);
      return raw as T;
    },
  };
}

/**
 * A flag whose value is a name recorded with something (`--by alice`): non-empty text of at most
 * the length every recourse name has.
 *
 * @example
 * const flags = { by: nameFlag('NAME', 'who decides') }
 */
export function nameFlag(value: string, help: string): ValueFlag<string> {
  return {
    kind: 'value',
    value,
    help,
    parse: (raw) => {
      if (raw.length > MAX_NAME_LENGTH)
        throw new RangeError(`must be at most ${MAX_NAME_LENGTH} characters`);
      return raw;
    },
  };
}

/**
 * A flag whose value is an absolute http:// or https:// URL, parsed here (a URL the WHATWG parser
 * refuses, `http://[::1`, is a usage error, not a failure of the command later).
 *
 * @example
 * const flags = { upstream: urlFlag('forward requests to this API') }
 */
export function urlFlag(help: string): ValueFlag<string> {
  return {
    kind: 'value',
    value: 'URL',
    help,
    parse: (raw) => {
      let url: URL | undefined;
      try {
        url = new URL(raw);
      } catch {
        url = undefined;
      }
      if (
        url === undefined ||
        (url.protocol !== 'http:' && url.protocol !== 'https:') ||
        url.host === ''
      )
        throw new RangeError('must be an http:// or https:// URL');
      return raw;
    },
  };
}
