import { createAnthropic } from '@ai-sdk/anthropic';
import { generateText, type LanguageModel, streamText, wrapLanguageModel } from 'ai';
import { recourseMiddleware } from '../../ai-sdk/recourse-middleware.js';
import type { DemoBackend } from './demo-backend.js';
import { demoHedge, demoStreamStallLimits, governorLine, sdkDemoTiming } from './demo-governor.js';
import type { Subagent } from './research-orchestrator.js';
import { DEEP_MODEL, QUICK_MODEL, type SeedServers, startSeedServers } from './seed-scenario.js';

/** Options of the Vercel AI SDK backend. */
export interface AiSdkBackendOptions {
  seed: number;
  /** Talk to the real Anthropic API (needs ANTHROPIC_API_KEY) instead of the embedded chaos server. */
  live: boolean;
}

const system = (role: string) =>
  `You are the ${role} subagent of a research orchestrator. Answer in three sentences.`;

/**
 * Subagents on the real Vercel AI SDK (`ai` with `@ai-sdk/anthropic`), against the embedded chaos
 * server (seed scenario) or, with `live`, the real API. Each model is wrapped in
 * `recourseMiddleware`: deep-research streams (`streamText`, stall detection per part),
 * quick-search answers whole (`generateText`, each request bounded by `totalMs`). The SDK's own
 * retries are off (`maxRetries: 0`): the orchestrator's retry is the only one.
 *
 * @example
 * await runDemo({ stdout: process.stdout }, await aiSdkBackend({ seed: 7, live: false }))
 */
export async function aiSdkBackend(o: AiSdkBackendOptions): Promise<DemoBackend> {
  let chaos: SeedServers | undefined;
  let providers: {
    deep: ReturnType<typeof createAnthropic>;
    quick: ReturnType<typeof createAnthropic>;
  };
  if (o.live) {
    const apiKey = process.env.ANTHROPIC_API_KEY;
    if (!apiKey) throw new TypeError('--live needs ANTHROPIC_API_KEY in the environment');
    const provider = createAnthropic({ apiKey });
    providers = { deep: provider, quick: provider };
  } else {
    // The SDK warns about model ids it does not know and logs stream errors without an onError:
    // the chaos server's answers would fill the demo's trace with both.
    (globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
    chaos = await startSeedServers(o.seed);
    const offline = (url: string) =>
      createAnthropic({ apiKey: 'sk-ant-demo-offline', baseURL: `${url}/v1` });
    providers = { deep: offline(chaos.deep.url), quick: offline(chaos.quick.url) };
  }
  const stall = demoStreamStallLimits(o.live);
  const hedge = demoHedge(o.live);
  const totalMs = o.live ? 120_000 : 10_000;
  const deepModel = wrapLanguageModel({
    model: providers.deep(DEEP_MODEL),
    middleware: recourseMiddleware({
      name: 'deep-research',
      firstItemMs: 'adaptive',
      idleMs: 'adaptive',
      adaptive: stall.options('deep-research'),
    }),
  });
  const quickModel = wrapLanguageModel({
    model: providers.quick(QUICK_MODEL),
    middleware: recourseMiddleware({ name: 'quick-search', totalMs }),
  });

  const deep: Subagent = async (topic, ctx) => {
    const result = streamText({
      model: deepModel,
      system: system('deep-research'),
      prompt: `Research this topic: ${topic}`,
      maxOutputTokens: 1024,
      maxRetries: 0,
      abortSignal: ctx.signal,
      // A failure arrives as an error part below, with its status: thrown from there.
      onError: () => {},
    });
    let text = '';
    for await (const part of result.fullStream) {
      // A 529 or a stall before any output is an error part (the SDK's `text` would only say "no output").
      if (part.type === 'error') throw part.error;
      if (part.type === 'text-delta') text += part.text;
    }
    return {
      text,
      sources: [`${DEEP_MODEL} via AI SDK streamText (${(await result.response).id})`],
    };
  };
  const quick: Subagent = async (topic, ctx) => {
    const result = await generateText({
      model: quickModel as LanguageModel,
      system: system('quick-search'),
      prompt: `Research this topic: ${topic}`,
      maxOutputTokens: 512,
      maxRetries: 0,
      abortSignal: ctx.signal,
    });
    return {
      text: result.text,
      sources: [`${QUICK_MODEL} via AI SDK generateText (${result.response.id})`],
    };
  };

  return {
    title: o.live
      ? 'the real Anthropic API (Vercel AI SDK, @ai-sdk/anthropic)'
      : 'the real Vercel AI SDK (@ai-sdk/anthropic) against the embedded chaos server',
    details: [
      ...(chaos ? [chaos.line({ deep: DEEP_MODEL, quick: QUICK_MODEL })] : []),
      `recourseMiddleware: streamText under ${governorLine(stall, hedge)} (the SDK has no idle timeout), generateText totalMs ${totalMs} · SDK retries off (maxRetries: 0)`,
    ],
    subagents: { deep, quick },
    stallLimits: stall,
    timing: sdkDemoTiming(o.live, hedge),
    concurrency: 2,
    ...(chaos ? { injected: chaos.injected } : {}),
    close: async () => {
      await chaos?.close();
    },
  };
}
