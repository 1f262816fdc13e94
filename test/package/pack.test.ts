// The package as a user gets it: a copy of the repository without dist/ (a clean clone: tracked
// files and new ones not ignored), `npm pack` there (prepack builds dist/), and the tarball
// installed into a new project that compiles, runs and calls the bin. One pack and one install for
// the whole file: every test below reads what beforeAll made.
import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  devDependencies: Record<string, string>;
};

let work = '';
let tarball = '';
let packed: string[] = [];
let consumer = '';
let installed = '';

async function sh(
  cmd: string,
  args: string[],
  cwd: string,
  timeout = 240_000,
): Promise<{ stdout: string; stderr: string }> {
  try {
    return await run(cmd, args, { cwd, timeout, maxBuffer: 64 * 1024 * 1024, env: process.env });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${cmd} ${args.join(' ')} failed in ${cwd}: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`,
    );
  }
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'recourse-pack-'));
  const clone = join(work, 'clone');
  const { stdout: listed } = await sh(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    ROOT,
  );
  for (const file of listed.split('\0')) {
    if (file === '' || !existsSync(join(ROOT, file))) continue; // deleted in the work tree
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    cpSync(join(ROOT, file), join(clone, file));
  }
  expect(existsSync(join(clone, 'dist'))).toBe(false);
  // The clone's dependencies are the repository's (an `npm ci` there would only repeat them).
  symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'), 'dir');

  const { stdout } = await sh(
    'npm',
    ['pack', '--json', '--pack-destination', work],
    clone,
    600_000,
  );
  const report = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  tarball = join(work, report[0]!.filename);
  packed = report[0]!.files.map((f) => f.path);

  consumer = join(work, 'consumer');
  mkdirSync(consumer);
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  await sh(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      tarball,
      `typescript@${manifest.devDependencies.typescript}`,
      `@types/node@${manifest.devDependencies['@types/node']}`,
    ],
    consumer,
    600_000,
  );
  installed = join(consumer, 'node_modules', manifest.name);
}, 1_200_000);

afterAll(() => {
  if (work !== '') rmSync(work, { recursive: true, force: true });
});

describe('npm pack of a clean clone', () => {
  it('holds the built entry, its types, the release files and the docs; no sources, no build state', () => {
    // bench/NOTES.md ships because BENCHMARKS.md links it; nothing else of bench/ does.
    for (const file of [
      'dist/index.js',
      'dist/index.d.ts',
      'dist/testing/index.js',
      'dist/cli/main.js',
      'LICENSE',
      'CHANGELOG.md',
      'README.md',
      'BENCHMARKS.md',
      'bench/NOTES.md',
      'docs/README.md',
      'docs/chaos-server.md',
      'docs/runtimes.md',
    ]) {
      expect(packed, file).toContain(file);
    }
    expect(
      packed.filter(
        (f) =>
          (/^(src|test|bench|tools)\//.test(f) && f !== 'bench/NOTES.md') ||
          f.endsWith('.tsbuildinfo') ||
          f.endsWith('.map'),
      ),
    ).toEqual([]);
  });

  it('has every link of the README and of the docs resolve to a file inside the package', () => {
    const broken: string[] = [];
    for (const page of packed.filter((f) => f.endsWith('.md'))) {
      const text = readFileSync(join(installed, page), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!) || target!.startsWith('#')) continue;
        const path = join(dirname(page), target!.split('#')[0]!);
        if (!packed.includes(path)) broken.push(`${page} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('passes publint with nothing to report', async () => {
    const { stdout } = await sh(
      process.execPath,
      [join(ROOT, 'node_modules/publint/src/cli.js'), 'run', tarball, '--strict'],
      work,
    );
    expect(stdout).toContain('All good!');
  });

  it('passes @arethetypeswrong/cli for an ESM-only package on every entry (node16 from ESM, bundler)', async () => {
    const { stdout } = await sh(
      process.execPath,
      [
        join(ROOT, 'node_modules/@arethetypeswrong/cli/dist/index.js'),
        tarball,
        '--profile',
        'esm-only',
        '--format',
        'json',
      ],
      work,
    );
    const result = JSON.parse(stdout) as {
      analysis: {
        entrypoints: Record<string, unknown>;
        problems: Array<{ kind: string; entrypoint?: string; resolutionKind?: string }>;
      };
    };
    // ESM only (ARCHITECTURE.md §runtimes): node10 and require() from node16-CJS are no target.
    const counted = result.analysis.problems.filter(
      (p) => p.resolutionKind !== 'node10' && p.resolutionKind !== 'node16-cjs',
    );
    expect(counted).toEqual([]);
    expect(Object.keys(result.analysis.entrypoints)).toContain('./testing');
  });
});

const PROGRAM = `import { type CallContext, CircuitOpenError, circuitBreaker, fallback, pipeline, retry, timeout } from 'agent-recourse'
import { VirtualClock } from 'agent-recourse/testing'

const clock = new VirtualClock()
let calls = 0
const flaky = async (ctx: CallContext): Promise<string> => {
  calls++
  if (ctx.attempt < 3) throw Object.assign(new Error('overloaded'), { status: 529 })
  return 'ok after ' + ctx.attempt
}
const policy = pipeline(retry({ maxAttempts: 3, clock }), timeout(1_000, { clock }))
const pending = policy.execute(flaky)
await clock.runAll()
const first: string = await pending

const breaker = circuitBreaker({ failureThreshold: 1, cooldownMs: 60_000, clock })
await breaker.execute(async () => { throw Object.assign(new Error('down'), { status: 503 }) }).catch(() => {})
const open = await breaker.execute(async () => 'never').catch((e: unknown) => e instanceof CircuitOpenError)
const served = await fallback([
  { name: 'primary', policy: breaker, run: async () => 'primary' },
  { name: 'backup', run: async () => 'backup' },
]).execute()
console.log(JSON.stringify({ first, calls, open, servedBy: served.servedBy, value: served.value }))
`;

const STRICT = {
  strict: true,
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  verbatimModuleSyntax: true,
  noImplicitOverride: true,
  skipLibCheck: false,
  target: 'ES2022',
  lib: ['ES2023'],
  types: ['node'],
};

describe('the tarball installed into a new project', () => {
  it('compiles a strict program under module nodenext, and runs it', async () => {
    const dir = join(consumer, 'nodenext');
    mkdirSync(dir);
    writeFileSync(join(dir, 'main.ts'), PROGRAM);
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          ...STRICT,
          module: 'nodenext',
          moduleResolution: 'nodenext',
          outDir: 'out',
        },
        include: ['main.ts'],
      }),
    );
    await sh(
      process.execPath,
      [join(consumer, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'],
      dir,
    );
    const { stdout } = await sh(process.execPath, ['out/main.js'], dir);
    expect(JSON.parse(stdout)).toEqual({
      first: 'ok after 3',
      calls: 3,
      open: true,
      servedBy: 'backup',
      value: 'backup',
    });
  });

  it('compiles the same program under moduleResolution bundler', async () => {
    const dir = join(consumer, 'bundler');
    mkdirSync(dir);
    writeFileSync(join(dir, 'main.ts'), PROGRAM);
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { ...STRICT, module: 'esnext', moduleResolution: 'bundler', noEmit: true },
        include: ['main.ts'],
      }),
    );
    await sh(
      process.execPath,
      [join(consumer, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'],
      dir,
    );
  });

  it('runs the bin: npx agent-recourse --version prints the version, and so does recourse', async () => {
    const a = await sh('npx', ['--no-install', 'agent-recourse', '--version'], consumer);
    expect(a.stdout.trim()).toBe(manifest.version);
    const b = await sh('npx', ['--no-install', 'recourse', '--version'], consumer);
    expect(b.stdout.trim()).toBe(manifest.version);
  });

  it('points chaos serve --help to its page at a path that exists in the installed package', async () => {
    const { stdout } = await sh(
      'npx',
      ['--no-install', 'agent-recourse', 'chaos', 'serve', '--help'],
      consumer,
    );
    const page = join(installed, 'docs', 'chaos-server.md');
    expect(stdout.replace(/\s+/g, ' ')).toContain(page);
    expect(existsSync(page)).toBe(true);
  });
});
