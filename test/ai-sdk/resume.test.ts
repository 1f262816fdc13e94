import { generateText, jsonSchema, streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import { recourseMiddleware } from '../../src/ai-sdk/index.js';
import type { Fault } from '../../src/chaos/index.js';
import type { RecourseEventMap } from '../../src/index.js';
import { anthropicModel, chatModel, withChaos, wrap } from './helpers.js';

// recourseMiddleware({ resume }) with the real AI SDK providers against the chaos server: a stream
// that breaks after output began continues from a prefill of the text so far (Anthropic), or is
// passed on and said to need a restart (OpenAI).

type ResumeEvent = RecourseEventMap['resume'];
const LONG = { '*': { textTokens: 250 } };
const once = (fault: Fault) => ({ answers: LONG, scenario: { rules: [{ fault, times: 1 }] } });

/** The text deltas of a full stream joined, and its part types. */
async function read(
  stream: AsyncIterable<{ type: string; text?: string }>,
): Promise<{ text: string; types: string[] }> {
  let text = '';
  const types: string[] = [];
  for await (const part of stream) {
    types.push(part.type);
    if (part.type === 'text-delta') text += part.text ?? '';
  }
  return { text, types };
}

describe('recourseMiddleware resume: Anthropic (a trailing assistant message is a prefill)', () => {
  it('streamText: stall, truncate, reset and stream-error mid-text; the text and the streamed deltas are the unbroken answer, byte for byte', async () => {
    const unbroken = await withChaos(
      { answers: LONG },
      async (chaos) =>
        (
          await generateText({
            model: anthropicModel(chaos),
            prompt: 'Explain resumable streams.',
            maxRetries: 0,
          })
        ).text,
    );
    expect(unbroken.length).toBeGreaterThan(900);
    const faults: Fault[] = [
      { kind: 'truncate', afterEvents: 15 },
      { kind: 'stall', afterEvents: 30 },
      { kind: 'reset', afterEvents: 44 },
      { kind: 'stream-error', afterEvents: 60 },
    ];
    for (const fault of faults) {
      await withChaos(once(fault), async (chaos) => {
        const resumes: ResumeEvent[] = [];
        const model = wrap(
          anthropicModel(chaos),
          recourseMiddleware({
            firstItemMs: 10_000,
            idleMs: fault.kind === 'stall' ? 300 : 10_000,
            resume: { onResume: (e) => resumes.push(e) },
          }),
        );
        const result = streamText({ model, prompt: 'Explain resumable streams.', maxRetries: 0 });
        const streamed = await read(result.fullStream);
        expect(streamed.text).toBe(unbroken);
        expect(await result.text).toBe(unbroken);
        expect(await result.finishReason).toBe('stop');
        expect(streamed.types.filter((t) => t === 'text-start')).toHaveLength(1);
        expect(streamed.types.filter((t) => t === 'text-end')).toHaveLength(1);
        expect(streamed.types).not.toContain('error');
        expect(resumes).toMatchObject([{ name: 'claude-test', attempt: 1, mode: 'continue' }]);
        expect(chaos.requests).toHaveLength(2);
        expect(chaos.requests[1]!.prefill).toEqual({ chars: resumes[0]!.keptChars, matched: true });
        // output tokens: the broken request's (estimated from what it sent) plus the continuation's
        const usage = await result.usage;
        expect(usage.outputTokens).toBeGreaterThan(chaos.requests[1]!.usage!.output);
        expect(usage.outputTokens).toBeLessThan(
          chaos.requests[0]!.usage!.output + chaos.requests[1]!.usage!.output,
        );
      });
    }
  });

  it('streamText with a tool: a break inside the tool input resumes before the call, which comes whole', async () => {
    const input = { city: 'Lisbon', days: [1, 2, 3], note: 'x'.repeat(80) };
    const answers = {
      '*': { text: 'Let me check the weather.', toolUse: { name: 'weather', input } },
    };
    const tools = {
      weather: {
        description: 'Weather',
        inputSchema: jsonSchema({ type: 'object', properties: {} }),
      },
    };
    // message_start, text block (start, ping, deltas, stop), tool block start, '' and two JSON pieces: then the break
    const events = 1 + 2 + 3 + 1 + 1 + 3;
    await withChaos(
      {
        answers,
        scenario: { rules: [{ fault: { kind: 'stream-error', afterEvents: events }, times: 1 }] },
      },
      async (chaos) => {
        const resumes: ResumeEvent[] = [];
        const model = wrap(
          anthropicModel(chaos),
          recourseMiddleware({ resume: { onResume: (e) => resumes.push(e) } }),
        );
        const result = streamText({ model, prompt: 'Weather in Lisbon?', tools, maxRetries: 0 });
        const streamed = await read(result.fullStream);
        expect(resumes).toMatchObject([
          { attempt: 1, mode: 'continue', keptChars: 'Let me check the weather.'.length },
        ]);
        expect(streamed.text).toBe('Let me check the weather.');
        expect(await result.toolCalls).toMatchObject([{ toolName: 'weather', input }]);
        expect(streamed.types.filter((t) => t === 'tool-input-start')).toHaveLength(1);
        expect(await result.finishReason).toBe('tool-calls');
      },
    );
  });

  it('generateText: a JSON answer has nothing to keep, so resume changes nothing there (the policy retries it whole)', async () => {
    await withChaos({ answers: LONG }, async (chaos) => {
      const model = wrap(anthropicModel(chaos), recourseMiddleware({ resume: true }));
      const { text } = await generateText({
        model,
        prompt: 'Explain resumable streams.',
        maxRetries: 0,
      });
      expect(text.length).toBeGreaterThan(900);
      expect(chaos.requests.map((r) => r.stream)).toEqual([false]);
    });
  });

  it('a non-transient break (in-stream 400) and a break before output are not resumed', async () => {
    for (const fault of [
      { kind: 'stream-error', afterEvents: 20, errorType: 'invalid_request_error' },
      { kind: 'truncate', afterEvents: 2 },
    ] satisfies Fault[]) {
      await withChaos(once(fault), async (chaos) => {
        const resumes: ResumeEvent[] = [];
        const model = wrap(
          anthropicModel(chaos),
          recourseMiddleware({ resume: { onResume: (e) => resumes.push(e) } }),
        );
        const result = streamText({
          model,
          prompt: 'Explain resumable streams.',
          maxRetries: 0,
          onError: () => {},
        });
        const error = await result.text.then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeDefined();
        expect(resumes).toEqual([]);
        expect(chaos.requests).toHaveLength(1);
      });
    }
  });
});

describe('recourseMiddleware resume: providers that take no prefill restart, and say so', () => {
  it('OpenAI Chat Completions: the break is passed on (the caller’s retry starts over) and the resume event says restart', async () => {
    await withChaos(once({ kind: 'truncate', afterEvents: 20 }), async (chaos) => {
      const resumes: ResumeEvent[] = [];
      const model = wrap(
        chatModel(chaos),
        recourseMiddleware({ resume: { onResume: (e) => resumes.push(e) } }),
      );
      const result = streamText({
        model,
        prompt: 'Explain resumable streams.',
        maxRetries: 0,
        onError: () => {},
      });
      await expect(result.text).rejects.toMatchObject({ name: 'IncompleteStreamError' });
      expect(resumes).toMatchObject([
        { name: 'gpt-test', attempt: 1, keptChars: 0, mode: 'restart' },
      ]);
      expect(chaos.requests).toHaveLength(1);
    });
  });

  it('Anthropic with extended thinking on: restart too', async () => {
    await withChaos(once({ kind: 'truncate', afterEvents: 30 }), async (chaos) => {
      const resumes: ResumeEvent[] = [];
      const model = wrap(
        anthropicModel(chaos),
        recourseMiddleware({ resume: { onResume: (e) => resumes.push(e) } }),
      );
      const result = streamText({
        model,
        prompt: 'Explain resumable streams.',
        maxRetries: 0,
        maxOutputTokens: 4096,
        providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } } },
        onError: () => {},
      });
      await expect(result.text).rejects.toBeInstanceOf(Error);
      expect(resumes).toMatchObject([{ attempt: 1, keptChars: 0, mode: 'restart' }]);
    });
  });
});
