import { describe, expect, it } from 'vitest';
import type { CliIo, Command } from '../../src/cli/command.js';
import { COMMANDS } from '../../src/cli/commands.js';
import type { Flags } from '../../src/cli/flags.js';
import { runCli } from '../../src/cli/run-cli.js';

// A bad value on the command line is a usage error (exit 2, the flag or argument and the value
// named), found before the command runs, never a raw TypeError from deeper down (exit 1).

async function cli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    env: { RECOURSE_STORE: 'sqlite:/nonexistent-dir/never-opened.db' },
    signal: AbortSignal.abort(),
  };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}

const leaves: Command<Flags>[] = COMMANDS.flatMap((entry) =>
  'commands' in entry ? [...entry.commands] : [entry],
);

describe('bad values on the command line', () => {
  it.each([
    ['escalations', 'approve'],
    ['escalations', 'deny'],
    ['escalations', 'show'],
  ])('recourse %s %s "" exits 2 naming the ID', async (...words) => {
    const r = await cli(...words, '');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(`^recourse ${words.join(' ')}: ID must not be empty, got ""`),
    );
    expect(r.stderr).not.toMatch(/TypeError/);
  });

  it('every command that takes an argument refuses an empty one with exit 2', async () => {
    const taking = leaves.filter((c) => c.positionals.max > 0);
    expect(taking.map((c) => c.name).sort()).toEqual([
      'escalations approve',
      'escalations deny',
      'escalations show',
      'report',
    ]);
    for (const c of taking) {
      const r = await cli(...c.name.split(' '), '');
      expect({ command: c.name, code: r.code }).toEqual({ command: c.name, code: 2 });
      expect(r.stderr).toMatch(/must not be empty, got ""/);
    }
  });

  it.each(['http://[::1', 'ftp://example.com', 'example.com', 'http://'])(
    'recourse chaos serve --upstream %j exits 2 naming the flag and the value',
    async (url) => {
      const r = await cli('chaos', 'serve', '--upstream', url);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        `recourse chaos serve: --upstream must be an http:// or https:// URL, got "${url}"`,
      );
      expect(r.stdout).toBe('');
    },
  );

  it('a --by longer than a name may be exits 2 naming --by', async () => {
    const r = await cli('escalations', 'approve', 'esc_1', '--by', 'a'.repeat(201));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^recourse escalations approve: --by must be at most 200 characters/);
  });
});
