import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import type { ChaosServerOptions } from '../../src/chaos/index.js';
import { anthropicBody, dataOf, openaiBody, parseSse, post, withChaos } from './helpers.js';

interface Message {
  content: Array<{
    type: string;
    text?: string;
    thinking?: string;
    signature?: string;
    input?: unknown;
  }>;
  stop_reason: string;
  usage: { input_tokens: number; output_tokens: number };
}

const tokens = (text: string) => Math.ceil(text.length / 4);

async function message(
  options: ChaosServerOptions,
  extra: Record<string, unknown>,
): Promise<Message> {
  return withChaos(
    options,
    async (chaos) =>
      (await (await post(chaos, '/v1/messages', anthropicBody(extra))).json()) as Message,
  );
}

describe('canned answers', () => {
  it('textTokens: a long text, deterministic by seed and prompt, with paragraphs, lists and indentation', async () => {
    const answers = { '*': { textTokens: 3000 } };
    const ask = (seed: number, content: string) =>
      message(
        { scenario: { seed }, answers },
        { max_tokens: 8000, messages: [{ role: 'user', content }] },
      ).then((m) => m.content[0]!.text!);
    const text = await ask(1, 'Tell me about streams');
    expect(tokens(text)).toBeGreaterThanOrEqual(3000);
    expect(tokens(text)).toBeLessThan(3200);
    expect(text).toMatch(/\n\n/);
    expect(text).toMatch(/\n- /);
    expect(text).toMatch(/\n {2}\S/);
    expect(text).not.toMatch(/\s$/);
    expect(await ask(1, 'Tell me about streams')).toBe(text);
    expect(await ask(2, 'Tell me about streams')).not.toBe(text);
    expect(await ask(1, 'Tell me about breakers')).not.toBe(text);
  });

  it('usage counts output by the documented rule (a token per 4 UTF-16 units, rounded up), JSON and streamed', async () => {
    await withChaos({ answers: { '*': { text: 'Exactly thirteen.' } } }, async (chaos) => {
      const json = (await (await post(chaos, '/v1/messages', anthropicBody())).json()) as Message;
      expect(json.usage.output_tokens).toBe(5);
      const data = dataOf(
        parseSse(await (await post(chaos, '/v1/messages', anthropicBody({ stream: true }))).text()),
      );
      expect(data.find((d) => d.type === 'message_delta')).toMatchObject({
        usage: { output_tokens: 5 },
      });
      expect(data[0]).toMatchObject({
        message: { usage: { input_tokens: json.usage.input_tokens } },
      });
      const count = (await (
        await post(chaos, '/v1/messages/count_tokens', anthropicBody())
      ).json()) as { input_tokens: number };
      expect(count.input_tokens).toBe(json.usage.input_tokens);
      const chat = (await (await post(chaos, '/v1/chat/completions', openaiBody())).json()) as {
        usage: Record<string, number>;
      };
      expect(chat.usage).toMatchObject({ completion_tokens: 5 });
    });
  });

  it('honours max_tokens: the text cut at 4 × max_tokens units, stop_reason max_tokens; OpenAI finish_reason length', async () => {
    const answers = { '*': { textTokens: 500 } };
    const cut = await message({ answers }, { max_tokens: 37 });
    expect(cut.stop_reason).toBe('max_tokens');
    expect(cut.usage.output_tokens).toBe(37);
    const full = await message({ answers }, { max_tokens: 4000 });
    expect(full.content[0]!.text!.startsWith(cut.content[0]!.text!)).toBe(true);
    expect(cut.content[0]!.text!.length).toBeGreaterThanOrEqual(147);
    await withChaos({ answers }, async (chaos) => {
      const data = dataOf(
        parseSse(
          await (
            await post(chaos, '/v1/messages', anthropicBody({ max_tokens: 37, stream: true }))
          ).text(),
        ),
      );
      expect(data.find((d) => d.type === 'message_delta')).toMatchObject({
        delta: { stop_reason: 'max_tokens' },
        usage: { output_tokens: 37 },
      });
      const chat = (await (
        await post(
          chaos,
          '/v1/chat/completions',
          openaiBody({ model: 'claude-test', max_completion_tokens: 37 }),
        )
      ).json()) as {
        choices: Array<{ finish_reason: string; message: { content: string } }>;
      };
      expect(chat.choices[0]!.finish_reason).toBe('length');
      expect(chat.choices[0]!.message.content).toBe(cut.content[0]!.text);
    });
    // A tool call that does not fit is left out whole.
    const tools = [{ name: 'save', input_schema: { type: 'object' } }];
    const toolAnswers = {
      '*': { text: 'Saving.', toolUse: { name: 'save', input: { body: 'x'.repeat(400) } } },
    };
    const noRoom = await message({ answers: toolAnswers }, { max_tokens: 20, tools });
    expect(noRoom).toMatchObject({
      stop_reason: 'max_tokens',
      content: [{ type: 'text', text: 'Saving.' }],
      usage: { output_tokens: 2 },
    });
    expect((await message({ answers: toolAnswers }, { max_tokens: 500, tools })).stop_reason).toBe(
      'tool_use',
    );
  });

  it('requires max_tokens on /v1/messages, as the API does', async () => {
    await withChaos({}, async (chaos) => {
      for (const [max, problem] of [
        [undefined, 'max_tokens: Field required'],
        [0, 'max_tokens: Input should be greater than or equal to 1'],
        ['9', 'max_tokens: Input should be a valid integer'],
      ] as const) {
        const res = await post(chaos, '/v1/messages', { ...anthropicBody(), max_tokens: max });
        expect(res.status).toBe(400);
        expect(await res.json()).toEqual({
          type: 'error',
          error: { type: 'invalid_request_error', message: problem },
        });
      }
      const count = await post(chaos, '/v1/messages/count_tokens', {
        model: 'claude-test',
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(count.status).toBe(200);
    });
  });

  it('thinking on: a thinking block first (thinking_delta, then signature_delta), capped at budget_tokens', async () => {
    const answers = { '*': { thinkingTokens: 3000, text: 'The answer.' } };
    await withChaos({ answers }, async (chaos) => {
      const thinking = { type: 'enabled', budget_tokens: 1500 };
      const json = (await (
        await post(chaos, '/v1/messages', anthropicBody({ max_tokens: 4000, thinking }))
      ).json()) as Message;
      expect(json.content.map((b) => b.type)).toEqual(['thinking', 'text']);
      expect(tokens(json.content[0]!.thinking!)).toBeLessThanOrEqual(1500);
      expect(json.content[0]!.thinking!.length).toBeGreaterThanOrEqual(1500 * 4 - 1);
      expect(json.content[0]!.signature).toEqual(expect.any(String));
      expect(json.usage.output_tokens).toBe(
        tokens(json.content[0]!.thinking!) + tokens('The answer.'),
      );

      const events = parseSse(
        await (
          await post(
            chaos,
            '/v1/messages',
            anthropicBody({ max_tokens: 4000, thinking, stream: true }),
          )
        ).text(),
      );
      const data = dataOf(events);
      expect(data[1]).toEqual({
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      });
      expect(events[2]!.event).toBe('ping');
      const deltas = data
        .filter((d) => d.type === 'content_block_delta' && d.index === 0)
        .map((d) => d.delta as Record<string, string>);
      expect(deltas.at(-1)).toEqual({
        type: 'signature_delta',
        signature: json.content[0]!.signature,
      });
      expect(
        deltas
          .slice(0, -1)
          .map((d) => d.thinking)
          .join(''),
      ).toBe(json.content[0]!.thinking);
      expect(data.find((d) => d.type === 'content_block_start' && d.index === 1)).toMatchObject({
        content_block: { type: 'text' },
      });

      // Off (or disabled): no thinking block; adaptive: one, uncapped.
      const off = (await (
        await post(chaos, '/v1/messages', anthropicBody({ thinking: { type: 'disabled' } }))
      ).json()) as Message;
      expect(off.content.map((b) => b.type)).toEqual(['text']);
      const adaptive = (await (
        await post(
          chaos,
          '/v1/messages',
          anthropicBody({ max_tokens: 8000, thinking: { type: 'adaptive' } }),
        )
      ).json()) as Message;
      expect(tokens(adaptive.content[0]!.thinking!)).toBeGreaterThanOrEqual(3000);
    });
  });

  it('thinking: the API’s 400s for a budget under 1024 or not under max_tokens, and a bad type', async () => {
    await withChaos({}, async (chaos) => {
      for (const [thinking, max, problem] of [
        [
          { type: 'enabled', budget_tokens: 1000 },
          4000,
          'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024',
        ],
        [
          { type: 'enabled', budget_tokens: 2048 },
          2048,
          '`max_tokens` must be greater than `thinking.budget_tokens`',
        ],
        [{ type: 'enabled' }, 4000, 'thinking.enabled.budget_tokens: Field required'],
        [
          { type: 'sometimes' },
          4000,
          "thinking: Input tag 'sometimes' found using 'type' does not match any of the expected tags",
        ],
      ] as const) {
        const res = await post(chaos, '/v1/messages', anthropicBody({ max_tokens: max, thinking }));
        expect(res.status).toBe(400);
        const body = (await res.json()) as { error: { type: string; message: string } };
        expect(body.error.type).toBe('invalid_request_error');
        expect(body.error.message).toContain(problem);
      }
    });
  });

  it('streams a long tool input as many small input_json_delta / arguments pieces', async () => {
    const input = {
      path: '/tmp/report.md',
      body: 'line of the report '.repeat(40),
      tags: ['a', 'b'],
    };
    const answers = { '*': { toolUse: { name: 'write_file', input } } };
    await withChaos({ answers }, async (chaos) => {
      const tools = [{ name: 'write_file', input_schema: { type: 'object' } }];
      // max_tokens leaves room for the whole input (a tool call that does not fit is left out).
      const data = dataOf(
        parseSse(
          await (
            await post(
              chaos,
              '/v1/messages',
              anthropicBody({ tools, max_tokens: 4000, stream: true }),
            )
          ).text(),
        ),
      );
      const partial = data
        .filter((d) => d.type === 'content_block_delta')
        .map((d) => (d.delta as { partial_json: string }).partial_json);
      expect(partial[0]).toBe('');
      expect(partial.length).toBeGreaterThan(40);
      expect(partial.every((p) => p.length <= 16)).toBe(true);
      expect(JSON.parse(partial.join(''))).toEqual(input);

      const chatTools = [{ type: 'function', function: { name: 'write_file', parameters: {} } }];
      const chunks = dataOf(
        parseSse(
          await (
            await post(
              chaos,
              '/v1/chat/completions',
              openaiBody({ tools: chatTools, stream: true }),
            )
          ).text(),
        ),
      );
      const args = chunks.flatMap(
        (c) =>
          (
            c.choices as Array<{
              delta: { tool_calls?: Array<{ function: { arguments: string } }> };
            }>
          )[0]?.delta.tool_calls ?? [],
      );
      expect(args.length).toBeGreaterThan(40);
      expect(JSON.parse(args.map((a) => a.function.arguments).join(''))).toEqual(input);
    });
  });

  it('the real @anthropic-ai/sdk accumulates thinking, a long text and a tool call from the stream', async () => {
    const input = { query: 'resumable streams', limit: 5 };
    const answers = {
      '*': { textTokens: 1500, thinking: 'First, the plan.', toolUse: { name: 'search', input } },
    };
    await withChaos({ answers }, async (chaos) => {
      const client = new Anthropic({ baseURL: chaos.url, apiKey: 'test', maxRetries: 0 });
      const thinkingDeltas: string[] = [];
      const stream = client.messages.stream({
        model: 'claude-test',
        max_tokens: 8000,
        thinking: { type: 'enabled', budget_tokens: 2000 },
        tools: [{ name: 'search', input_schema: { type: 'object', properties: {} } }],
        messages: [{ role: 'user', content: 'Search for it' }],
      });
      stream.on('thinking', (delta) => thinkingDeltas.push(delta));
      const final = await stream.finalMessage();
      expect(final.content.map((b) => b.type)).toEqual(['thinking', 'text', 'tool_use']);
      const [thought, text, tool] = final.content;
      expect(thought!.type === 'thinking' && thought!.thinking).toBe('First, the plan.');
      expect(thinkingDeltas.join('')).toBe('First, the plan.');
      expect(text!.type === 'text' && tokens(text!.text)).toBeGreaterThanOrEqual(1500);
      expect(tool!.type === 'tool_use' && tool!.input).toEqual(input);
      expect(final.stop_reason).toBe('tool_use');
      expect(final.usage.output_tokens).toBe(chaos.requests[0]!.usage!.output);
    });
  });
});
