import { type LanguageModelMiddleware, streamText, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { recourseMiddleware } from '../../src/ai-sdk/index.js';
import { VirtualClock } from '../../src/testing/index.js';
import { anthropicModel, type Model, rules, socketsClosed, until, withChaos } from './helpers.js';

// Stall detection is on by default (docs/ai-sdk.md): the limits, on virtual time, with the real provider.

/** A middleware between recourse's and the model that records the provider's part types as they come. */
function recorder(seen: string[]): LanguageModelMiddleware {
  return {
    specificationVersion: 'v3',
    wrapStream: async ({ doStream }) => {
      const result = await doStream();
      const record = new TransformStream({
        transform(part: { type: string }, controller) {
          seen.push(part.type);
          controller.enqueue(part);
        },
      });
      return { ...result, stream: result.stream.pipeThrough(record) as typeof result.stream };
    },
  };
}

describe('recourseMiddleware: stall limits on by default', () => {
  // Anthropic wire: message_start, content_block_start, ping (dropped by the provider), a text delta, …
  it.each([
    {
      afterEvents: 4,
      last: 'text-delta',
      limitMs: 60_000,
      phase: 'idle',
      why: 'silent after a text delta',
    },
    {
      afterEvents: 2,
      last: 'text-start',
      limitMs: 300_000,
      phase: 'idle',
      why: 'quiet after a block starts (thinking, a tool call)',
    },
    {
      afterEvents: 0,
      last: 'stream-start',
      limitMs: 300_000,
      phase: 'first-item',
      why: 'no first part',
    },
  ])(
    'with no options, a stream $why stalls after $limitMs ms ($phase)',
    async ({ afterEvents, last, limitMs, phase }) => {
      await withChaos(rules({ fault: { kind: 'stall', afterEvents } }), async (chaos) => {
        const clock = new VirtualClock();
        const seen: string[] = [];
        const model = wrapLanguageModel({
          model: anthropicModel(chaos),
          middleware: [recourseMiddleware({ clock }), recorder(seen)],
        }) as Model;
        const errors: unknown[] = [];
        let failure: unknown;
        const result = streamText({
          model,
          prompt: 'hi',
          maxRetries: 0,
          maxOutputTokens: 500,
          onError: ({ error }) => void errors.push(error),
        });
        const done = result.consumeStream({ onError: (e) => (failure = e) }).then(() => true);
        let settled = false;
        void done.then(() => (settled = true));
        if (afterEvents === 0) await until(() => chaos.requests.length === 1 && clock.pending > 0);
        else await until(() => seen.at(-1) === last && clock.pending > 0);
        await clock.advance(limitMs - 1);
        expect(settled).toBe(false);
        await clock.advance(1);
        await until(() => settled);
        expect(failure ?? errors[0]).toMatchObject({ name: 'StallError', phase, limitMs });
        await socketsClosed(chaos);
      });
    },
  );

  it('Infinity turns every limit off: no timer is armed', async () => {
    await withChaos(rules({ fault: { kind: 'stall', afterEvents: 4 } }), async (chaos) => {
      const clock = new VirtualClock();
      const seen: string[] = [];
      const limits = {
        firstItemMs: Number.POSITIVE_INFINITY,
        idleMs: Number.POSITIVE_INFINITY,
        totalMs: Number.POSITIVE_INFINITY,
      };
      const model = wrapLanguageModel({
        model: anthropicModel(chaos),
        middleware: [recourseMiddleware({ clock, ...limits }), recorder(seen)],
      }) as Model;
      const controller = new AbortController();
      const result = streamText({
        model,
        prompt: 'hi',
        maxRetries: 0,
        maxOutputTokens: 500,
        abortSignal: controller.signal,
      });
      const done = result.consumeStream();
      await until(() => seen.includes('text-delta'));
      await clock.advance(10 * 86_400_000);
      expect(clock.pending).toBe(0);
      controller.abort();
      await done;
      await socketsClosed(chaos);
    });
  });

  it('option errors name the option, resume included', () => {
    expect(() => recourseMiddleware({ idleMs: 0 })).toThrow(
      /^idleMs must be a number of ms >= 1, or Infinity for no limit, got 0$/,
    );
    expect(() => recourseMiddleware({ policy: 5 as never })).toThrow(
      /^policy must be a policy .*got 5$/,
    );
    expect(() => recourseMiddleware({ idelMs: 5 } as never)).toThrow(
      /recourseMiddleware: unknown option "idelMs" \(did you mean "idleMs"\?\)/,
    );
    expect(() => recourseMiddleware({ resume: { maxResumes: -1 } })).toThrow(
      /^resume.maxResumes must be an integer >= 0, got -1$/,
    );
    expect(() => recourseMiddleware({ resume: { maxResume: 2 } as never })).toThrow(
      /^recourseMiddleware resume: unknown option "maxResume"/,
    );
    expect(() => recourseMiddleware({ resume: 'yes' as never })).toThrow(
      /^resume must be true, false or an object, got/,
    );
    expect(() => recourseMiddleware({ resume: true })).not.toThrow();
    expect(() => recourseMiddleware({ resume: false })).not.toThrow();
  });
});
