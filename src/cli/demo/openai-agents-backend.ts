import { Agent, OpenAIChatCompletionsModel, Runner, setTracingDisabled } from '@openai/agents';
import type OpenAI from 'openai';
import { recourseModel } from '../../openai-agents/recourse-model.js';
import type { DemoBackend } from './demo-backend.js';
import { demoHedge, demoStreamStallLimits, governorLine, sdkDemoTiming } from './demo-governor.js';
import { OPENAI_DEMO_MODELS, openAIDemoClients } from './openai-backend.js';
import type { Subagent } from './research-orchestrator.js';

/** Options of the OpenAI Agents SDK backend. */
export interface OpenAIAgentsBackendOptions {
  seed: number;
  /** Talk to the real OpenAI API (needs OPENAI_API_KEY) instead of the embedded chaos server. */
  live: boolean;
}

/**
 * Subagents as streamed runs of the real OpenAI Agents SDK (`@openai/agents`: an `Agent` per
 * subagent, its `OpenAIChatCompletionsModel` wrapped by `recourseModel`), against the embedded
 * chaos server (the seed scenario on OpenAI's models) or, with `live`, the real API. Each model
 * call streams under the demo's adaptive stall limits; the `openai` client's retries are off and
 * the model vetoes the runner's, so recourse's retry layer is the only one.
 *
 * @example
 * await runDemo({ stdout: process.stdout }, await openAIAgentsBackend({ seed: 7, live: false }))
 */
export async function openAIAgentsBackend(o: OpenAIAgentsBackendOptions): Promise<DemoBackend> {
  const models = OPENAI_DEMO_MODELS;
  // The SDK's traces go to OpenAI's tracing API: not from a demo.
  setTracingDisabled(true);
  const { chaos, clients } = await openAIDemoClients(o, 'openai-agents');
  const stall = demoStreamStallLimits(o.live);
  const hedge = demoHedge(o.live);
  const runner = new Runner();
  const subagent = (client: OpenAI, model: string, role: string, maxTokens: number): Subagent => {
    const agent = new Agent({
      name: role,
      instructions: `You are the ${role} subagent of a research orchestrator. Answer in three sentences.`,
      model: recourseModel(new OpenAIChatCompletionsModel(client, model), {
        name: role,
        firstItemMs: 'adaptive',
        idleMs: 'adaptive',
        adaptive: { ...stall.options(role), model },
      }),
      modelSettings: { maxTokens },
    });
    return async (topic, ctx) => {
      const result = await runner.run(agent, `Research this topic: ${topic}`, {
        stream: true,
        signal: ctx.signal,
      });
      let text = '';
      let id = '';
      for await (const e of result) {
        if (e.type !== 'raw_model_stream_event') continue;
        if (e.data.type === 'output_text_delta') text += e.data.delta;
        if (e.data.type === 'response_done') id = e.data.response.id;
      }
      await result.completed;
      if (result.error) throw result.error;
      return { text, sources: [`${model} (${id})`] };
    };
  };
  return {
    title: o.live
      ? 'the real OpenAI API (OpenAI Agents SDK, Chat Completions)'
      : 'the real OpenAI Agents SDK (@openai/agents, Chat Completions) against the embedded chaos server',
    details: [
      ...(chaos ? [chaos.line(models)] : []),
      `recourseModel: ${governorLine(stall, hedge)} (the SDK has no idle timeout once headers arrive), a stream without finish_reason is a failure · SDK and runner retries off`,
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
