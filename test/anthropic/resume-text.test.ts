import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { streamMessage } from '../../src/anthropic/index.js';
import type { ChaosServerOptions, Fault } from '../../src/chaos/index.js';
import {
  body,
  consumer,
  expectOneMessage,
  question,
  type ResumeEvent,
  recording,
  sentBefore,
  textOf,
  withChaos,
} from './resume-helpers.js';

const LONG = { answers: { '*': { textTokens: 300 } } };
const once = (fault: Fault): ChaosServerOptions => ({
  ...LONG,
  scenario: { rules: [{ fault, times: 1 }] },
});

describe('streamMessage resume: a text stream broken after content began continues where it stopped', () => {
  it('truncate, stall, reset and stream-error mid-text: final text and onEvent text byte-identical to the unbroken answer', async () => {
    const faults: Fault[] = [
      { kind: 'truncate', afterEvents: 20 },
      { kind: 'stall', afterEvents: 33 },
      { kind: 'reset', afterEvents: 41 },
      { kind: 'stream-error', afterEvents: 57 },
    ];
    for (const fault of faults) {
      await withChaos(once(fault), async (chaos, client) => {
        const c = consumer();
        const resumes: ResumeEvent[] = [];
        const message = await streamMessage(client, body(), {
          firstItemMs: 10_000,
          idleMs: fault.kind === 'stall' ? 300 : 10_000,
          onEvent: c.onEvent,
          resume: { onResume: (e) => resumes.push(e) },
        });
        const unbroken = await streamMessage(client, body(), {});
        expect(chaos.requests.map((r) => r.fault)).toEqual([fault.kind, null, null]);
        expect(textOf(unbroken).length).toBeGreaterThan(1000);
        expect(textOf(message)).toBe(textOf(unbroken));
        expect(c.text()).toBe(textOf(unbroken));
        expectOneMessage(c.events);
        expect(message.content).toEqual([
          { type: 'text', text: textOf(unbroken), citations: null },
        ]);
        expect(message.stop_reason).toBe('end_turn');
        expect(message.id).toBe((c.events[0] as Anthropic.RawMessageStartEvent).message.id);
        expect(resumes).toHaveLength(1);
        const resumed = chaos.requests[1]!;
        expect(resumed.prefill).toEqual({ chars: resumes[0]!.keptChars, matched: true });
        expect(resumes[0]).toMatchObject({ name: 'claude-test', attempt: 1, mode: 'continue' });
        expect(resumes[0]!.keptChars).toBeGreaterThan(0);
        // usage: what the broken request sent (4 characters a token) plus the continuation's own count
        expect(message.usage.output_tokens).toBeLessThan(2 * unbroken.usage.output_tokens);
        expect(message.usage.output_tokens).toBeGreaterThanOrEqual(unbroken.usage.output_tokens);
        expect(message.usage.input_tokens).toBe(
          chaos.requests[0]!.usage!.input + resumed.usage!.input,
        );
      });
    }
  });
});

describe('streamMessage resume: what is not resumed, and what it costs', () => {
  it('usage.output_tokens is the sum over requests: the broken one by what it sent, the continuation as reported', async () => {
    await withChaos(once({ kind: 'truncate', afterEvents: 30 }), async (chaos, client) => {
      const resumes: ResumeEvent[] = [];
      const message = await streamMessage(client, body(), {
        resume: { onResume: (e) => resumes.push(e) },
      });
      const sent = await sentBefore(chaos, 30);
      const continued = chaos.requests[1]!.usage!.output;
      expect(message.usage.output_tokens).toBe(Math.ceil(sent.length / 4) + continued);
      // the kept text is what was sent, without trailing whitespace
      expect(resumes[0]!.keptChars).toBe(sent.trimEnd().length);
      expect(chaos.requests[1]!.prefill).toEqual({ chars: sent.trimEnd().length, matched: true });
    });
  });

  it('a non-transient break (in-stream invalid_request_error 400, authentication_error 401) is not resumed', async () => {
    for (const errorType of ['invalid_request_error', 'authentication_error']) {
      await withChaos(
        once({ kind: 'stream-error', afterEvents: 20, errorType }),
        async (chaos, client) => {
          const resumes: ResumeEvent[] = [];
          const error = await streamMessage(client, body(), {
            resume: { onResume: (e) => resumes.push(e) },
          }).catch((e: unknown) => e);
          expect(error).toBeInstanceOf(Anthropic.APIError);
          expect((error as { error: { error: { type: string } } }).error.error.type).toBe(
            errorType,
          );
          expect(chaos.requests).toHaveLength(1);
          expect(resumes).toEqual([]);
        },
      );
    }
  });

  it('a 401 answering the continuation ends it: thrown as it is', async () => {
    const scenario = {
      rules: [
        { fault: { kind: 'truncate' as const, afterEvents: 20 }, times: 1 },
        { fault: { kind: 'status' as const, status: 401 }, times: 1 },
      ],
    };
    await withChaos({ ...LONG, scenario }, async (chaos, client) => {
      const error = await streamMessage(client, body(), { resume: true }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
      expect(chaos.requests.map((r) => r.status)).toEqual([200, 401]);
    });
  });

  it('a break before any content block is not resumed (nothing to keep: that is retry’s job)', async () => {
    await withChaos(once({ kind: 'truncate', afterEvents: 1 }), async (chaos, client) => {
      const error = await streamMessage(client, body(), { resume: true }).catch((e: unknown) => e);
      expect((error as Error).name).toBe('IncompleteStreamError');
      expect(chaos.requests).toHaveLength(1);
    });
  });

  it('gives up after maxResumes continuations and throws the last break', async () => {
    const always: ChaosServerOptions = {
      ...LONG,
      scenario: { rules: [{ fault: { kind: 'truncate', afterEvents: 10 } }] },
    };
    await withChaos(always, async (chaos, client) => {
      const resumes: ResumeEvent[] = [];
      const error = await streamMessage(client, body(), {
        resume: { maxResumes: 3, onResume: (e) => resumes.push(e) },
      }).catch((e: unknown) => e);
      expect((error as Error).name).toBe('IncompleteStreamError');
      expect(chaos.requests).toHaveLength(4);
      expect(resumes.map((e) => e.attempt)).toEqual([1, 2, 3]);
      // every continuation kept more text
      expect(resumes.map((e) => e.keptChars)).toEqual(
        [...resumes.map((e) => e.keptChars)].sort((a, b) => a - b),
      );
      expect(new Set(resumes.map((e) => e.keptChars)).size).toBe(3);
      expect(resumes.every((e) => e.reason === 'incomplete_stream' || e.reason.length > 0)).toBe(
        true,
      );
    });
    await withChaos(always, async (chaos, client) => {
      await expect(streamMessage(client, body(), { resume: { maxResumes: 0 } })).rejects.toThrow(
        /without message_stop/,
      );
      expect(chaos.requests).toHaveLength(1);
    });
  });

  it('survives several breaks in a row: each continuation broken again, the text still exact', async () => {
    const rules = [10, 25, 40].map((afterEvents) => ({
      fault: { kind: 'truncate' as const, afterEvents },
      times: 1,
    }));
    await withChaos({ ...LONG, scenario: { rules } }, async (chaos, client) => {
      const c = consumer();
      const message = await streamMessage(client, body(), {
        onEvent: c.onEvent,
        resume: { maxResumes: 3 },
      });
      const unbroken = await streamMessage(client, body(), {});
      expect(chaos.requests.map((r) => r.fault)).toEqual([
        'truncate',
        'truncate',
        'truncate',
        null,
        null,
      ]);
      expect(textOf(message)).toBe(textOf(unbroken));
      expect(c.text()).toBe(textOf(unbroken));
      expectOneMessage(c.events);
    });
  });

  it('max_tokens counts the kept tokens; a budget the kept text spends ends the message without another request', async () => {
    await withChaos(once({ kind: 'truncate', afterEvents: 30 }), async (chaos, client) => {
      const rec = recording(client);
      const c = consumer();
      const message = await streamMessage(rec.client, body(0, { max_tokens: 200 }), {
        onEvent: c.onEvent,
        resume: true,
      });
      const unbroken = await streamMessage(client, body(0, { max_tokens: 200 }), {});
      expect(unbroken.stop_reason).toBe('max_tokens');
      const kept = chaos.requests[1]!.prefill!.chars;
      expect(rec.bodies[1]!.max_tokens).toBe(200 - Math.ceil(kept / 4));
      expect(message.stop_reason).toBe('max_tokens');
      // the same answer, cut at most 3 characters earlier (the kept part's token count rounds up)
      expect(textOf(unbroken).startsWith(textOf(message))).toBe(true);
      expect(textOf(unbroken).length - textOf(message).length).toBeLessThanOrEqual(3);
      expect(c.text()).toBe(textOf(message));
    });
    // A 20-token answer cut right before message_stop: everything kept, nothing left to ask for.
    await withChaos(
      {
        ...LONG,
        scenario: { rules: [{ fault: { kind: 'truncate', afterEvents: 1000 }, times: 1 }] },
      },
      async (chaos, client) => {
        const c = consumer();
        const message = await streamMessage(client, body(0, { max_tokens: 20 }), {
          onEvent: c.onEvent,
          resume: true,
        });
        expect(chaos.requests).toHaveLength(1);
        expect(message.stop_reason).toBe('max_tokens');
        expect(textOf(message).length).toBeGreaterThan(70);
        expect(textOf(message).length).toBeLessThanOrEqual(80);
        expect(message.usage.output_tokens).toBe(20);
        expectOneMessage(c.events);
        expect(c.text()).toBe(textOf(message));
      },
    );
  });

  it('adds the kept text to the caller’s own trailing assistant message', async () => {
    const answer = await withChaos(LONG, async (_, client) =>
      textOf(await streamMessage(client, body(), {})),
    );
    await withChaos(
      {
        ...LONG,
        scenario: { rules: [{ fault: { kind: 'stream-error', afterEvents: 25 }, times: 1 }] },
      },
      async (chaos, client) => {
        const own = answer.slice(0, 200).trimEnd();
        const messages: Anthropic.MessageParam[] = [
          ...question(0),
          { role: 'assistant', content: own },
        ];
        const c = consumer();
        const message = await streamMessage(client, body(0, { messages }), {
          onEvent: c.onEvent,
          resume: true,
        });
        expect(own + textOf(message)).toBe(answer);
        expect(own + c.text()).toBe(answer);
        expect(chaos.requests[0]!.prefill).toEqual({ chars: own.length, matched: true });
        expect(chaos.requests[1]!.prefill).toEqual({ chars: expect.any(Number), matched: true });
        expect(chaos.requests[1]!.prefill!.chars).toBeGreaterThan(own.length);
      },
    );
  });
});
