import Anthropic from '@anthropic-ai/sdk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChaosServer } from '../../src/chaos/index.js';
import { anthropicBody, dataOf, parseSse, post, withChaos } from './helpers.js';

interface Message {
  content: Array<{ type: string; text?: string; thinking?: string }>;
  stop_reason: string;
  usage: { input_tokens: number; output_tokens: number };
}

const question = (n: number) => [
  { role: 'user', content: `Question ${n}: explain resumable streams.` },
];

async function answerTo(chaos: ChaosServer, n: number): Promise<string> {
  const message = (await (
    await post(chaos, '/v1/messages', anthropicBody({ max_tokens: 4096, messages: question(n) }))
  ).json()) as Message;
  return message.content[0]!.text!;
}

/** The continuation the server sends for a prefill, JSON or streamed (deltas joined). */
async function continuation(
  chaos: ChaosServer,
  n: number,
  prefill: unknown,
  stream: boolean,
): Promise<{ text: string; message: Message | null }> {
  const messages = [...question(n), { role: 'assistant', content: prefill }];
  const res = await post(
    chaos,
    '/v1/messages',
    anthropicBody({ max_tokens: 4096, messages, stream }),
  );
  expect(res.status).toBe(200);
  if (!stream) {
    const message = (await res.json()) as Message;
    return { text: message.content.map((b) => b.text ?? '').join(''), message };
  }
  const data = dataOf(parseSse(await res.text()));
  const text = data
    .filter((d) => d.type === 'content_block_delta')
    .map((d) => (d.delta as { text?: string }).text ?? '')
    .join('');
  return { text, message: null };
}

// What a resuming client must do: the API refuses a prefill ending in whitespace, so hold it
// back (it comes again at the start of the continuation).
const heldBack = (prefix: string) => prefix.replace(/\s+$/u, '');

describe('prefill: a trailing assistant message gets exactly the rest of the canned answer', () => {
  it('splices character for character at every kind of cut (mid-word, after whitespace, inside a surrogate pair), JSON and SSE', async () => {
    await withChaos(
      { scenario: { seed: 3 }, answers: { '*': { textTokens: 400 } } },
      async (chaos) => {
        const answers = await Promise.all([0, 1, 2].map((n) => answerTo(chaos, n)));
        for (const answer of answers) {
          expect(answer.length).toBeGreaterThanOrEqual(1600);
          expect(answer).toMatch(/\n\n/);
        }
        const cuts = fc
          .integer({ min: 0, max: 2 })
          .chain((n) =>
            fc.tuple(fc.constant(n), fc.integer({ min: 1, max: answers[n]!.length - 1 })),
          );
        await fc.assert(
          fc.asyncProperty(cuts, fc.boolean(), async ([n, cut], stream) => {
            const answer = answers[n]!;
            const prefix = heldBack(answer.slice(0, cut));
            fc.pre(prefix !== '');
            const { text } = await continuation(chaos, n, prefix, stream);
            expect(prefix + text).toBe(answer);
          }),
          { numRuns: 80 },
        );
        // The whitespace-heavy spots on purpose: right after a paragraph break and inside a word.
        const answer = answers[0]!;
        for (const cut of [
          answer.indexOf('\n\n') + 2,
          answer.indexOf(' ') + 3,
          answer.lastIndexOf('\n') + 1,
        ]) {
          const prefix = heldBack(answer.slice(0, cut));
          for (const stream of [false, true])
            expect(prefix + (await continuation(chaos, 0, prefix, stream)).text).toBe(answer);
        }
        // A prefix that ends between the halves of a surrogate pair (a client slicing by code unit).
        const withPair = answers.findIndex((a) => /[\ud800-\udbff]/.test(a));
        expect(withPair).toBeGreaterThanOrEqual(0);
        const paired = answers[withPair]!;
        const half = paired.slice(0, paired.search(/[\ud800-\udbff]/) + 1);
        for (const stream of [false, true])
          expect(half + (await continuation(chaos, withPair, half, stream)).text).toBe(paired);
      },
    );
  });

  it('counts only the continuation as output, the prefill as input; the request log says how it matched', async () => {
    await withChaos({ answers: { '*': { textTokens: 100 } } }, async (chaos) => {
      const answer = await answerTo(chaos, 0);
      const prefix = heldBack(answer.slice(0, 150));
      const { text, message } = await continuation(
        chaos,
        0,
        [
          { type: 'text', text: prefix.slice(0, 40) },
          { type: 'text', text: prefix.slice(40) },
        ],
        false,
      );
      expect(prefix + text).toBe(answer);
      expect(message!.usage.output_tokens).toBe(Math.ceil(text.length / 4));
      expect(message!.stop_reason).toBe('end_turn');
      const full = chaos.requests[0]!;
      const resumed = chaos.requests[1]!;
      expect(full.prefill).toBeNull();
      expect(resumed.prefill).toEqual({ chars: prefix.length, matched: true });
      expect(resumed.usage!.output).toBe(message!.usage.output_tokens);
      expect(resumed.usage!.input).toBeGreaterThan(full.usage!.input);
      expect(resumed.usage!.output).toBeLessThan(full.usage!.output);
    });
  });

  it('answers a prefill the answer does not start with in full, and records it as unmatched', async () => {
    await withChaos({}, async (chaos) => {
      const answer = await answerTo(chaos, 0);
      const { text } = await continuation(chaos, 0, 'Something else entirely', false);
      expect(text).toBe(answer);
      expect(chaos.requests[1]!.prefill).toEqual({ chars: 23, matched: false });
    });
  });

  it('continues a prefill that is the whole text with what follows it: nothing, or the tool call', async () => {
    const tools = [{ name: 'lookup', input_schema: { type: 'object' } }];
    const answers = {
      '*': {
        text: 'Let me look that up.',
        toolUse: { name: 'lookup', input: { q: 'resumable streams' } },
      },
    };
    await withChaos({ answers }, async (chaos) => {
      const messages = [...question(0), { role: 'assistant', content: 'Let me look that up.' }];
      const message = (await (
        await post(chaos, '/v1/messages', anthropicBody({ messages, tools }))
      ).json()) as Message;
      expect(message.content).toEqual([
        {
          type: 'tool_use',
          id: expect.any(String),
          name: 'lookup',
          input: { q: 'resumable streams' },
        },
      ]);
      expect(message.stop_reason).toBe('tool_use');
      const plain = (await (
        await post(chaos, '/v1/messages', anthropicBody({ messages }))
      ).json()) as Message;
      expect(plain).toMatchObject({
        content: [],
        stop_reason: 'end_turn',
        usage: { output_tokens: 0 },
      });
    });
  });

  it('the real @anthropic-ai/sdk streams the continuation and sees the API’s 400s for a bad prefill', async () => {
    await withChaos({ answers: { '*': { textTokens: 80 } } }, async (chaos) => {
      const client = new Anthropic({ baseURL: chaos.url, apiKey: 'test', maxRetries: 0 });
      const answer = await answerTo(chaos, 0);
      const prefix = heldBack(answer.slice(0, 101));
      const user = question(0) as Anthropic.MessageParam[];
      const final = await client.messages
        .stream({
          model: 'claude-test',
          max_tokens: 4096,
          messages: [...user, { role: 'assistant', content: prefix }],
        })
        .finalMessage();
      const block = final.content[0]!;
      expect(block.type === 'text' && prefix + block.text).toBe(answer);

      const refused = async (
        messages: Anthropic.MessageParam[],
        extra: Partial<Anthropic.MessageCreateParamsNonStreaming> = {},
      ) => {
        const error = await client.messages
          .create({ model: 'claude-test', max_tokens: 4096, messages, ...extra })
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(Anthropic.BadRequestError);
        const e = error as InstanceType<typeof Anthropic.BadRequestError>;
        expect(e.status).toBe(400);
        expect(e.type).toBe('invalid_request_error');
        return e.error as { type: string; error: { type: string; message: string } };
      };
      for (const trailing of [' ', '\n\n', '\t', '\u00a0']) {
        const body = await refused([
          ...user,
          { role: 'assistant', content: `${prefix}${trailing}` },
        ]);
        expect(body).toEqual({
          type: 'error',
          error: {
            type: 'invalid_request_error',
            message: 'messages: final assistant content cannot end with trailing whitespace',
          },
        });
      }
      const n = user.length;
      const thinking = { type: 'enabled' as const, budget_tokens: 1024 };
      expect(
        (await refused([...user, { role: 'assistant', content: prefix }], { thinking })).error
          .message,
      ).toBe(
        `messages.${n}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`text\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking`,
      );
      const thoughtThenText: Anthropic.MessageParam = {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'hmm', signature: 'c2ln' },
          { type: 'text', text: prefix },
        ],
      };
      expect((await refused([...user, thoughtThenText], { thinking })).error.message).toMatch(
        /cannot be continued \(prefilled\) while `thinking` is enabled/,
      );
      expect((await refused([...user, thoughtThenText])).error.message).toBe(
        `messages.${n}.content.0: When thinking is disabled, an \`assistant\` message in the final position cannot contain \`thinking\`. To use thinking blocks, enable \`thinking\` in your request.`,
      );
      const withTool: Anthropic.MessageParam = {
        role: 'assistant',
        content: [
          { type: 'text', text: prefix },
          { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: {} },
        ],
      };
      expect((await refused([...user, withTool])).error.message).toMatch(
        /^messages\.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1\./,
      );
      const emptyBlock = await refused([
        ...user,
        { role: 'assistant', content: [{ type: 'text', text: '' }] },
      ]);
      expect(emptyBlock.error.message).toBe('messages: text content blocks must be non-empty');
      // An empty final assistant message is allowed: an ordinary answer.
      const empty = await client.messages.create({
        model: 'claude-test',
        max_tokens: 4096,
        messages: [...user, { role: 'assistant', content: '' }],
      });
      expect(empty.content[0]!.type === 'text' && empty.content[0]!.text).toBe(answer);
    });
  });
});
