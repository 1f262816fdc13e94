import { ChatAnthropic } from '@langchain/anthropic';
import { createAgent } from 'langchain';
import { recourseMiddleware } from '../../langchain/recourse-middleware.js';
import type { DemoBackend } from './demo-backend.js';
import { demoHedge, demoStreamStallLimits, governorLine, sdkDemoTiming } from './demo-governor.js';
import type { Subagent } from './research-orchestrator.js';
import { DEEP_MODEL, QUICK_MODEL, type SeedServers, startSeedServers } from './seed-scenario.js';

/** Options of the LangChain backend. */
export interface LangChainBackendOptions {
  seed: number;
  /** Talk to the real Anthropic API (needs ANTHROPIC_API_KEY) instead of the embedded chaos server. */
  live: boolean;
}

const system = (role: string) =>
  `You are the ${role} subagent of a research orchestrator. Answer in three sentences.`;

type Agent = {
  invoke(
    input: { messages: Array<{ role: string; content: string }> },
    config: { signal: AbortSignal },
  ): Promise<{ messages: Array<{ text?: string; content: unknown; id?: string }> }>;
};

/** The answer's text: a string content, or its text blocks. */
function textOf(message: { text?: string; content: unknown } | undefined): string {
  if (message === undefined) return '';
  if (typeof message.text === 'string') return message.text;
  return typeof message.content === 'string' ? message.content : '';
}

/**
 * Subagents as LangChain agents (`createAgent` over `@langchain/anthropic`'s `ChatAnthropic`),
 * against the embedded chaos server (seed scenario) or, with `live`, the real API. Each agent has
 * `recourseMiddleware`: its model requests stream under stall limits (the `invoke` LangChain would
 * send whole included) and LangChain's own retries are off; the middleware's breakers and retry
 * are off (`breakers: false`, `retry: false`): the orchestrator's breaker and retry are the only ones.
 *
 * @example
 * await runDemo({ stdout: process.stdout }, await langchainBackend({ seed: 7, live: false }))
 */
export async function langchainBackend(o: LangChainBackendOptions): Promise<DemoBackend> {
  let chaos: SeedServers | undefined;
  type Connection = { apiKey: string; anthropicApiUrl?: string };
  let connections: { deep: Connection; quick: Connection };
  if (o.live) {
    const apiKey = process.env.ANTHROPIC_API_KEY;
    if (!apiKey) throw new TypeError('--live needs ANTHROPIC_API_KEY in the environment');
    connections = { deep: { apiKey }, quick: { apiKey } };
  } else {
    // One chaos server per path, its rules naming no model (an SDK may send its own id).
    chaos = await startSeedServers(o.seed);
    const offline = (url: string): Connection => ({
      apiKey: 'sk-ant-demo-offline',
      anthropicApiUrl: url,
    });
    connections = { deep: offline(chaos.deep.url), quick: offline(chaos.quick.url) };
  }
  const stall = demoStreamStallLimits(o.live);
  const hedge = demoHedge(o.live);
  const agentOf = (connection: Connection, model: string, maxTokens: number, name: string): Agent =>
    createAgent({
      model: new ChatAnthropic({ model, maxTokens, maxRetries: 0, ...connection }),
      tools: [],
      systemPrompt: system(name),
      middleware: [
        recourseMiddleware({
          name,
          // The orchestrator runs each subagent under its own breaker and retry: one of each.
          breakers: false,
          retry: false,
          firstItemMs: 'adaptive',
          idleMs: 'adaptive',
          adaptive: stall.options(name),
        }),
      ],
    }) as unknown as Agent;
  const deepAgent = agentOf(connections.deep, DEEP_MODEL, 1024, 'deep-research');
  const quickAgent = agentOf(connections.quick, QUICK_MODEL, 512, 'quick-search');

  const subagent =
    (agent: Agent, model: string): Subagent =>
    async (topic, ctx) => {
      const result = await agent.invoke(
        { messages: [{ role: 'user', content: `Research this topic: ${topic}` }] },
        { signal: ctx.signal },
      );
      const last = result.messages.at(-1);
      return {
        text: textOf(last),
        sources: [`${model} via LangChain createAgent (${last?.id ?? 'no id'})`],
      };
    };

  return {
    title: o.live
      ? 'the real Anthropic API (LangChain createAgent, @langchain/anthropic)'
      : 'real LangChain agents (langchain, @langchain/anthropic) against the embedded chaos server',
    details: [
      ...(chaos ? [chaos.line({ deep: DEEP_MODEL, quick: QUICK_MODEL })] : []),
      `recourseMiddleware: every model request streamed under ${governorLine(stall, hedge)} (LangChain has no stream timeout) · LangChain's retries off (maxRetries: 0)`,
    ],
    subagents: { deep: subagent(deepAgent, DEEP_MODEL), quick: subagent(quickAgent, QUICK_MODEL) },
    stallLimits: stall,
    timing: sdkDemoTiming(o.live, hedge),
    concurrency: 2,
    ...(chaos ? { injected: chaos.injected } : {}),
    close: async () => {
      await chaos?.close();
    },
  };
}
