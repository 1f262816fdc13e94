import { createAnthropic } from '@ai-sdk/anthropic';
import Anthropic from '@anthropic-ai/sdk';
import { streamText } from 'ai';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { fallbackModels, recourseMiddleware } from '../../src/ai-sdk/index.js';
import { anthropicClientOptions, streamMessage } from '../../src/anthropic/index.js';
import { type ChaosServer, startChaosServer } from '../../src/chaos/index.js';
import { isStallError, stallLearner } from '../../src/index.js';
import { openAIClientOptions, streamChat } from '../../src/openai/index.js';

// The adapters take adaptive stall limits as watch does: `firstItemMs` / `idleMs` 'adaptive',
// learned under `adaptive` ({ name, model, floorMs, capMs, learner }), the model taken from the
// request. Real SDKs against the chaos server: the limits learn from real streams, and a stall is
// then caught at the learned limit instead of the cap.

const prompt = [{ role: 'user' as const, content: 'Tell me about Lisbon in a few words.' }];

/** The chaos server: every stream paced (events 5 ms apart); model `claude-stall` stalls after 3 events. */
async function withChaos<T>(fn: (chaos: ChaosServer) => Promise<T>): Promise<T> {
  const chaos = await startChaosServer({
    port: 0,
    scenario: {
      rules: [{ match: { model: 'claude-stall' }, fault: { kind: 'stall', afterEvents: 3 } }],
      pacing: [{ betweenEventsMs: 5 }],
    },
  });
  try {
    return await fn(chaos);
  } finally {
    await chaos.close();
  }
}

describe('adaptive stall limits in the adapters', () => {
  it('streamMessage learns per dependency and model, then catches a stall at the learned limit, not the cap', async () => {
    await withChaos(async (chaos) => {
      const client = new Anthropic(
        anthropicClientOptions({ baseURL: chaos.url, apiKey: 'test', logLevel: 'off' as const }),
      );
      const learner = stallLearner({ minSamples: 20 });
      const options = {
        idleMs: 'adaptive' as const,
        adaptive: { name: 'anthropic', floorMs: 400, capMs: 20_000, learner },
      };
      for (let i = 0; i < 6; i++)
        await streamMessage(
          client,
          { model: 'claude-test', max_tokens: 256, messages: prompt },
          options,
        );
      const limits = learner.limits();
      expect(
        limits.map((l) => [l.name, l.model, l.phase, l.samples >= (l.phase === 'idle' ? 20 : 6)]),
      ).toEqual([
        ['anthropic', 'claude-test', 'first-item', true],
        ['anthropic', 'claude-test', 'idle', true],
      ]);
      const idle = limits.find((l) => l.phase === 'idle')!;
      // 5 ms gaps: 3 × p99 is far below the floor.
      expect(idle.limitMs).toBeLessThan(400);
      // The stalling model is named apart on the chaos server; `adaptive.model` files it under claude-test.
      const started = performance.now();
      const error = await streamMessage(
        client,
        { model: 'claude-stall', max_tokens: 256, messages: prompt },
        { ...options, adaptive: { ...options.adaptive, model: 'claude-test' } },
      ).catch((e: unknown) => e);
      expect(isStallError(error) && [error.phase, error.limitMs]).toEqual(['idle', 400]);
      expect(performance.now() - started).toBeLessThan(15_000); // at the learned 400 ms, not the default
    });
  });

  it("streamChat learns under the body's model; a limit left fixed is not learned", async () => {
    await withChaos(async (chaos) => {
      const client = new OpenAI(
        openAIClientOptions({ baseURL: `${chaos.url}/v1`, apiKey: 'test' }),
      );
      const learner = stallLearner({ minSamples: 5 });
      for (let i = 0; i < 3; i++) {
        await streamChat(
          client,
          { model: 'gpt-test', messages: prompt },
          {
            firstItemMs: 10_000,
            idleMs: 'adaptive',
            adaptive: { name: 'openai', learner, floorMs: 300, capMs: 20_000 },
          },
        );
      }
      expect(learner.limits().map((l) => [l.name, l.model, l.phase])).toEqual([
        ['openai', 'gpt-test', 'idle'],
      ]);
    });
  });

  it('fallbackModels learns per path: under its name and its model, each path apart', async () => {
    // claude-stall stalls after its first two events, before any text: the ladder moves on.
    const chaos = await startChaosServer({
      port: 0,
      scenario: {
        rules: [{ match: { model: 'claude-stall' }, fault: { kind: 'stall', afterEvents: 2 } }],
        pacing: [{ betweenEventsMs: 5 }],
      },
    });
    try {
      const provider = createAnthropic({ baseURL: `${chaos.url}/v1`, apiKey: 'test' });
      const learner = stallLearner({ minSamples: 5 });
      const model = fallbackModels(
        [
          { name: 'first', model: provider('claude-stall') },
          { name: 'second', model: provider('claude-test') },
        ],
        {
          firstItemMs: 10_000,
          idleMs: 'adaptive',
          adaptive: { floorMs: 100, capMs: 300, learner },
        },
      );
      for (let i = 0; i < 2; i++) {
        const result = streamText({ model, prompt: 'Lisbon?', maxRetries: 0 });
        expect(await result.text).not.toBe('');
        expect((await result.providerMetadata)?.recourse).toMatchObject({ servedBy: 'second' });
      }
      expect(
        learner
          .limits()
          .map((l) => [l.name, l.model, l.phase])
          .sort(),
      ).toEqual([
        ['first', 'claude-stall', 'idle'],
        ['second', 'claude-test', 'idle'],
      ]);
    } finally {
      await chaos.close();
    }
  });

  it('checks the option: adaptive needs an adaptive limit, its keys are known ones, the same on a ladder', async () => {
    const client = { messages: { stream: () => ({}) } } as unknown as Anthropic;
    const body = { model: 'm', max_tokens: 1, messages: prompt };
    await expect(
      streamMessage(client, body, { idleMs: 1000, adaptive: { floorMs: 10 } }),
    ).rejects.toThrow(
      "streamMessage: adaptive applies to adaptive limits only (firstItemMs or idleMs 'adaptive')",
    );
    await expect(
      streamMessage(client, body, { idleMs: 'adaptive', adaptive: { floorMS: 10 } as never }),
    ).rejects.toThrow(/streamMessage adaptive.*floorMS/);
    await expect(
      streamMessage(client, body, { idleMs: 'adaptive', adaptive: { floorMs: 10, capMs: 5 } }),
    ).rejects.toThrow('capMs (5) must be >= floorMs (10)');
    expect(() =>
      recourseMiddleware({ idleMs: 'adaptive', adaptive: { learner: {} as never } }),
    ).toThrow(/learner must be a StallLearner/);
    expect(() =>
      recourseMiddleware({ name: 'claude', idleMs: 'adaptive', adaptive: { floorMs: 100 } }),
    ).not.toThrow();
    const model = createAnthropic({ apiKey: 'test' })('claude-test');
    expect(() => fallbackModels([{ name: 'claude', model }], { idleMs: 'adaptive' })).not.toThrow();
    expect(() =>
      fallbackModels([{ name: 'claude', model }], { idleMs: 5, adaptive: { floorMs: 1 } }),
    ).toThrow(
      "fallbackModels: adaptive applies to adaptive limits only (firstItemMs or idleMs 'adaptive')",
    );
  });
});
