import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, type LanguageModel, stepCountIs, streamText, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ChaosServer } from '../../src/chaos/index.js';
import { withChaos } from './helpers.js';

// The AI SDK logs a warning per unknown model id; these are made up on purpose.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const providers: Array<[string, (chaos: ChaosServer) => LanguageModel]> = [
  [
    '@ai-sdk/anthropic',
    (chaos) => createAnthropic({ baseURL: `${chaos.url}/v1`, apiKey: 'test' })('claude-test'),
  ],
  [
    '@ai-sdk/openai chat',
    (chaos) => createOpenAI({ baseURL: `${chaos.url}/v1`, apiKey: 'test' }).chat('gpt-test'),
  ],
  [
    '@ai-sdk/openai responses',
    (chaos) => createOpenAI({ baseURL: `${chaos.url}/v1`, apiKey: 'test' }).responses('gpt-test'),
  ],
];

describe('the AI SDK (ai 7) against the chaos server', () => {
  it.each(providers)(
    '%s: generateText and streamText give the same long text and the server’s usage',
    async (_name, model) => {
      await withChaos({ answers: { '*': { textTokens: 300 } } }, async (chaos) => {
        const generated = await generateText({
          model: model(chaos),
          prompt: 'Tell me',
          maxRetries: 0,
          maxOutputTokens: 2000,
        });
        expect(Math.ceil(generated.text.length / 4)).toBeGreaterThanOrEqual(300);
        expect(generated.usage.outputTokens).toBe(chaos.requests[0]!.usage!.output);
        expect(generated.usage.inputTokens).toBe(chaos.requests[0]!.usage!.input);
        const streamed = streamText({
          model: model(chaos),
          prompt: 'Tell me',
          maxRetries: 0,
          maxOutputTokens: 2000,
        });
        let deltas = 0;
        for await (const _ of streamed.textStream) deltas++;
        expect(await streamed.text).toBe(generated.text);
        expect(deltas).toBeGreaterThan(20);
        expect(await streamed.finishReason).toBe('stop');
      });
    },
  );

  it.each(providers)(
    '%s: a tool loop calls the offered tool, gets its result back, and ends with text',
    async (_name, model) => {
      const answers = {
        '*': { text: 'Let me check.', toolUse: { name: 'get_weather', input: { city: 'Lisbon' } } },
      };
      await withChaos({ answers }, async (chaos) => {
        const seen: unknown[] = [];
        const result = streamText({
          model: model(chaos),
          prompt: 'Weather in Lisbon?',
          maxRetries: 0,
          maxOutputTokens: 500,
          stopWhen: stepCountIs(4),
          tools: {
            get_weather: tool({
              inputSchema: z.object({ city: z.string() }),
              execute: async (input) => {
                seen.push(input);
                return { forecast: 'sunny' };
              },
            }),
          },
        });
        const steps = await result.steps;
        expect(seen).toEqual([{ city: 'Lisbon' }]);
        expect(steps.map((s) => s.finishReason)).toEqual(['tool-calls', 'stop']);
        expect(steps[1]!.text).toBe('Let me check.');
        expect(chaos.requests).toHaveLength(2);
      });
    },
  );

  it('@ai-sdk/anthropic: thinking comes as reasoning parts; a trailing assistant message is continued exactly', async () => {
    const answers = { '*': { thinking: 'Plan: answer briefly.', textTokens: 120 } };
    await withChaos({ answers }, async (chaos) => {
      const anthropic = createAnthropic({ baseURL: `${chaos.url}/v1`, apiKey: 'test' });
      const result = streamText({
        model: anthropic('claude-test'),
        prompt: 'Explain',
        maxRetries: 0,
        maxOutputTokens: 4000,
        providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } } },
      });
      const reasoning: string[] = [];
      for await (const part of result.fullStream)
        if (part.type === 'reasoning-delta') reasoning.push(part.text);
      expect(reasoning.join('')).toBe('Plan: answer briefly.');
      const full = await result.text;

      const prefix = full.slice(0, 211).replace(/\s+$/u, '');
      const resumed = await generateText({
        model: anthropic('claude-test'),
        messages: [
          { role: 'user', content: 'Explain' },
          { role: 'assistant', content: prefix },
        ],
        maxRetries: 0,
        maxOutputTokens: 4000,
      });
      expect(prefix + resumed.text).toBe(full);
      expect(chaos.requests.at(-1)!.prefill).toEqual({ chars: prefix.length, matched: true });
    });
  });

  it('@ai-sdk/openai responses: a reasoning summary comes as reasoning parts', async () => {
    await withChaos(
      { answers: { '*': { thinking: 'Think first.', text: 'Answer.' } } },
      async (chaos) => {
        const openai = createOpenAI({ baseURL: `${chaos.url}/v1`, apiKey: 'test' });
        const result = streamText({
          // A model id the provider takes for a reasoning model, or it drops the reasoning options.
          model: openai.responses('gpt-5-test'),
          prompt: 'Explain',
          maxRetries: 0,
          providerOptions: { openai: { reasoningEffort: 'low', reasoningSummary: 'auto' } },
        });
        const reasoning: string[] = [];
        for await (const part of result.fullStream)
          if (part.type === 'reasoning-delta') reasoning.push(part.text);
        expect(reasoning.join('')).toBe('Think first.');
        expect(await result.text).toBe('Answer.');
      },
    );
  });
});
