// Runs a markdown example the way a reader would run it after copying it into a file: as an ES
// module importing the built package by name, in a fresh working directory, with the SDKs pointed
// at a chaos server through the environment variables they read themselves
// (ANTHROPIC_BASE_URL, OPENAI_BASE_URL, …) — the example's code is not changed for the test.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import {
  type CannedAnswers,
  type ChaosServer,
  type Scenario,
  startChaosServer,
} from '../../src/chaos/index.js';
import { moduleSource } from './compile-examples.js';
import type { MarkdownExample } from './markdown-examples.js';

export interface RunResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
  /** Requests the chaos server saw during the run. */
  readonly requests: ChaosServer['requests'];
}

export const DEFAULT_RUN_TIMEOUT_MS = 30_000;

/** Transpiles and runs `example` in a child process against its own chaos server. */
export async function runExample(
  example: MarkdownExample,
  dir: string,
  name: string,
): Promise<RunResult> {
  const { source } = moduleSource(example);
  const js = ts.transpileModule(source, {
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: true,
    },
    fileName: `${name}.ts`,
  }).outputText;
  const file = join(dir, `${name}.mjs`);
  writeFileSync(file, js);
  const chaos = await startChaosServer({
    ...(example.run?.scenario === undefined ? {} : { scenario: example.run.scenario as Scenario }),
    ...(example.run?.answers === undefined
      ? {}
      : { answers: example.run.answers as CannedAnswers }),
  });
  const cwd = mkdtempSync(join(tmpdir(), 'recourse-example-'));
  try {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ANTHROPIC_BASE_URL: chaos.url,
      ANTHROPIC_API_KEY: 'test-key',
      OPENAI_BASE_URL: `${chaos.url}/v1`,
      OPENAI_API_KEY: 'test-key',
      NO_COLOR: '1',
      HOME: cwd, // an example never writes into the real home (the Agent SDK's CLI keeps its config there)
    };
    const timeoutMs = example.run?.timeoutMs ?? DEFAULT_RUN_TIMEOUT_MS;
    const child = spawn(process.execPath, [file], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.on('close', (c, s) => resolve([c, s])),
    );
    clearTimeout(timer);
    return { code, signal, stdout, stderr, timedOut, requests: [...chaos.requests] };
  } finally {
    await chaos.close();
    rmSync(cwd, { recursive: true, force: true });
  }
}

/** Why a run does not count as a success, or undefined when it does. */
export function runFailure(example: MarkdownExample, r: RunResult): string | undefined {
  const where = `${example.file}:${example.line}`;
  if (r.timedOut)
    return `${where} did not finish within ${example.run?.timeoutMs ?? DEFAULT_RUN_TIMEOUT_MS} ms\n${r.stdout}\n${r.stderr}`;
  if (r.code !== 0) return `${where} exited with ${r.code ?? r.signal}\n${r.stdout}\n${r.stderr}`;
  const expected = example.run?.stdout;
  if (expected !== undefined && !new RegExp(expected).test(r.stdout)) {
    return `${where}: stdout does not match /${expected}/:\n${r.stdout}\n${r.stderr}`;
  }
  const stderr = example.run?.stderr;
  if (stderr === undefined ? r.stderr !== '' : !new RegExp(stderr).test(r.stderr)) {
    return `${where}: stderr ${stderr === undefined ? 'is not empty' : `does not match /${stderr}/`}:\n${r.stderr}`;
  }
  return undefined;
}
