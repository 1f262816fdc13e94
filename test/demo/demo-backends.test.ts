import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadBackend } from '../../src/cli/demo/load-backend.js';
import { DEMO_BACKEND_NAMES, DEMO_BACKENDS } from '../../src/cli/demo/demo-backends.js';
import { BIN, runBin } from '../helpers/run-bin.js';

// The SDKs are optional peers: a demo backend whose SDK is missing says what to install.

const required = process.env.RECOURSE_REQUIRE_SERVICES === '1';
const dir = mkdtempSync(join(tmpdir(), 'recourse-no-sdk-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let copied = false;
/** The built package in a folder with no node_modules above it (copied once). */
function bareCopy(): string {
  if (!copied) {
    cpSync(dirname(dirname(BIN)), join(dir, 'dist'), { recursive: true });
    cpSync(join(dirname(dirname(dirname(BIN))), 'package.json'), join(dir, 'package.json'));
    copied = true;
  }
  return dir;
}

describe.skipIf(!existsSync(BIN) && !required)(
  'recourse demo with no SDK installed (the built package alone, no node_modules)',
  () => {
    it.each([
      ['openai', 'openai', 'npm install openai'],
      ['ai-sdk', '@ai-sdk/anthropic', 'npm install ai @ai-sdk/anthropic'],
      ['langchain', '@langchain/anthropic', 'npm install langchain @langchain/anthropic'],
      ['anthropic', '@anthropic-ai/sdk', 'npm install @anthropic-ai/sdk'],
      ['agent-sdk', '@anthropic-ai/claude-agent-sdk', 'npm install @anthropic-ai/claude-agent-sdk'],
    ])(
      '--backend %s names %s and how to install it; exit 1',
      (backend, pkg, install) => {
        const root = bareCopy();
        const r = spawnSync(
          process.execPath,
          [join(root, 'dist/cli/main.js'), 'demo', '--backend', backend, '--topics', '1'],
          {
            encoding: 'utf8',
            cwd: root,
            env: { PATH: process.env.PATH, HOME: process.env.HOME },
          },
        );
        expect(r.stderr).toContain(
          `recourse demo: Error: --backend ${backend} needs the package "${pkg}", which is not installed (recourse leaves the SDKs to you): ${install}\n`,
        );
        expect(r.status).toBe(1);
      },
      60_000,
    );
  },
);

describe.skipIf(!existsSync(BIN) && !required)(
  'recourse demo --help and --live per backend',
  () => {
    it('lists every backend with its one line, the SDK ones first after the default', async () => {
      expect(DEMO_BACKEND_NAMES).toEqual([
        'anthropic',
        'ai-sdk',
        'langchain',
        'openai',
        'openai-agents',
        'agent-sdk',
        'simulated',
      ]);
      const help = await runBin(['demo', '--help']);
      expect(help.code).toBe(0);
      for (const name of DEMO_BACKEND_NAMES)
        expect(help.stdout).toContain(
          `  ${name.padEnd(Math.max(...DEMO_BACKEND_NAMES.map((n) => n.length)))} ${DEMO_BACKENDS[name].summary}\n`,
        );
      expect(help.stdout).toContain('recourse demo --backend openai');
    });

    it("--live asks for the key of the backend's API", async () => {
      const openai = await runBin(['demo', '--backend', 'openai', '--live'], {
        ANTHROPIC_API_KEY: 'sk-ant-x',
      });
      expect([openai.code, openai.stderr.split('\n')[0]]).toEqual([
        2,
        'recourse demo: --live needs OPENAI_API_KEY in the environment',
      ]);
      const aiSdk = await runBin(['demo', '--backend', 'ai-sdk', '--live'], {
        OPENAI_API_KEY: 'sk-x',
      });
      expect([aiSdk.code, aiSdk.stderr.split('\n')[0]]).toEqual([
        2,
        'recourse demo: --live needs ANTHROPIC_API_KEY in the environment',
      ]);
    });
  },
);

describe('loadBackend', () => {
  it('passes other failures through unchanged, and a missing package that is not one of its own', async () => {
    const boom = new Error('boom');
    await expect(loadBackend('x', ['openai'], () => Promise.reject(boom))).rejects.toBe(boom);
    const other = Object.assign(new Error("Cannot find package 'zod' imported from /x.js"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    await expect(loadBackend('x', ['openai'], () => Promise.reject(other))).rejects.toBe(other);
    const ours = Object.assign(new Error("Cannot find package 'openai' imported from /x.js"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    await expect(loadBackend('x', ['openai'], () => Promise.reject(ours))).rejects.toMatchObject({
      message: expect.stringContaining('npm install openai'),
      cause: ours,
    });
  });
});
