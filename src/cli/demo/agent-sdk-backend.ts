import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentDefinition, Options } from '@anthropic-ai/claude-agent-sdk';
import { agentEnv } from '../../claude-agent-sdk/agent-env.js';
import { runQuery } from '../../claude-agent-sdk/run-query.js';
import { agentOptions } from '../../claude-agent-sdk/subagent-path.js';
import type { DemoBackend } from './demo-backend.js';
import { demoHedge, demoStallLimits, governorLine } from './demo-governor.js';
import type { Subagent } from './research-orchestrator.js';
import {
  DEEP_MODEL,
  QUICK_MODEL,
  type SeedPath,
  type SeedServers,
  startSeedServers,
} from './seed-scenario.js';

/** Options of the Claude Agent SDK backend. */
export interface AgentSdkBackendOptions {
  seed: number;
  live: boolean;
}

const agent = (role: string, model: string): AgentDefinition => ({
  description: `The ${role} subagent of a research orchestrator.`,
  prompt: `You are the ${role} subagent. Answer in three sentences, without tools.`,
  model,
  tools: [],
});

/**
 * Subagents run by the real Claude Agent SDK: each attempt is a `query()` (the native CLI) with
 * the subagent as its main agent, under `runQuery` — stall detection per message, every failure
 * shape classified, the CLI stopped on stall or abort. Offline it talks to the embedded chaos
 * server with an explicit environment and a throw-away HOME.
 *
 * @example
 * await runDemo({ stdout: process.stdout }, await agentSdkBackend({ seed: 7, live: false }))
 */
export async function agentSdkBackend(o: AgentSdkBackendOptions): Promise<DemoBackend> {
  if (o.live && !process.env.ANTHROPIC_API_KEY)
    throw new TypeError('--live needs ANTHROPIC_API_KEY in the environment');
  const chaos: SeedServers | undefined = o.live ? undefined : await startSeedServers(o.seed);
  const home = mkdtempSync(join(tmpdir(), 'recourse-demo-'));
  // Each path's CLI talks to its own server: the CLI sends its own model id for an agent's model.
  const base = (path: SeedPath): Options => ({
    env: agentEnv({
      home,
      ...(chaos ? { baseUrl: chaos[path].url } : { apiKey: process.env.ANTHROPIC_API_KEY! }),
    }),
    cwd: home,
    persistSession: false,
    settingSources: [],
    maxTurns: 2,
  });
  // The CLI is quiet while it waits on the API: its gaps are longer than a raw stream's.
  const stall = o.live
    ? demoStallLimits(10_000, 30_000, 60_000)
    : demoStallLimits(2_000, 4_000, 10_000);
  const hedge = demoHedge(o.live);
  const subagent =
    (path: SeedPath, name: string, definition: AgentDefinition): Subagent =>
    async (topic, ctx) => {
      const result = await runQuery(
        {
          prompt: `Research this topic: ${topic}`,
          options: agentOptions(name, definition, base(path)),
        },
        {
          signal: ctx.signal,
          firstItemMs: 'adaptive',
          idleMs: 'adaptive',
          adaptive: stall.options(name),
        },
      );
      return {
        text: result.result,
        sources: [`${name} via Claude Agent SDK (${result.session_id})`],
      };
    };
  return {
    title: o.live
      ? 'the real Claude Agent SDK against the Anthropic API'
      : 'the real Claude Agent SDK (native CLI) against the embedded chaos server',
    details: [
      ...(chaos ? [chaos.line({ deep: DEEP_MODEL, quick: QUICK_MODEL })] : []),
      `${governorLine(stall, hedge)} (the CLI's own watchdog waits at least 300 s) · CLAUDE_CODE_MAX_RETRIES=0`,
    ],
    subagents: {
      deep: subagent('deep', 'deep-research', agent('deep-research', DEEP_MODEL)),
      quick: subagent('quick', 'quick-search', agent('quick-search', QUICK_MODEL)),
    },
    stallLimits: stall,
    timing: {
      hedge,
      failureThreshold: 3,
      probeTimeoutMs: o.live ? 120_000 : 10_000,
      cooldownMs: o.live ? 30_000 : 5_000,
      backoffBaseMs: o.live ? 1_000 : 200,
      backoffMaxMs: o.live ? 10_000 : 1_000,
    },
    concurrency: 2,
    ...(chaos ? { injected: chaos.injected } : {}),
    close: async () => {
      await chaos?.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
