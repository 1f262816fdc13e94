import OpenAI from 'openai';
import { openAIClientOptions } from '../../openai/client-options.js';
import { streamChat } from '../../openai/stream-chat.js';
import type { DemoBackend } from './demo-backend.js';
import { demoHedge, demoStreamStallLimits, governorLine, sdkDemoTiming } from './demo-governor.js';
import type { Subagent } from './research-orchestrator.js';
import { type DemoModels, type SeedServers, startSeedServers } from './seed-scenario.js';

/** Options of the OpenAI SDK backend. */
export interface OpenAIBackendOptions {
  seed: number;
  /** Talk to the real OpenAI API (needs OPENAI_API_KEY) instead of the embedded chaos server. */
  live: boolean;
}

/**
 * The models the OpenAI backend asks for (override with RECOURSE_OPENAI_DEEP_MODEL and
 * RECOURSE_OPENAI_QUICK_MODEL for --live).
 *
 * @example
 * OPENAI_DEMO_MODELS // { deep: 'gpt-5', quick: 'gpt-5-mini' }
 */
export const OPENAI_DEMO_MODELS: DemoModels = {
  deep: process.env.RECOURSE_OPENAI_DEEP_MODEL ?? 'gpt-5',
  quick: process.env.RECOURSE_OPENAI_QUICK_MODEL ?? 'gpt-5-mini',
};

/**
 * The `openai` clients of an OpenAI backend's two paths: the real API's (`live`, one client) or,
 * offline, one per path on its own chaos server, whose rules name no model (an SDK may send its
 * own id), so every request gets its path's faults.
 *
 * @example
 * const { chaos, clients } = await openAIDemoClients({ seed: 7, live: false }, 'openai')
 */
export async function openAIDemoClients(
  o: { seed: number; live: boolean },
  backend: string,
): Promise<{ chaos: SeedServers | undefined; clients: { deep: OpenAI; quick: OpenAI } }> {
  if (o.live) {
    const apiKey = process.env.OPENAI_API_KEY;
    if (!apiKey)
      throw new TypeError(`--live --backend ${backend} needs OPENAI_API_KEY in the environment`);
    const client = new OpenAI(openAIClientOptions({ apiKey }));
    return { chaos: undefined, clients: { deep: client, quick: client } };
  }
  const chaos = await startSeedServers(o.seed);
  const offline = (url: string) =>
    new OpenAI(openAIClientOptions({ apiKey: 'sk-demo-offline', baseURL: `${url}/v1` }));
  return { chaos, clients: { deep: offline(chaos.deep.url), quick: offline(chaos.quick.url) } };
}

/**
 * Subagents as streamed chat completions of the real `openai` client, against the embedded chaos
 * server (the seed scenario on OpenAI's models) or, with `live`, the real API. Each call streams
 * under `watch` (first event, idle) via `streamChat`, which resolves only when every choice has
 * its `finish_reason`; the SDK's own retries are off, so recourse's retry layer is the only one.
 *
 * @example
 * await runDemo({ stdout: process.stdout }, await openAIBackend({ seed: 7, live: false }))
 */
export async function openAIBackend(o: OpenAIBackendOptions): Promise<DemoBackend> {
  const models = OPENAI_DEMO_MODELS;
  const { chaos, clients } = await openAIDemoClients(o, 'openai');
  const stall = demoStreamStallLimits(o.live);
  const hedge = demoHedge(o.live);
  const subagent =
    (client: OpenAI, model: string, role: string, maxTokens: number): Subagent =>
    async (topic, ctx) => {
      const completion = await streamChat(
        client,
        {
          model,
          max_completion_tokens: maxTokens,
          messages: [
            {
              role: 'system',
              content: `You are the ${role} subagent of a research orchestrator. Answer in three sentences.`,
            },
            { role: 'user', content: `Research this topic: ${topic}` },
          ],
        },
        {
          signal: ctx.signal,
          firstItemMs: 'adaptive',
          idleMs: 'adaptive',
          adaptive: stall.options(role),
        },
      );
      return {
        text: completion.choices[0]?.message.content ?? '',
        sources: [`${model} (${completion.id})`],
      };
    };
  return {
    title: o.live
      ? 'the real OpenAI API (openai SDK, Chat Completions)'
      : 'the real openai SDK (Chat Completions) against the embedded chaos server',
    details: [
      ...(chaos ? [chaos.line(models)] : []),
      `streamChat: ${governorLine(stall, hedge)} (the SDK has no idle timeout once headers arrive), a stream without finish_reason is a failure · SDK retries off (maxRetries: 0)`,
    ],
    subagents: {
      deep: subagent(clients.deep, models.deep, 'deep-research', 1024),
      quick: subagent(clients.quick, models.quick, 'quick-search', 512),
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
