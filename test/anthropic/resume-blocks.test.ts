import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { streamMessage } from '../../src/anthropic/index.js';
import type { ChaosServer } from '../../src/chaos/index.js';
import {
  body,
  consumer,
  expectOneMessage,
  type ResumeEvent,
  recording,
  textOf,
  withChaos,
} from './resume-helpers.js';

const TOOLS = [
  { name: 'lookup', description: 'Looks a topic up.', input_schema: { type: 'object' as const } },
];
const INPUT = {
  query: 'resumable streams',
  pages: [1, 2, 3],
  deep: { a: 'x'.repeat(60), b: true },
};

/** The SSE event types of the unbroken answer to `request`, in order. */
async function eventTypes(
  chaos: ChaosServer,
  request: Anthropic.MessageStreamParams,
): Promise<string[]> {
  const res = await fetch(`${chaos.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...request, stream: true }),
  });
  return (await res.text())
    .split('\n\n')
    .filter((f) => f.trim() !== '')
    .map((f) => {
      const d = JSON.parse(f.slice(f.indexOf('data:') + 5)) as {
        type: string;
        content_block?: { type: string };
      };
      return d.content_block === undefined ? d.type : `${d.type}:${d.content_block.type}`;
    });
}

describe('streamMessage resume: only complete blocks are kept', () => {
  it('a stream broken inside a tool_use block resumes before that block: the call comes whole, its input valid JSON, shown once', async () => {
    const answers = {
      '*': { text: 'Let me look that up.', toolUse: { name: 'lookup', input: INPUT } },
    };
    const request = body(0, { tools: TOOLS });
    const types = await withChaos({ answers }, (chaos) => eventTypes(chaos, request));
    const toolStart = types.indexOf('content_block_start:tool_use');
    expect(toolStart).toBeGreaterThan(0);
    // cut after the tool block's start and two pieces of its JSON
    const scenario = {
      rules: [{ fault: { kind: 'stream-error' as const, afterEvents: toolStart + 3 }, times: 1 }],
    };
    await withChaos({ answers, scenario }, async (chaos, client) => {
      const c = consumer();
      const resumes: ResumeEvent[] = [];
      const rec = recording(client);
      const message = await streamMessage(rec.client, request, {
        onEvent: c.onEvent,
        resume: { onResume: (e) => resumes.push(e) },
      });
      expect(resumes).toMatchObject([
        {
          attempt: 1,
          keptChars: 'Let me look that up.'.length,
          mode: 'continue',
          reason: 'overloaded',
        },
      ]);
      // the prefill is the text block only: no tool_use in it (the API would want its tool_result)
      expect(rec.bodies[1]!.messages.at(-1)).toEqual({
        role: 'assistant',
        content: [{ type: 'text', text: 'Let me look that up.' }],
      });
      expect(chaos.requests[1]!.prefill).toEqual({ chars: 20, matched: true });
      expect(message.stop_reason).toBe('tool_use');
      expect(message.content).toEqual([
        { type: 'text', text: 'Let me look that up.', citations: null },
        { type: 'tool_use', id: expect.any(String), name: 'lookup', input: INPUT },
      ]);
      expectOneMessage(c.events);
      expect(
        c.events
          .filter((e) => e.type === 'content_block_start')
          .map((e) => (e as Anthropic.RawContentBlockStartEvent).content_block.type),
      ).toEqual(['text', 'tool_use']);
      const json = c.events
        .filter((e) => e.type === 'content_block_delta' && e.delta.type === 'input_json_delta')
        .map((e) => (e as { delta: { partial_json: string } }).delta.partial_json)
        .join('');
      expect(JSON.parse(json)).toEqual(INPUT);
    });
  });

  it('a tool call and message_delta reach onEvent only once the message is complete', async () => {
    const answers = { '*': { text: 'Looking.', toolUse: { name: 'lookup', input: INPUT } } };
    await withChaos({ answers }, async (_, client) => {
      const seen: string[] = [];
      let stopSeen = false;
      const message = await streamMessage(client, body(0, { tools: TOOLS }), {
        resume: true,
        onEvent: (e) => {
          if (e.type === 'message_stop') stopSeen = true;
          seen.push(e.type);
        },
      });
      expect(stopSeen).toBe(true);
      expect(message.content.map((b) => b.type)).toEqual(['text', 'tool_use']);
      expect(seen.slice(-2)).toEqual(['message_delta', 'message_stop']);
    });
  });

  it('with extended thinking on (no prefill possible) a break restarts the request and the resume event says so', async () => {
    const answers = { '*': { textTokens: 150, thinkingTokens: 60 } };
    const request = body(0, { thinking: { type: 'enabled', budget_tokens: 1024 } });
    const types = await withChaos({ answers }, (chaos) => eventTypes(chaos, request));
    const textStart = types.indexOf('content_block_start:text');
    expect(types.indexOf('content_block_start:thinking')).toBeLessThan(textStart);
    for (const afterEvents of [textStart - 3, textStart + 10]) {
      const scenario = { rules: [{ fault: { kind: 'truncate' as const, afterEvents }, times: 1 }] };
      await withChaos({ answers, scenario }, async (chaos, client) => {
        const c = consumer();
        const resumes: ResumeEvent[] = [];
        const message = await streamMessage(client, request, {
          onEvent: c.onEvent,
          resume: { onResume: (e) => resumes.push(e) },
        });
        const unbroken = await streamMessage(client, request, {});
        expect(resumes).toMatchObject([
          { attempt: 1, keptChars: 0, mode: 'restart', reason: expect.any(String) },
        ]);
        expect(chaos.requests.map((r) => r.prefill)).toEqual([null, null, null]);
        expect(message.content.map((b) => b.type)).toEqual(['thinking', 'text']);
        expect(message.content).toEqual(unbroken.content);
        expect(textOf(message)).toBe(textOf(unbroken));
        // usage: both requests' input; the broken one's output estimated from what it sent, plus the full answer's
        expect(message.usage.input_tokens).toBe(2 * unbroken.usage.input_tokens);
        expect(message.usage.output_tokens).toBeGreaterThan(unbroken.usage.output_tokens);
        // the caller sees the new message from its own message_start: start over
        expect(c.events.filter((e) => e.type === 'message_start')).toHaveLength(2);
      });
    }
  });

  it('a break inside the text before a tool call keeps the text and regenerates the call', async () => {
    const answers = { '*': { textTokens: 60, toolUse: { name: 'lookup', input: INPUT } } };
    const request = body(0, { tools: TOOLS });
    const reference = await withChaos({ answers }, (_, client) =>
      streamMessage(client, request, {}),
    );
    const scenario = { rules: [{ fault: { kind: 'reset' as const, afterEvents: 12 }, times: 1 }] };
    await withChaos({ answers, scenario }, async (_, client) => {
      const c = consumer();
      const message = await streamMessage(client, request, { onEvent: c.onEvent, resume: true });
      expect(message.content.map((b) => b.type)).toEqual(['text', 'tool_use']);
      expect(textOf(message)).toBe(textOf(reference));
      expect(message.content[1]).toMatchObject({ type: 'tool_use', name: 'lookup', input: INPUT });
      expect(c.text()).toBe(textOf(reference));
      expectOneMessage(c.events);
    });
  });
});
