import { describe, expect, it } from 'vitest';
import { anthropicBody, dataOf, parseSse, post, withChaos } from './helpers.js';

describe('Anthropic Messages API', () => {
  it('answers JSON in the Messages API shape, deterministically, with a request id', async () => {
    await withChaos({}, async (chaos) => {
      const first = await post(chaos, '/v1/messages', anthropicBody());
      expect(first.status).toBe(200);
      expect(first.headers.get('content-type')).toContain('application/json');
      expect(first.headers.get('request-id')).toMatch(/^req_/);
      const message = (await first.json()) as Record<string, unknown>;
      expect(message).toMatchObject({
        type: 'message',
        role: 'assistant',
        model: 'claude-test',
        stop_reason: 'end_turn',
        stop_sequence: null,
        content: [{ type: 'text' }],
      });
      expect(message.id).toMatch(/^msg_/);
      const usage = message.usage as Record<string, number>;
      expect(usage.input_tokens).toBeGreaterThan(0);
      expect(usage.output_tokens).toBeGreaterThan(0);
      const text = (message.content as Array<{ text: string }>)[0]!.text;
      expect(text).toContain('claude-test');

      const again = (await (
        await post(chaos, '/v1/messages', anthropicBody())
      ).json()) as typeof message;
      expect((again.content as Array<{ text: string }>)[0]!.text).toBe(text);
      const other = (await (
        await post(
          chaos,
          '/v1/messages',
          anthropicBody({ messages: [{ role: 'user', content: 'Something else' }] }),
        )
      ).json()) as typeof message;
      expect((other.content as Array<{ text: string }>)[0]!.text).not.toBe(text);
    });
  });

  it('streams the real SSE event sequence with several text deltas', async () => {
    await withChaos({}, async (chaos) => {
      const res = await post(chaos, '/v1/messages', anthropicBody({ stream: true }));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/event-stream');
      expect(res.headers.get('request-id')).toMatch(/^req_/);
      const events = parseSse(await res.text());
      const names = events.map((e) => e.event);
      const deltas = names.filter((n) => n === 'content_block_delta').length;
      expect(deltas).toBeGreaterThan(1);
      expect(names).toEqual([
        'message_start',
        'content_block_start',
        'ping',
        ...Array<string>(deltas).fill('content_block_delta'),
        'content_block_stop',
        'message_delta',
        'message_stop',
      ]);
      for (const e of events) expect((JSON.parse(e.data) as { type: string }).type).toBe(e.event);
      const [start, , , ...rest] = dataOf(events);
      expect(start).toMatchObject({
        type: 'message_start',
        message: {
          type: 'message',
          role: 'assistant',
          model: 'claude-test',
          content: [],
          stop_reason: null,
        },
      });
      const text = rest
        .filter((d) => d.type === 'content_block_delta')
        .map((d) => (d.delta as { type: string; text: string }).text)
        .join('');
      const json = (await (await post(chaos, '/v1/messages', anthropicBody())).json()) as {
        content: Array<{ text: string }>;
      };
      expect(text).toBe(json.content[0]!.text);
      const messageDelta = rest.find((d) => d.type === 'message_delta')!;
      expect(messageDelta).toMatchObject({
        delta: { stop_reason: 'end_turn' },
        usage: { output_tokens: expect.any(Number) },
      });
    });
  });

  it('answers with a configured text or tool call per model (when the request offers the tool), streamed as input_json_delta', async () => {
    const tools = [
      {
        name: 'get_weather',
        description: 'Weather by city',
        input_schema: { type: 'object', properties: { city: { type: 'string' } } },
      },
    ];
    const answers = {
      'claude-tools': {
        toolUse: { name: 'get_weather', input: { city: 'Lisbon', units: 'metric' } },
      },
      'claude-text': { text: 'Configured answer.' },
    };
    await withChaos({ answers }, async (chaos) => {
      const text = (await (
        await post(chaos, '/v1/messages', anthropicBody({ model: 'claude-text' }))
      ).json()) as {
        content: unknown[];
      };
      expect(text.content).toEqual([{ type: 'text', text: 'Configured answer.' }]);

      // A model never calls a tool the request does not offer: text, not a tool call.
      for (const offered of [undefined, [{ ...tools[0], name: 'get_time' }]]) {
        const plain = (await (
          await post(
            chaos,
            '/v1/messages',
            anthropicBody({ model: 'claude-tools', tools: offered }),
          )
        ).json()) as {
          content: Array<{ type: string }>;
          stop_reason: string;
        };
        expect(plain.stop_reason).toBe('end_turn');
        expect(plain.content.map((c) => c.type)).toEqual(['text']);
      }

      const tool = (await (
        await post(chaos, '/v1/messages', anthropicBody({ model: 'claude-tools', tools }))
      ).json()) as {
        content: Array<Record<string, unknown>>;
        stop_reason: string;
      };
      expect(tool.stop_reason).toBe('tool_use');
      expect(tool.content).toEqual([
        {
          type: 'tool_use',
          id: expect.stringMatching(/^toolu_/),
          name: 'get_weather',
          input: { city: 'Lisbon', units: 'metric' },
        },
      ]);

      const res = await post(
        chaos,
        '/v1/messages',
        anthropicBody({ model: 'claude-tools', tools, stream: true }),
      );
      const data = dataOf(parseSse(await res.text()));
      expect(data.find((d) => d.type === 'content_block_start')).toMatchObject({
        content_block: { type: 'tool_use', name: 'get_weather', input: {} },
      });
      const partial = data
        .filter((d) => d.type === 'content_block_delta')
        .map((d) => d.delta as { type: string; partial_json: string });
      expect(partial.every((d) => d.type === 'input_json_delta')).toBe(true);
      expect(JSON.parse(partial.map((d) => d.partial_json).join(''))).toEqual({
        city: 'Lisbon',
        units: 'metric',
      });
      expect(data.find((d) => d.type === 'message_delta')).toMatchObject({
        delta: { stop_reason: 'tool_use' },
      });
    });
  });

  it('answers a tool result with text, so an agent loop ends', async () => {
    const answers = { '*': { toolUse: { name: 'lookup', input: { q: 'x' } } } };
    const tools = [{ name: 'lookup', input_schema: { type: 'object' } }];
    await withChaos({ answers }, async (chaos) => {
      const first = (await (
        await post(chaos, '/v1/messages', anthropicBody({ tools }))
      ).json()) as { stop_reason: string };
      expect(first.stop_reason).toBe('tool_use');
      const messages = [
        { role: 'user', content: 'Look it up' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 'x' } }],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'found' }],
        },
      ];
      const message = (await (
        await post(chaos, '/v1/messages', anthropicBody({ messages, tools }))
      ).json()) as {
        content: Array<{ type: string }>;
        stop_reason: string;
      };
      expect(message.stop_reason).toBe('end_turn');
      expect(message.content.map((c) => c.type)).toEqual(['text']);
    });
  });

  it('counts tokens', async () => {
    await withChaos({}, async (chaos) => {
      const res = await post(chaos, '/v1/messages/count_tokens', anthropicBody());
      expect(res.status).toBe(200);
      const body = (await res.json()) as Record<string, unknown>;
      expect(Object.keys(body)).toEqual(['input_tokens']);
      expect(body.input_tokens).toBeGreaterThan(0);
    });
  });

  it.each([
    ['invalid JSON', '{"model": "claude-test", ', 'not valid JSON'],
    ['a JSON array', '[]', 'JSON object'],
    [
      'no model',
      JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
      'model: Field required',
    ],
    ['no messages', JSON.stringify({ model: 'claude-test' }), 'messages: Field required'],
    [
      'messages not a list',
      JSON.stringify({ model: 'claude-test', messages: 'hi' }),
      'messages: Input should be a valid list',
    ],
    ['stream not a boolean', JSON.stringify({ ...anthropicBody(), stream: 'yes' }), 'stream'],
  ])('rejects %s with a 400 in the Anthropic error shape', async (_name, body, message) => {
    await withChaos({}, async (chaos) => {
      for (const path of ['/v1/messages', '/v1/messages/count_tokens']) {
        const res = await post(chaos, path, body);
        expect(res.status).toBe(400);
        const error = (await res.json()) as {
          type: string;
          error: { type: string; message: string };
        };
        expect(error).toEqual({
          type: 'error',
          error: { type: 'invalid_request_error', message: expect.any(String) },
        });
        expect(error.error.message).toContain(message);
      }
      expect(chaos.requests.every((r) => r.status === 400 && r.api === 'anthropic')).toBe(true);
    });
  });

  it('answers an unknown path with a 404 and a wrong method with a 405', async () => {
    await withChaos({}, async (chaos) => {
      const missing = await post(chaos, '/v1/nothing', {});
      expect(missing.status).toBe(404);
      expect(await missing.json()).toMatchObject({
        type: 'error',
        error: { type: 'not_found_error', message: expect.any(String) },
      });
      const get = await fetch(`${chaos.url}/v1/messages`);
      expect(get.status).toBe(405);
      expect(await get.json()).toMatchObject({
        type: 'error',
        error: { type: 'invalid_request_error' },
      });
      expect(chaos.requests.map((r) => r.status)).toEqual([404, 405]);
    });
  });
});
