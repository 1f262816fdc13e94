import { generateText, streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import {
  fallbackModels,
  type ModelPrompt,
  type ServedModelMetadata,
} from '../../src/ai-sdk/index.js';
import { isAllPathsFailedError } from '../../src/index.js';
import { ANSWER, PROVIDERS, rules, withChaos } from './helpers.js';

// A context-window overflow, answered by the chaos server as each provider answers it (Anthropic's
// 400 "prompt is too long", OpenAI's context_length_exceeded), served by a larger-window model
// (`when`) or by a compacted prompt on the same model (`compact`).

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

// About 600 tokens by the server's rule (4 characters a token), against a window of 200.
const LONG = 'word '.repeat(480);
const answers = { '*': { text: ANSWER }, 'small-model': { text: ANSWER, contextTokens: 200 } };
const served = (metadata: unknown) => (metadata as { recourse: ServedModelMetadata }).recourse;
const overflow = (_e: unknown, c: { reason: string }) => c.reason === 'context_overflow';

/** A compaction that keeps the system message and a short summary of the conversation. */
const keepShort = (prompt: ModelPrompt): ModelPrompt => [
  ...prompt.filter((m) => m.role === 'system'),
  { role: 'user', content: [{ type: 'text', text: 'summary: a long text of words' }] },
];

describe('fallbackModels: when and compact for a context-window overflow', () => {
  it.each(PROVIDERS)(
    '%s: over the small model’s window → served by the larger-window path its `when` accepts',
    async (_name, make) => {
      await withChaos({ answers }, async (chaos) => {
        const model = fallbackModels([
          { name: 'small', model: make(chaos, 'small-model') },
          { name: 'large', model: make(chaos, 'large-model'), when: overflow },
        ]);
        const result = await generateText({ model, prompt: LONG, maxRetries: 0 });
        expect(result.text).toBe(ANSWER);
        const recourse = served(result.providerMetadata);
        expect(recourse).toMatchObject({ servedBy: 'large', degraded: true });
        expect(recourse.failures).toEqual([
          expect.objectContaining({ path: 'small', kind: 'logical', reason: 'context_overflow' }),
        ]);
        expect(chaos.requests.map((r) => [r.model, r.status])).toEqual([
          ['small-model', 400],
          ['large-model', 200],
        ]);
      });
    },
  );

  it.each(PROVIDERS)(
    '%s: a failure the next path’s `when` refuses (a 529, not an overflow) is rethrown as it is; the next path is not called',
    async (_name, make) => {
      await withChaos(
        rules({ match: { model: 'small-model' }, fault: { kind: 'status', status: 529 } }),
        async (chaos) => {
          const model = fallbackModels([
            { name: 'small', model: make(chaos, 'small-model') },
            { name: 'large', model: make(chaos, 'large-model'), when: overflow },
          ]);
          const error = await generateText({ model, prompt: 'hi', maxRetries: 0 }).then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(isAllPathsFailedError(error)).toBe(false);
          expect(error).toMatchObject({ statusCode: 529 });
          expect(chaos.requests.map((r) => r.model)).toEqual(['small-model']);
        },
      );
    },
  );

  it.each(PROVIDERS)(
    '%s: `compact` shortens the prompt and the call succeeds on the same model (sent once more)',
    async (_name, make) => {
      await withChaos({ answers }, async (chaos) => {
        const seen: ModelPrompt[] = [];
        const model = fallbackModels([
          {
            name: 'small',
            model: make(chaos, 'small-model'),
            compact: (prompt) => {
              seen.push(prompt);
              return keepShort(prompt);
            },
          },
        ]);
        const result = await generateText({
          model,
          system: 'be brief',
          prompt: LONG,
          maxRetries: 0,
        });
        expect(result.text).toBe(ANSWER);
        expect(served(result.providerMetadata)).toMatchObject({
          servedBy: 'small',
          degraded: false,
        });
        expect(seen).toHaveLength(1);
        expect(JSON.stringify(seen[0])).toContain('word word');
        expect(chaos.requests.map((r) => [r.model, r.status])).toEqual([
          ['small-model', 400],
          ['small-model', 200],
        ]);
      });
    },
  );

  it.each(PROVIDERS)(
    '%s: streamText too: compacted once; a prompt still too long goes down the ladder to the larger model',
    async (_name, make) => {
      await withChaos({ answers }, async (chaos) => {
        let compactions = 0;
        const model = fallbackModels([
          {
            name: 'small',
            model: make(chaos, 'small-model'),
            compact: (prompt) => {
              compactions++;
              return prompt; // not short enough: overflows again
            },
          },
          { name: 'large', model: make(chaos, 'large-model'), when: overflow },
        ]);
        const result = streamText({ model, prompt: LONG, maxRetries: 0 });
        expect(await result.text).toBe(ANSWER);
        expect(compactions).toBe(1);
        expect(served(await result.providerMetadata)).toMatchObject({ servedBy: 'large' });
        expect(chaos.requests.map((r) => [r.model, r.status])).toEqual([
          ['small-model', 400],
          ['small-model', 400],
          ['large-model', 200],
        ]);
      });
    },
  );

  it('checks `when` and `compact` when built', () => {
    const m = {
      specificationVersion: 'v2',
      provider: 'p',
      modelId: 'm',
      supportedUrls: {},
      doGenerate: () => ({}),
      doStream: () => ({}),
    } as never;
    expect(() => fallbackModels([{ name: 'a', model: m, when: 5 as never }])).toThrow(
      /paths\[0\]\.when must be a function .*got 5/,
    );
    expect(() => fallbackModels([{ name: 'a', model: m, compact: 'x' as never }])).toThrow(
      /paths\[0\]\.compact must be a function/,
    );
  });
});
