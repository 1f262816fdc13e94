import { createAnthropic } from '@ai-sdk/anthropic';
import Anthropic from '@anthropic-ai/sdk';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { SpanStatusCode } from '@opentelemetry/api';
import { generateText, streamText, wrapLanguageModel } from 'ai';
import OpenAI from 'openai';
import { afterAll, describe, expect, it } from 'vitest';
import { recourseMiddleware } from '../../src/ai-sdk/index.js';
import { anthropicClientOptions, streamMessage } from '../../src/anthropic/index.js';
import { type ChaosServer, type Fault, startChaosServer } from '../../src/chaos/index.js';
import { runQuery } from '../../src/claude-agent-sdk/index.js';
import { constant, pipeline, retry } from '../../src/index.js';
import { openAIClientOptions, streamChat, streamResponse } from '../../src/openai/index.js';
import { stopSpanEvents, traced } from '../../src/otel/index.js';
import { cliBinary, waitNoCli, withAgentChaos } from '../claude-agent-sdk/helpers.js';

// The OpenTelemetry GenAI conventions on `traced` spans, per attempt, from the real SDKs against
// the chaos server: operation, provider, requested and answering model, the tokens the server
// reported; a failed attempt keeps its span, with `error.type`.

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
afterAll(() => stopSpanEvents());

function setup() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('gen-ai-test');
  // Three attempts, each with its own span, the first failure retried at once.
  const policy = pipeline(
    retry({ maxAttempts: 3, backoff: constant(0) }),
    traced({ tracer, per: 'attempt' }),
  );
  return { exporter, policy };
}

const genAi = (s: ReadableSpan): Record<string, unknown> =>
  Object.fromEntries(Object.entries(s.attributes).filter(([k]) => k.startsWith('gen_ai.')));

async function withChaos<T>(
  rules: Array<{ fault: Fault; times?: number }>,
  fn: (chaos: ChaosServer) => Promise<T>,
): Promise<T> {
  const chaos = await startChaosServer({
    port: 0,
    answers: { '*': { text: 'Lisbon is the capital of Portugal, on the Tagus.' } },
    scenario: { rules },
  });
  try {
    return await fn(chaos);
  } finally {
    await chaos.close();
  }
}

const messages = [{ role: 'user' as const, content: 'Lisbon?' }];
const overloadedOnce = [{ fault: { kind: 'status', status: 529 } as Fault, times: 1 }];

describe('traced spans carry the GenAI conventions of each attempt', () => {
  it('streamMessage: a 529 attempt keeps its failed span; the next has the models and the usage', async () => {
    await withChaos(overloadedOnce, async (chaos) => {
      const { exporter, policy } = setup();
      const client = new Anthropic(
        anthropicClientOptions({ baseURL: chaos.url, apiKey: 'test', logLevel: 'off' as const }),
      );
      const message = await policy.execute((ctx) =>
        streamMessage(
          client,
          { model: 'claude-test', max_tokens: 256, messages },
          { signal: ctx.signal },
        ),
      );
      const [failed, served] = exporter.getFinishedSpans();
      expect(exporter.getFinishedSpans()).toHaveLength(2);
      expect(genAi(failed!)).toEqual({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'anthropic',
        'gen_ai.request.model': 'claude-test',
      });
      expect(failed!.status.code).toBe(SpanStatusCode.ERROR);
      expect(failed!.attributes['error.type']).toMatch(/Error$/);
      const usage = chaos.requests[1]!.usage!;
      expect(genAi(served!)).toEqual({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'anthropic',
        'gen_ai.request.model': 'claude-test',
        'gen_ai.response.model': message.model,
        'gen_ai.usage.input_tokens': usage.input,
        'gen_ai.usage.output_tokens': usage.output,
      });
      expect(message.usage.output_tokens).toBe(usage.output);
      expect(served!.status.code).toBe(SpanStatusCode.UNSET);
      expect(served!.attributes['error.type']).toBeUndefined();
    });
  });

  it('streamChat and streamResponse: the same attributes over both OpenAI APIs', async () => {
    await withChaos([], async (chaos) => {
      const { exporter, policy } = setup();
      const client = new OpenAI(
        openAIClientOptions({ baseURL: `${chaos.url}/v1`, apiKey: 'test' }),
      );
      const completion = await policy.execute((ctx) =>
        streamChat(
          client,
          { model: 'gpt-test', messages, stream_options: { include_usage: true } },
          { signal: ctx.signal },
        ),
      );
      const response = await policy.execute((ctx) =>
        streamResponse(client, { model: 'gpt-test', input: 'Lisbon?' }, { signal: ctx.signal }),
      );
      const [chat, responses] = exporter.getFinishedSpans();
      const [chatUsage, responsesUsage] = chaos.requests.map((r) => r.usage!);
      expect(genAi(chat!)).toEqual({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'gpt-test',
        'gen_ai.response.model': completion.model,
        'gen_ai.usage.input_tokens': chatUsage!.input,
        'gen_ai.usage.output_tokens': chatUsage!.output,
      });
      expect(genAi(responses!)).toEqual({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'gpt-test',
        'gen_ai.response.model': response.model,
        'gen_ai.usage.input_tokens': responsesUsage!.input,
        'gen_ai.usage.output_tokens': responsesUsage!.output,
      });
    });
  });

  it('recourseMiddleware: a stream that stalled before output keeps its failed span; the served span covers the whole stream', async () => {
    const rules = [{ fault: { kind: 'stall', afterEvents: 1 } as Fault, times: 1 }];
    await withChaos(rules, async (chaos) => {
      const { exporter, policy } = setup();
      const model = wrapLanguageModel({
        model: createAnthropic({ baseURL: `${chaos.url}/v1`, apiKey: 'test' })('claude-test'),
        middleware: recourseMiddleware({ policy, firstItemMs: 5_000, idleMs: 300 }),
      });
      const result = streamText({ model, prompt: 'Lisbon?', maxRetries: 0 });
      const parts: string[] = [];
      for await (const part of result.fullStream) {
        parts.push(part.type);
        // Output flows to the caller while the served attempt's span is still open.
        if (part.type === 'text-delta') expect(exporter.getFinishedSpans()).toHaveLength(1);
      }
      expect(parts).toContain('finish');
      const [stalled, served] = exporter.getFinishedSpans();
      expect(exporter.getFinishedSpans()).toHaveLength(2);
      expect(stalled!.attributes['error.type']).toBe('StallError');
      // Its first event (message_start) named the answering model; no usage came.
      expect(genAi(stalled!)).toEqual({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'anthropic',
        'gen_ai.request.model': 'claude-test',
        'gen_ai.response.model': 'claude-test',
      });
      const usage = chaos.requests[1]!.usage!;
      expect(genAi(served!)).toEqual({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'anthropic',
        'gen_ai.request.model': 'claude-test',
        'gen_ai.response.model': (await result.response).modelId,
        'gen_ai.usage.input_tokens': usage.input,
        'gen_ai.usage.output_tokens': usage.output,
      });
      expect(served!.status.code).toBe(SpanStatusCode.UNSET);
      expect(served!.endTime[0] * 1e3 + served!.endTime[1] / 1e6).toBeGreaterThan(
        stalled!.endTime[0] * 1e3 + stalled!.endTime[1] / 1e6,
      );
    });
  });

  it('recourseMiddleware: a stall after output began fails the span of the attempt that served it', async () => {
    const rules = [{ fault: { kind: 'stall', afterEvents: 5 } as Fault }];
    await withChaos(rules, async (chaos) => {
      const { exporter, policy } = setup();
      const model = wrapLanguageModel({
        model: createAnthropic({ baseURL: `${chaos.url}/v1`, apiKey: 'test' })('claude-test'),
        middleware: recourseMiddleware({ policy, idleMs: 300 }),
      });
      const result = streamText({ model, prompt: 'Lisbon?', maxRetries: 0, onError: () => {} });
      await expect(result.text).rejects.toMatchObject({ name: 'StallError' });
      const spans = exporter.getFinishedSpans();
      expect(spans).toHaveLength(1);
      expect(spans[0]!.status.code).toBe(SpanStatusCode.ERROR);
      expect(spans[0]!.attributes).toMatchObject({
        'error.type': 'StallError',
        'recourse.outcome': 'failure',
        'gen_ai.provider.name': 'anthropic',
      });
      expect(spans[0]!.events.map((e) => e.name)).toContain('recourse.stall');
    });
  });

  it('recourseMiddleware: doGenerate too', async () => {
    await withChaos([], async (chaos) => {
      const { exporter, policy } = setup();
      const model = wrapLanguageModel({
        model: createAnthropic({ baseURL: `${chaos.url}/v1`, apiKey: 'test' })('claude-test'),
        middleware: recourseMiddleware({ policy }),
      });
      const result = await generateText({ model, prompt: 'Lisbon?', maxRetries: 0 });
      const [span] = exporter.getFinishedSpans();
      expect(genAi(span!)).toEqual({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'anthropic',
        'gen_ai.request.model': 'claude-test',
        'gen_ai.response.model': result.response.modelId,
        'gen_ai.usage.input_tokens': result.usage.inputTokens,
        'gen_ai.usage.output_tokens': result.usage.outputTokens,
      });
    });
  });

  const binary = cliBinary();
  it.skipIf('missing' in binary && process.env.RECOURSE_REQUIRE_SERVICES !== '1')(
    'runQuery: an agent invocation, with the tokens of every model it used',
    async () => {
      await withAgentChaos(
        { answers: { '*': { text: 'Hello from chaos.' } } },
        async ({ chaos, options }) => {
          const { exporter, policy } = setup();
          const result = await policy.execute((ctx) =>
            runQuery(
              { prompt: 'Say hello.', options: options({ model: 'claude-test' }) },
              { signal: ctx.signal, idleMs: 10_000 },
            ),
          );
          const [span] = exporter.getFinishedSpans();
          const calls = chaos.requests.filter((r) => r.path === '/v1/messages' && r.usage);
          const sum = (k: 'input' | 'output'): number => calls.reduce((n, r) => n + r.usage![k], 0);
          expect(Object.keys(result.modelUsage)).toEqual(['claude-test']);
          expect(genAi(span!)).toEqual({
            'gen_ai.operation.name': 'invoke_agent',
            'gen_ai.provider.name': 'anthropic',
            'gen_ai.request.model': 'claude-test',
            'gen_ai.response.model': 'claude-test',
            'gen_ai.usage.input_tokens': sum('input'),
            'gen_ai.usage.output_tokens': sum('output'),
          });
        },
      );
      await waitNoCli(6000);
    },
  );
});
