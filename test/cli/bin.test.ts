import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.js';
import { BIN, runBin } from '../helpers/run-bin.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const VERSION = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
).version;
const built = existsSync(BIN);
// CI builds first (npm test = build + vitest), so there the bin must exist.
const required = process.env.RECOURSE_REQUIRE_SERVICES === '1';
if (!built)
  console.warn(
    `${required ? 'FAILING' : 'skipping'} the bin tests: ${BIN} is missing (run npm run build)`,
  );

const leafNames = COMMANDS.flatMap((e) =>
  'commands' in e ? e.commands.map((c) => c.name) : [e.name],
);
const groupNames = COMMANDS.filter((e) => 'commands' in e).map((e) => e.name);

describe.skipIf(!built && !required)('the recourse bin: help, version, usage errors', () => {
  it('--version prints the package version and exits 0', async () => {
    for (const flag of ['--version', '-v']) {
      const r = await runBin([flag]);
      expect(r).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    }
  });

  it('--help lists every command and exits 0; no command at all prints it to stderr and exits 2', async () => {
    const help = await runBin(['--help']);
    expect(help.code).toBe(0);
    for (const name of leafNames) expect(help.stdout).toContain(`  ${name}`);
    expect(help.stdout).toContain(`recourse ${VERSION}`);
    const bare = await runBin([]);
    expect(bare.code).toBe(2);
    expect(bare.stdout).toBe('');
    expect(bare.stderr).toBe(help.stdout);
  });

  it.each(leafNames)(
    'recourse %s --help (and -h, and recourse help …) exits 0 with its options',
    async (name) => {
      const words = name.split(' ');
      const long = await runBin([...words, '--help']);
      expect(long.code).toBe(0);
      expect(long.stderr).toBe('');
      expect(long.stdout).toMatch(new RegExp(`^Usage: recourse ${name}\\b`));
      expect(long.stdout).toContain('-h, --help');
      expect(await runBin([...words, '-h'])).toEqual(long);
      expect(await runBin(['help', ...words])).toEqual(long);
      // help wins over arguments that would otherwise be an error
      expect(await runBin([...words, '--no-such-flag', '--help'])).toEqual(long);
    },
  );

  it.each(groupNames)('recourse %s --help lists its commands and exits 0', async (name) => {
    const r = await runBin([name, '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Usage: recourse ${name} <command>`);
  });

  it.each([
    [
      ['demo', '--agent-sdk', '--simulated'],
      'recourse demo: --agent-sdk and --simulated cannot be used together',
    ],
    [
      ['demo', '--backend', 'anthropic', '--simulated'],
      'recourse demo: --backend and --simulated cannot be used together',
    ],
    [
      ['demo', '--live', '--simulated'],
      'recourse demo: --live and --simulated cannot be used together',
    ],
    [
      ['demo', '--backend', 'simulated', '--live'],
      'recourse demo: --live cannot be used with --backend simulated',
    ],
    [['demo', '--live'], 'recourse demo: --live needs ANTHROPIC_API_KEY in the environment'],
    [
      ['demo', '--seed', 'x'],
      'recourse demo: --seed must be an integer between 0 and 4294967295, got "x"',
    ],
    [
      ['demo', '--topics', '0'],
      'recourse demo: --topics must be an integer between 1 and 20, got "0"',
    ],
    [['demo', '--topics'], 'recourse demo: --topics needs a value (--topics N)'],
    [
      ['demo', '--backend', 'gpt'],
      'recourse demo: --backend must be one of anthropic, ai-sdk, langchain, openai, openai-agents, agent-sdk, simulated, got "gpt"',
    ],
    [
      ['demo', '--simulatd'],
      'recourse demo: unknown option --simulatd (did you mean --simulated?)',
    ],
    [['demo', 'now'], 'recourse demo: unexpected argument "now"'],
    [['chaos'], 'recourse chaos: missing command (serve, mcp)'],
    [['chaos', 'serve', '--port', '-1'], 'recourse chaos serve: --port needs a value (--port N)'],
    [['demoo'], 'recourse: unknown command "demoo" (did you mean "demo"?)'],
    [['--seed', '3'], 'recourse: unknown option --seed; the options come after the command'],
  ])('%j exits 2 with the command named and no usage dump', async (args, message) => {
    const r = await runBin(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.startsWith(message)).toBe(true);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(2);
    expect(r.stderr).not.toContain('Commands:');
  });
});

// The live view needs a terminal: `script` (util-linux) runs the bin on a pseudo-terminal.
const hasScript = (() => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (!hasScript)
  console.warn(
    `${required ? 'FAILING' : 'skipping'} the terminal tests: util-linux "script" is not installed`,
  );

const ESC = '\x1b';
const SGR = new RegExp(`${ESC}\\[[0-9;]*m`);
const CSI = new RegExp(`${ESC}\\[[0-9;?]*[A-Za-z]`, 'g');
const visible = (line: string): string => line.replace(CSI, '').replace(/\r$/, '');

interface TerminalRun {
  output: string;
  code: number | null;
  /** The pseudo-terminal's device, once the command has started. */
  tty: Promise<string>;
  /** Resolves when the output contains `text`. */
  waitFor(text: string): Promise<void>;
  done: Promise<void>;
}

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'recourse-bin-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function inTerminal(
  args: string[],
  env: Record<string, string>,
  size: { cols: number; rows: number },
): TerminalRun {
  const ttyFile = join(dir, `tty-${Math.random().toString(36).slice(2)}`);
  const quoted = args.map((a) => `'${a}'`).join(' ');
  const command = `stty cols ${size.cols} rows ${size.rows}; tty > '${ttyFile}'; exec '${process.execPath}' '${BIN}' ${quoted}`;
  const child = spawn('script', ['-qefc', command, '/dev/null'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH, HOME: process.env.HOME, TERM: 'xterm-256color', ...env },
  });
  const state: TerminalRun = {
    output: '',
    code: null,
    tty: (async () => {
      for (let i = 0; i < 500; i++) {
        const text = await readFile(ttyFile, 'utf8').catch(() => '');
        if (text.trim() !== '') return text.trim();
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error('the terminal never started');
    })(),
    waitFor: async (text) => {
      for (let i = 0; i < 1500 && !state.output.includes(text); i++)
        await new Promise((r) => setTimeout(r, 10));
      if (!state.output.includes(text))
        throw new Error(
          `never saw ${JSON.stringify(text)} in ${JSON.stringify(state.output.slice(-500))}`,
        );
    },
    done: new Promise((resolve) =>
      child.on('close', (code) => {
        state.code = code;
        resolve();
      }),
    ),
  };
  child.stdout.on('data', (c: Buffer) => (state.output += c.toString()));
  return state;
}

describe.skipIf((!built || !hasScript) && !required)('the demo on a terminal', () => {
  it('draws the live table in colour, and without any colour under NO_COLOR', async () => {
    const coloured = inTerminal(
      ['demo', '--simulated', '--topics', '3', '--report', join(dir, 'coloured.html')],
      {},
      { cols: 120, rows: 40 },
    );
    const plain = inTerminal(
      ['demo', '--simulated', '--topics', '3', '--report', join(dir, 'plain.html')],
      { NO_COLOR: '1' },
      { cols: 120, rows: 40 },
    );
    await Promise.all([coloured.done, plain.done]);
    expect(coloured.code).toBe(0);
    expect(plain.code).toBe(0);
    expect(coloured.output).toMatch(SGR);
    // still the live table (redrawn in place), only without colour
    expect(plain.output).toContain('\x1b[2K');
    expect(plain.output).toContain('breakers deep-research=');
    expect(plain.output).not.toMatch(SGR);
  });

  it('redraws the live view to the new size when the terminal is resized', async () => {
    const t = inTerminal(
      ['demo', '--simulated', '--report', join(dir, 'resized.html')],
      { NO_COLOR: '1' },
      { cols: 120, rows: 40 },
    );
    await t.waitFor('breakers deep-research=');
    const before = t.output.length;
    // Resizing the pty sends SIGWINCH to the demo, as a terminal window does.
    execFileSync('stty', ['-F', await t.tty, 'cols', '60', 'rows', '12']);
    await t.done;
    expect(t.code).toBe(0);
    const wide = t.output.slice(0, before).split('\n').map(visible);
    expect(Math.max(...wide.map((l) => l.length))).toBeGreaterThan(60);

    const after = t.output.slice(before);
    const cleared = after.indexOf('\x1b[2J');
    expect(cleared).toBeGreaterThanOrEqual(0);
    const frames = after.slice(cleared, after.indexOf('\neditor — ')).split('\n').map(visible);
    expect(Math.max(...frames.map((l) => l.length))).toBeLessThanOrEqual(59);
    // after the live view, the editor's lines (a re-plan's summary is a paragraph) keep to the width too
    const editor = after
      .slice(after.indexOf('\neditor — '), after.indexOf('\nsummary'))
      .split('\n')
      .map(visible);
    expect(editor.some((l) => l.includes('re-plan'))).toBe(true);
    expect(Math.max(...editor.map((l) => l.length))).toBeLessThanOrEqual(59);
    // 12 rows: the table keeps to 11 lines and says what it hides
    expect(after).toContain('not shown (the terminal is too short)');
    const lastHeader = frames.findLastIndex((l) => l.startsWith('topic '));
    const lastFrame = frames.slice(lastHeader).filter((l) => l.trim() !== '');
    expect(lastFrame.at(-1)).toMatch(/^last event/);
    expect(lastFrame.length).toBeLessThanOrEqual(11);
  });
});
