import type Anthropic from '@anthropic-ai/sdk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { streamMessage } from '../../src/anthropic/index.js';
import type { CannedAnswer, ChaosServer, Fault } from '../../src/chaos/index.js';
import {
  body,
  consumer,
  type Event,
  expectOneMessage,
  type ResumeEvent,
  textOf,
  withChaos,
} from './resume-helpers.js';

// Stream resumption (docs/anthropic.md, "Stream resumption"): for every fault kind that can break a stream after content began, at
// every event position of a canned answer, over answers heavy in whitespace: the final message is
// the unbroken one, byte for byte, and so is what an onEvent consumer assembles.

const TOOLS = [
  { name: 'lookup', description: 'Looks a topic up.', input_schema: { type: 'object' as const } },
];
const TOOL_INPUT = {
  query: 'resumable streams',
  filters: { since: 2024, tags: ['sse', 'prefill', 'splice'] },
  note: 'ünïcödé 🚀 and "quotes"',
};

const ANSWERS: Record<string, CannedAnswer> = {
  // paragraphs, an indented code block: whitespace the API refuses at the end of a prefill
  generated: { textTokens: 120 },
  // runs of spaces, tabs, blank lines, a non-breaking space, a surrogate pair next to whitespace, and trailing whitespace at the very end
  whitespace: {
    text: 'First  line \t\n\n   indented\u00a0word  🚀 \n\t\tcode();  \n\nlast words   \n',
  },
  // text, then a tool call whose JSON streams in pieces
  tool: {
    text: 'Let me look that up for you, carefully. ',
    toolUse: { name: 'lookup', input: TOOL_INPUT },
  },
};

const KINDS = ['stall', 'truncate', 'reset', 'stream-error'] as const;

function faultOf(kind: (typeof KINDS)[number], afterEvents: number): Fault {
  return { kind, afterEvents };
}

/** The number of SSE events of the unbroken answer, and the index of the first content_block_start. */
async function shape(
  chaos: ChaosServer,
  request: Anthropic.MessageStreamParams,
): Promise<{ events: number; firstBlock: number }> {
  const res = await fetch(`${chaos.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...request, stream: true }),
  });
  const types = (await res.text())
    .split('\n\n')
    .filter((f) => f.trim() !== '')
    .map((f) => (JSON.parse(f.slice(f.indexOf('data:') + 5)) as { type: string }).type);
  return { events: types.length, firstBlock: types.indexOf('content_block_start') };
}

const toolJson = (events: readonly Event[]): string =>
  events
    .filter((e) => e.type === 'content_block_delta' && e.delta.type === 'input_json_delta')
    .map((e) => (e as { delta: { partial_json: string } }).delta.partial_json)
    .join('');

describe('streamMessage resume: property over fault kind × event position × whitespace', () => {
  it('the final message and the onEvent text are the unbroken ones, byte for byte; a tool call is whole and valid JSON', async () => {
    // The unbroken answers and their shapes, once.
    const unbroken = new Map<
      string,
      { message: Anthropic.Message; events: number; firstBlock: number }
    >();
    for (const [name, answer] of Object.entries(ANSWERS)) {
      await withChaos({ answers: { '*': answer } }, async (chaos, client) => {
        const request = body(0, { tools: TOOLS });
        unbroken.set(name, {
          message: await streamMessage(client, request, {}),
          ...(await shape(chaos, request)),
        });
      });
    }
    const cases = fc.constantFrom(...Object.keys(ANSWERS)).chain((name) =>
      fc.record({
        name: fc.constant(name),
        kind: fc.constantFrom(...KINDS),
        // every position, from before the first content block to right before message_stop
        at: fc.integer({ min: 1, max: unbroken.get(name)!.events }),
      }),
    );
    let resumed = 0;
    await fc.assert(
      fc.asyncProperty(cases, async ({ name, kind, at }) => {
        const reference = unbroken.get(name)!;
        const scenario = { rules: [{ fault: faultOf(kind, at), times: 1 }] };
        await withChaos({ answers: { '*': ANSWERS[name]! }, scenario }, async (chaos, client) => {
          const c = consumer();
          const resumes: ResumeEvent[] = [];
          const run = streamMessage(client, body(0, { tools: TOOLS }), {
            firstItemMs: 10_000,
            idleMs: kind === 'stall' ? 300 : 10_000,
            onEvent: c.onEvent,
            resume: { onResume: (e) => resumes.push(e) },
          });
          if (at <= reference.firstBlock) {
            // no content yet: nothing to resume, the break is thrown for retry
            await expect(run).rejects.toBeInstanceOf(Error);
            expect(resumes).toEqual([]);
            return;
          }
          const message = await run;
          resumed++;
          // (a loaded machine may add a false stall of its own: then more than one)
          expect(resumes.length).toBeGreaterThanOrEqual(1);
          expect(resumes[0]!.mode).toBe('continue');
          expect(textOf(message)).toBe(textOf(reference.message));
          expect(message.content.map(({ type }) => type)).toEqual(
            reference.message.content.map(({ type }) => type),
          );
          expect(message.content.map((b) => (b.type === 'tool_use' ? b.input : null))).toEqual(
            reference.message.content.map((b) => (b.type === 'tool_use' ? b.input : null)),
          );
          expect(message.stop_reason).toBe(reference.message.stop_reason);
          expect(c.text()).toBe(textOf(reference.message));
          expectOneMessage(c.events);
          if (name === 'tool') {
            const starts = c.events.filter(
              (e) => e.type === 'content_block_start' && e.content_block.type === 'tool_use',
            );
            expect(starts).toHaveLength(1);
            expect(JSON.parse(toolJson(c.events))).toEqual(TOOL_INPUT);
          }
          // the continuation was prefilled with exactly the kept characters, and the answer matched them
          const prefill = chaos.requests[1]!.prefill;
          if (resumes[0]!.keptChars === 0) expect(prefill).toBeNull();
          else expect(prefill).toEqual({ chars: resumes[0]!.keptChars, matched: true });
        });
      }),
      { numRuns: 120 },
    );
    expect(resumed).toBeGreaterThan(60);
  }, 120_000); // 120 runs of the real SDK against the chaos server: minutes on a loaded machine
});
