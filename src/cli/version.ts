import { readFileSync } from 'node:fs';

let cached: string | undefined;

/**
 * The installed package's version, read once from its `package.json` (two levels above this
 * file both in `src/cli/` and in `dist/cli/`).
 *
 * @example
 * packageVersion() // '0.1.0'
 */
export function packageVersion(): string {
  if (cached === undefined) {
    const manifest = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as { version?: unknown };
    cached = typeof manifest.version === 'string' ? manifest.version : 'unknown';
  }
  return cached;
}
