import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { createAgent } from 'langchain';
import { afterAll, describe, expect, it } from 'vitest';
import { constant, pipeline, retry } from '../../src/index.js';
import { recourseMiddleware } from '../../src/langchain/index.js';
import { stopSpanEvents, traced } from '../../src/otel/index.js';
import { MODELS, rules, withChaos } from './helpers.js';

// The chunk wire's facts reach `traced` spans: one span per attempt of the middleware's policy,
// with the GenAI conventions of the model request made in it.

afterAll(() => stopSpanEvents());
const genAi = (s: ReadableSpan): Record<string, unknown> =>
  Object.fromEntries(Object.entries(s.attributes).filter(([k]) => k.startsWith('gen_ai.')));

describe('recourseMiddleware (langchain): GenAI spans per attempt', () => {
  it.each([
    [MODELS[0]![0], MODELS[0]![1], 'anthropic', 'claude-test'],
    [MODELS[1]![0], MODELS[1]![1], 'openai', 'gpt-test'],
  ])(
    '%s: a 529 attempt keeps its failed span; the next has the provider and models',
    async (_n, make, provider, id) => {
      await withChaos(
        rules({ fault: { kind: 'status', status: 529 }, times: 1 }),
        async (chaos) => {
          const exporter = new InMemorySpanExporter();
          const tracer = new BasicTracerProvider({
            spanProcessors: [new SimpleSpanProcessor(exporter)],
          }).getTracer('langchain-test');
          const agent = createAgent({
            model: make(chaos, id) as never,
            tools: [],
            middleware: [
              recourseMiddleware({
                policy: pipeline(
                  retry({ maxAttempts: 2, backoff: constant(0) }),
                  traced({ tracer, per: 'attempt' }),
                ),
              }),
            ],
          });
          await agent.invoke({ messages: [{ role: 'user', content: 'hi' }] });
          const spans = exporter.getFinishedSpans();
          expect(spans).toHaveLength(2);
          expect(genAi(spans[0]!)).toMatchObject({
            'gen_ai.operation.name': 'chat',
            'gen_ai.provider.name': provider,
            'gen_ai.request.model': id,
          });
          expect(spans[0]!.attributes['error.type']).toBeDefined();
          expect(genAi(spans[1]!)).toMatchObject({
            'gen_ai.provider.name': provider,
            'gen_ai.request.model': id,
          });
          expect(spans[1]!.attributes['error.type']).toBeUndefined();
          // The usage the chaos server answered with, kept across the chunks that carry its parts
          // (Anthropic: input on message_start, output on message_delta), and the answering model.
          const answered = chaos.requests.filter((r) => r.status === 200);
          expect(answered).toHaveLength(1);
          const usage = answered[0]!.usage!;
          expect(usage.input).toBeGreaterThan(0);
          expect(genAi(spans[1]!)).toMatchObject({
            'gen_ai.response.model': id,
            'gen_ai.usage.input_tokens': usage.input,
            'gen_ai.usage.output_tokens': usage.output,
          });
          expect(usage.output).toBe(20);
        },
      );
    },
  );
});
