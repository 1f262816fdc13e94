import { jsonSchema, streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import { recourseMiddleware } from '../../src/ai-sdk/index.js';
import {
  classify,
  isStallError,
  pipeline,
  retry,
  type StallError,
  timeout,
} from '../../src/index.js';
import { constant } from '../../src/index.js';
import {
  ANSWER,
  anthropicModel,
  idleReference,
  outcome,
  PROVIDERS,
  readFull,
  rules,
  socketsClosed,
  withChaos,
  wrap,
} from './helpers.js';

// recourseMiddleware around doStream, with the real AI SDK providers against the chaos server.

const quickRetry = (maxAttempts = 3) => retry({ maxAttempts, backoff: constant(10) });

describe('recourseMiddleware: a stream that stalls after its first part', () => {
  it.each(PROVIDERS)(
    '%s: streamText rejects with StallError once idleMs passes, and the socket is closed',
    async (_name, make) => {
      await withChaos(rules({ fault: { kind: 'stall', afterEvents: 6 } }), async (chaos) => {
        const model = wrap(make(chaos), recourseMiddleware({ firstItemMs: 10_000, idleMs: 300 }));
        const result = streamText({ model, prompt: 'hi', maxRetries: 0, maxOutputTokens: 500 });
        const reference = idleReference(300);
        const read = await readFull(result.fullStream, reference.rearm);
        expect(read.types).toContain('text-delta');
        expect(isStallError(read.error)).toBe(true);
        expect((read.error as StallError).phase).toBe('idle');
        expect(read.endedAt - read.lastPartAt).toBeGreaterThanOrEqual(295);
        // Fired with the reference timer, not a whole idle period after it; how close is the bench's
        // figure (stall-precision), this bound leaves room for a loaded machine.
        expect(reference.lateAt(read.endedAt)).toBeLessThan(250);
        await expect(result.text).rejects.toMatchObject({ name: 'StallError' });
        await socketsClosed(chaos);
        expect(chaos.requests).toHaveLength(1);
      });
    },
  );

  it('the stall is not retried once output reached the caller (a policy runs only until the first part of output)', async () => {
    await withChaos(
      rules({ fault: { kind: 'stall', afterEvents: 6 }, times: 1 }),
      async (chaos) => {
        const model = wrap(
          anthropicModel(chaos),
          recourseMiddleware({ firstItemMs: 10_000, idleMs: 200, policy: quickRetry() }),
        );
        const result = streamText({ model, prompt: 'hi', maxRetries: 0, maxOutputTokens: 500 });
        await expect(result.text).rejects.toMatchObject({ name: 'StallError', phase: 'idle' });
        expect(chaos.requests).toHaveLength(1);
      },
    );
  });
});

describe('recourseMiddleware: failures before the first part of output are attempts the policy retries', () => {
  it.each(PROVIDERS)(
    '%s: a stall, an in-stream error, a truncation and a 529 before any output are retried; the caller sees one clean answer',
    async (_name, make) => {
      const faults = [
        { fault: { kind: 'stall' as const, afterEvents: 1 }, times: 1 },
        {
          fault: { kind: 'stream-error' as const, afterEvents: 1, errorType: 'overloaded_error' },
          times: 1,
        },
        { fault: { kind: 'truncate' as const, afterEvents: 1 }, times: 1 },
        { fault: { kind: 'status' as const, status: 529 }, times: 1 },
      ];
      await withChaos(rules(...faults), async (chaos) => {
        const model = wrap(
          make(chaos),
          recourseMiddleware({ firstItemMs: 300, idleMs: 300, policy: quickRetry(5) }),
        );
        const result = streamText({ model, prompt: 'hi', maxRetries: 0, maxOutputTokens: 500 });
        const read = await readFull(result.fullStream);
        expect(read.error).toBeUndefined();
        expect(await result.text).toBe(ANSWER);
        expect(await result.finishReason).toBe('stop');
        // one answer: a single text block opened once, not the openings of the dropped attempts
        expect(read.types.filter((t) => t === 'text-start')).toHaveLength(1);
        expect(chaos.requests.map((r) => r.fault)).toEqual([
          'stall',
          'stream-error',
          'truncate',
          'status',
          null,
        ]);
        await socketsClosed(chaos);
      });
    },
  );

  it('without a policy, a stall before any output is one failure: an error part with StallError, no text', async () => {
    await withChaos(rules({ fault: { kind: 'stall', afterEvents: 0 } }), async (chaos) => {
      const model = wrap(anthropicModel(chaos), recourseMiddleware({ firstItemMs: 250 }));
      const errors: unknown[] = [];
      const started = performance.now();
      const result = streamText({
        model,
        prompt: 'hi',
        maxRetries: 0,
        maxOutputTokens: 500,
        onError: ({ error }) => void errors.push(error),
      });
      const read = await readFull(result.fullStream);
      expect(read.types).toContain('error');
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ name: 'StallError', phase: 'first-item', limitMs: 250 });
      expect(read.endedAt - started).toBeLessThan(1000);
      await socketsClosed(chaos);
    });
  });

  it('a timeout in the policy bounds the wait for the first output, not the stream after it', async () => {
    const scenario = {
      pacing: [{ betweenEventsMs: 40 }],
      rules: [{ fault: { kind: 'latency' as const, ms: 4_000 }, times: 1 }],
    };
    await withChaos({ answers: { '*': { textTokens: 40 } }, scenario }, async (chaos) => {
      const model = wrap(
        anthropicModel(chaos),
        recourseMiddleware({ idleMs: 1000, policy: pipeline(quickRetry(2), timeout(1_000)) }),
      );
      const result = streamText({ model, prompt: 'hi', maxRetries: 0, maxOutputTokens: 500 });
      const text = await result.text;
      // the first request waited 4 s for headers: timed out at 1 s and retried; the second streams
      // for longer than 1 s (40 tokens 40 ms apart); the margins leave room for a loaded machine
      expect(chaos.requests).toHaveLength(2);
      expect(text.length).toBeGreaterThan(60);
      await socketsClosed(chaos);
    });
  });
});

describe('recourseMiddleware: a stream never resolves as a success when its answer is cut', () => {
  it.each(PROVIDERS)(
    '%s: truncated after output began → IncompleteStreamError (transient), not the partial text',
    async (_name, make) => {
      await withChaos(rules({ fault: { kind: 'truncate', afterEvents: 6 } }), async (chaos) => {
        const model = wrap(make(chaos), recourseMiddleware({ idleMs: 1000 }));
        const result = streamText({ model, prompt: 'hi', maxRetries: 0, maxOutputTokens: 500 });
        const read = await readFull(result.fullStream);
        expect(read.types).toContain('text-delta');
        expect(read.error).toMatchObject({
          name: 'IncompleteStreamError',
          code: 'ERR_STREAM_PREMATURE_CLOSE',
        });
        expect(classify(read.error)).toMatchObject({ kind: 'transient', retryable: true });
        const text = await outcome(result.text);
        expect(text.error).toMatchObject({ name: 'IncompleteStreamError' });
        expect(text.value).toBeUndefined();
      });
    },
  );

  it.each(PROVIDERS.map(([name, make], i) => [name, make, i === 0 ? 529 : 503] as const))(
    '%s: an in-stream error after output began errors the stream with that error (the SDK alone resolves the partial text)',
    async (_name, make, status) => {
      await withChaos(
        rules({ fault: { kind: 'stream-error', afterEvents: 6, errorType: 'overloaded_error' } }),
        async (chaos) => {
          const model = wrap(make(chaos), recourseMiddleware({ idleMs: 1000 }));
          const result = streamText({ model, prompt: 'hi', maxRetries: 0, maxOutputTokens: 500 });
          const read = await readFull(result.fullStream);
          expect(read.types).toContain('text-delta');
          expect(classify(read.error)).toMatchObject({
            kind: 'transient',
            retryable: true,
            status,
          });
          await expect(result.text).rejects.toBe(read.error);
          await socketsClosed(chaos);
        },
      );
    },
  );
});

describe('recourseMiddleware: what counts as progress', () => {
  it('keep-alives (ping parts the provider passes on) do not: a ping-only stream stalls', async () => {
    await withChaos(
      rules({ fault: { kind: 'keepalive', afterEvents: 6, intervalMs: 50 } }),
      async (chaos) => {
        const model = wrap(anthropicModel(chaos), recourseMiddleware({ idleMs: 300 }));
        const result = streamText({
          model,
          prompt: 'hi',
          maxRetries: 0,
          maxOutputTokens: 500,
          includeRawChunks: true,
          providerOptions: { anthropic: { includePings: true } },
        });
        const read = await readFull(result.fullStream);
        expect(read.types.filter((t) => t === 'raw').length).toBeGreaterThan(6); // the pings did arrive
        expect(read.error).toMatchObject({ name: 'StallError', phase: 'idle' });
        await socketsClosed(chaos);
      },
    );
  });

  it('reasoning deltas do: a thinking stream with 50 ms gaps completes under idleMs 500: its deltas alone span more', async () => {
    const answers = {
      '*': {
        thinking: 'First this, then that, and finally the other thing to weigh. '.repeat(3).trim(),
        text: 'Done.',
      },
    };
    await withChaos(
      { answers, scenario: { rules: [{ fault: { kind: 'slow', perEventMs: 50 } }] } },
      async (chaos) => {
        const model = wrap(
          anthropicModel(chaos),
          recourseMiddleware({ firstItemMs: 10_000, idleMs: 500 }),
        );
        const result = streamText({
          model,
          prompt: 'hi',
          maxRetries: 0,
          maxOutputTokens: 4000,
          providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } } },
        });
        const read = await readFull(result.fullStream);
        expect(read.error).toBeUndefined();
        expect(read.errorParts).toEqual([]);
        // More than 10 deltas 50 ms apart: they alone span more than idleMs, and each gap is a tenth of it
        // (room for a loaded machine).
        expect(read.types.filter((t) => t === 'reasoning-delta').length).toBeGreaterThan(10);
        expect(await result.text).toBe('Done.');
      },
    );
  });

  it('tool-input deltas do: a tool call streamed with 50 ms gaps completes under idleMs 500: its deltas alone span more', async () => {
    const answers = {
      '*': {
        text: 'Checking.',
        toolUse: {
          name: 'get_weather',
          input: { city: 'Lisbon', units: 'metric', detail: 'hourly forecast please, '.repeat(8) },
        },
      },
    };
    await withChaos(
      { answers, scenario: { rules: [{ fault: { kind: 'slow', perEventMs: 50 } }] } },
      async (chaos) => {
        const model = wrap(
          anthropicModel(chaos),
          recourseMiddleware({ firstItemMs: 10_000, idleMs: 500 }),
        );
        const result = streamText({
          model,
          prompt: 'hi',
          maxRetries: 0,
          maxOutputTokens: 500,
          tools: { get_weather: { inputSchema: jsonSchema({ type: 'object', properties: {} }) } },
        });
        const read = await readFull(result.fullStream);
        expect(read.error).toBeUndefined();
        expect(read.errorParts).toEqual([]);
        expect(read.types.filter((t) => t === 'tool-input-delta').length).toBeGreaterThan(10);
        expect((await result.toolCalls).map((c) => c.input)).toEqual([
          { city: 'Lisbon', units: 'metric', detail: 'hourly forecast please, '.repeat(8) },
        ]);
      },
    );
  });
});

describe('recourseMiddleware: cancellation', () => {
  it("the caller's abortSignal ends the stream at once and closes the socket", async () => {
    await withChaos(rules({ fault: { kind: 'stall', afterEvents: 6 } }), async (chaos) => {
      const model = wrap(
        anthropicModel(chaos),
        recourseMiddleware({ idleMs: 60_000, policy: quickRetry() }),
      );
      const controller = new AbortController();
      const result = streamText({
        model,
        prompt: 'hi',
        maxRetries: 0,
        maxOutputTokens: 500,
        abortSignal: controller.signal,
      });
      const types: string[] = [];
      const reading = (async () => {
        for await (const part of result.fullStream) {
          types.push(part.type);
          if (part.type === 'text-delta' && types.filter((t) => t === 'text-delta').length === 1)
            setTimeout(() => controller.abort(), 50);
        }
      })();
      const started = performance.now();
      await outcome(reading);
      expect(performance.now() - started).toBeLessThan(5_000); // at the abort, not at a stall
      expect(types).toContain('abort');
      await socketsClosed(chaos);
      expect(chaos.requests).toHaveLength(1);
    });
  });
});
