import Anthropic from '@anthropic-ai/sdk';
import { anthropicClientOptions } from '../../anthropic/client-options.js';
import { streamMessage } from '../../anthropic/stream-message.js';
import type { DemoBackend } from './demo-backend.js';
import { demoHedge, demoStreamStallLimits, governorLine, sdkDemoTiming } from './demo-governor.js';
import type { Subagent } from './research-orchestrator.js';
import { DEEP_MODEL, QUICK_MODEL, type SeedServers, startSeedServers } from './seed-scenario.js';

/** Options of the Anthropic SDK backend. */
export interface AnthropicBackendOptions {
  seed: number;
  /** Talk to the real API (needs ANTHROPIC_API_KEY) instead of the embedded chaos server. */
  live: boolean;
}

const textOf = (content: ReadonlyArray<{ type: string; text?: string }>): string =>
  content
    .filter((b) => b.type === 'text')
    .map((b) => b.text ?? '')
    .join('');

/**
 * Subagents as streamed messages of the real `@anthropic-ai/sdk` client, against the embedded
 * chaos server (seed scenario) or, with `live`, the real API. Each call streams under `watch`
 * (first event, idle) via `streamMessage`; the SDK's own retries are off, so recourse's retry
 * layer is the only one.
 *
 * @example
 * await runDemo({ stdout: process.stdout }, await anthropicBackend({ seed: 7, live: false }))
 */
export async function anthropicBackend(o: AnthropicBackendOptions): Promise<DemoBackend> {
  let chaos: SeedServers | undefined;
  let clients: { deep: Anthropic; quick: Anthropic };
  if (o.live) {
    const apiKey = process.env.ANTHROPIC_API_KEY;
    if (!apiKey) throw new TypeError('--live needs ANTHROPIC_API_KEY in the environment');
    const client = new Anthropic(anthropicClientOptions({ apiKey }));
    clients = { deep: client, quick: client };
  } else {
    chaos = await startSeedServers(o.seed);
    const offline = (baseURL: string) =>
      new Anthropic(anthropicClientOptions({ apiKey: 'sk-ant-demo-offline', baseURL }));
    clients = { deep: offline(chaos.deep.url), quick: offline(chaos.quick.url) };
  }
  const stall = demoStreamStallLimits(o.live);
  const hedge = demoHedge(o.live);
  const subagent =
    (client: Anthropic, model: string, role: string, maxTokens: number): Subagent =>
    async (topic, ctx) => {
      const message = await streamMessage(
        client,
        {
          model,
          max_tokens: maxTokens,
          system: `You are the ${role} subagent of a research orchestrator. Answer in three sentences.`,
          messages: [{ role: 'user', content: `Research this topic: ${topic}` }],
        },
        {
          signal: ctx.signal,
          firstItemMs: 'adaptive',
          idleMs: 'adaptive',
          adaptive: stall.options(role),
        },
      );
      return { text: textOf(message.content), sources: [`${model} (${message.id})`] };
    };
  return {
    title: o.live
      ? 'the real Anthropic API (@anthropic-ai/sdk)'
      : 'the real @anthropic-ai/sdk against the embedded chaos server',
    details: o.live
      ? [
          `deep-research: ${DEEP_MODEL} · quick-search: ${QUICK_MODEL} · ${governorLine(stall, hedge)}`,
        ]
      : [
          chaos!.line({ deep: DEEP_MODEL, quick: QUICK_MODEL }),
          `${governorLine(stall, hedge)} (the SDK has no idle timeout once headers arrive) · SDK retries off (maxRetries: 0)`,
        ],
    subagents: {
      deep: subagent(clients.deep, DEEP_MODEL, 'deep-research', 1024),
      quick: subagent(clients.quick, QUICK_MODEL, 'quick-search', 512),
    },
    stallLimits: stall,
    timing: sdkDemoTiming(o.live, hedge),
    concurrency: 2,
    ...(chaos ? { injected: chaos.injected } : {}),
    close: async () => {
      await chaos?.close();
    },
  };
}
