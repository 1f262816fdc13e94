import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Options } from '@anthropic-ai/claude-agent-sdk';
import {
  type ChaosServer,
  type ChaosServerOptions,
  startChaosServer,
} from '../../src/chaos/index.js';
import { agentEnv, type AgentEnvOptions } from '../../src/claude-agent-sdk/index.js';

const require = createRequire(import.meta.url);

/** The native CLI the SDK runs, or why it is not there. */
export function cliBinary(): { path: string } | { missing: string } {
  try {
    const path = require.resolve(
      `@anthropic-ai/claude-agent-sdk-${process.platform}-${process.arch}/claude`,
    );
    return existsSync(path) ? { path } : { missing: `${path} does not exist` };
  } catch (error) {
    return {
      missing: `the CLI package for ${process.platform}-${process.arch} is not installed (${(error as Error).message.split('\n')[0]})`,
    };
  }
}

/** Live (non-zombie) children of this process that run the Claude Code CLI, by scanning /proc. */
export function cliChildren(): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the command name, which is in parentheses and may contain spaces.
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(ppid) !== process.pid || state === 'Z') continue;
      let exe = '';
      try {
        exe = readlinkSync(`/proc/${entry}/exe`);
      } catch {
        exe = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0')[0] ?? '';
      }
      if (/claude/.test(exe)) found.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/** Whether `pid` still exists (and is not a zombie). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Polls until no CLI child is left; resolves with the time it took, or rejects with the survivors. */
export async function waitNoCli(withinMs: number): Promise<number> {
  const start = Date.now();
  for (;;) {
    const left = cliChildren();
    if (left.length === 0) return Date.now() - start;
    if (Date.now() - start > withinMs)
      throw new Error(`CLI processes still alive after ${withinMs} ms: ${left.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Runs `fn` with a chaos server and a throw-away HOME/cwd, then cleans both up. */
export async function withAgentChaos<T>(
  serverOptions: ChaosServerOptions,
  fn: (ctx: {
    chaos: ChaosServer;
    options: (extra?: Options, env?: AgentEnvOptions) => Options;
    home: string;
  }) => Promise<T>,
): Promise<T> {
  const chaos = await startChaosServer({ port: 0, ...serverOptions });
  const home = mkdtempSync(join(tmpdir(), 'recourse-agent-'));
  const options = (extra: Options = {}, env: AgentEnvOptions = {}): Options => ({
    env: agentEnv({ baseUrl: chaos.url, home, ...env }),
    cwd: home,
    persistSession: false,
    settingSources: [],
    ...extra,
  });
  try {
    return await fn({ chaos, options, home });
  } finally {
    await chaos.close();
    // A CLI being stopped in the background may still write under HOME for a few ms.
    await waitNoCli(3000).catch(() => {});
    rmSync(home, { recursive: true, force: true, maxRetries: 3 });
  }
}
