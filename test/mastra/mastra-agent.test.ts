import { Agent } from '@mastra/core/agent';
import { noopLogger } from '@mastra/core/logger';
import { describe, expect, it } from 'vitest';
import {
  fallbackModels,
  recourseMiddleware,
  type ServedModelMetadata,
} from '../../src/ai-sdk/index.js';
import { classify, constant, retry } from '../../src/index.js';
import {
  ANSWER,
  chatModel,
  type Model,
  outcome,
  rules,
  withChaos,
  wrap,
} from '../ai-sdk/helpers.js';

// Mastra (real @mastra/core): its agents run AI SDK models, so recourseMiddleware and
// fallbackModels from agent-recourse/ai-sdk put them under recourse; the Agent's own retries are
// off (maxRetries: 0), so one layer retries.

const agentOn = (model: Model, maxRetries = 0) =>
  new Agent({
    id: 'helper',
    name: 'helper',
    instructions: 'Be brief.',
    model,
    maxRetries,
    logger: noopLogger,
  } as ConstructorParameters<typeof Agent>[0]);

const RETRY = () => retry({ maxAttempts: 3, backoff: constant(1) });
const served = (metadata: unknown) =>
  (metadata as { recourse?: ServedModelMetadata } | undefined)?.recourse;

describe('Mastra Agent over recourse', () => {
  it.each([
    [
      'an in-stream overloaded error inside a 200',
      { kind: 'stream-error', afterEvents: 1, errorType: 'overloaded_error' },
    ],
    ['a 529', { kind: 'status', status: 529 }],
  ] as const)(
    '%s on the first model moves the fallback: the second serves, and says so',
    async (_, fault) => {
      await withChaos(rules({ fault, match: { model: 'gpt-a' } }), async (chaos) => {
        const agent = agentOn(
          fallbackModels([
            { name: 'a', model: chatModel(chaos, 'gpt-a'), policy: RETRY() },
            { name: 'b', model: chatModel(chaos, 'gpt-b') },
          ]),
        );
        const stream = await agent.stream('Tell me about Lisbon.');
        expect(await stream.text).toBe(ANSWER);
        expect(served(await stream.providerMetadata)).toMatchObject({
          servedBy: 'b',
          degraded: true,
          failures: [{ path: 'a', kind: 'transient', reason: 'overloaded' }],
        });
        const generated = await agent.generate('Tell me about Lisbon.');
        expect(generated.text).toBe(ANSWER);
        expect(served(generated.providerMetadata)?.servedBy).toBe('b');
        // The first path's retry ran 3 times per call, then the ladder moved on.
        expect(chaos.requests.map((r) => r.model)).toEqual([
          ...['gpt-a', 'gpt-a', 'gpt-a', 'gpt-b'],
          ...['gpt-a', 'gpt-a', 'gpt-a', 'gpt-b'],
        ]);
      });
    },
  );

  it.each([401, 403])(
    'a %i is never retried: one request, the error persistent',
    async (status) => {
      await withChaos(rules({ fault: { kind: 'status', status } }), async (chaos) => {
        const agent = agentOn(wrap(chatModel(chaos), recourseMiddleware({ policy: RETRY() })));
        const generated = await outcome(agent.generate('Hi'));
        expect(classify(generated.error)).toMatchObject({ kind: 'persistent', status });
        const stream = await agent.stream('Hi');
        const text = await outcome(Promise.resolve(stream.text));
        expect(text.value ?? '').toBe('');
        expect(classify(await stream.error)).toMatchObject({ kind: 'persistent', status });
        expect(chaos.requests).toHaveLength(2);
      });
    },
  );

  it('a dead model: exactly maxAttempts requests per logical call (generate and stream)', async () => {
    await withChaos(rules({ fault: { kind: 'status', status: 503 } }), async (chaos) => {
      const agent = agentOn(wrap(chatModel(chaos), recourseMiddleware({ policy: RETRY() })));
      const generated = await outcome(agent.generate('Hi'));
      expect(generated.error).toMatchObject({ name: 'RetriesExhaustedError', attempts: 3 });
      expect(chaos.requests).toHaveLength(3);
      const stream = await agent.stream('Hi');
      await outcome(Promise.resolve(stream.text));
      expect(await stream.error).toMatchObject({ name: 'RetriesExhaustedError', attempts: 3 });
      expect(chaos.requests).toHaveLength(6);
    });
  });

  it('beside it, Mastra’s own retries left on multiply the layers: maxRetries 2 over retry(3) is 9 requests', async () => {
    await withChaos(rules({ fault: { kind: 'status', status: 503 } }), async (chaos) => {
      const agent = agentOn(wrap(chatModel(chaos), recourseMiddleware({ policy: RETRY() })), 2);
      await outcome(agent.generate('Hi'));
      expect(chaos.requests).toHaveLength(9);
    });
  });
});
