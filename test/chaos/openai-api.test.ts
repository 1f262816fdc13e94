import { describe, expect, it } from 'vitest';
import { dataOf, openaiBody, parseSse, post, withChaos } from './helpers.js';

interface Completion {
  id: string;
  object: string;
  model: string;
  choices: Array<{
    index: number;
    finish_reason: string;
    message: {
      role: string;
      content: string | null;
      tool_calls?: Array<{
        id: string;
        type: string;
        function: { name: string; arguments: string };
      }>;
    };
  }>;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

interface Chunk {
  object: string;
  choices: Array<{
    delta: {
      role?: string;
      content?: string;
      tool_calls?: Array<{
        index: number;
        id?: string;
        function: { name?: string; arguments: string };
      }>;
    };
    finish_reason: string | null;
  }>;
  usage?: Completion['usage'];
}

describe('OpenAI Chat Completions', () => {
  it('answers a chat.completion that a plain fetch client parses', async () => {
    await withChaos({}, async (chaos) => {
      const res = await post(chaos, '/v1/chat/completions', openaiBody());
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(res.headers.get('x-request-id')).toMatch(/^req_/);
      const completion = (await res.json()) as Completion;
      expect(completion.object).toBe('chat.completion');
      expect(completion.id).toMatch(/^chatcmpl-/);
      expect(completion.model).toBe('gpt-test');
      expect(completion.choices).toHaveLength(1);
      expect(completion.choices[0]!.finish_reason).toBe('stop');
      expect(completion.choices[0]!.message.role).toBe('assistant');
      expect(completion.choices[0]!.message.content).toContain('gpt-test');
      expect(completion.usage.total_tokens).toBe(
        completion.usage.prompt_tokens + completion.usage.completion_tokens,
      );
    });
  });

  it('streams chat.completion.chunk lines ending with [DONE], the text equal to the JSON answer', async () => {
    await withChaos({}, async (chaos) => {
      const res = await post(chaos, '/v1/chat/completions', openaiBody({ stream: true }));
      expect(res.headers.get('content-type')).toContain('text/event-stream');
      const events = parseSse(await res.text());
      expect(events.at(-1)!.data).toBe('[DONE]');
      expect(events.every((e) => e.event === null)).toBe(true);
      const chunks = dataOf(events) as unknown as Chunk[];
      expect(chunks.length).toBeGreaterThan(3);
      expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
      expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
      expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('stop');
      const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
      const json = (await (
        await post(chaos, '/v1/chat/completions', openaiBody())
      ).json()) as Completion;
      expect(text).toBe(json.choices[0]!.message.content);
    });
  });

  it('adds a usage chunk when stream_options.include_usage is set', async () => {
    await withChaos({}, async (chaos) => {
      const res = await post(
        chaos,
        '/v1/chat/completions',
        openaiBody({ stream: true, stream_options: { include_usage: true } }),
      );
      const chunks = dataOf(parseSse(await res.text())) as unknown as Chunk[];
      expect(chunks.at(-1)).toMatchObject({
        choices: [],
        usage: { total_tokens: expect.any(Number) },
      });
    });
  });

  it('answers with a tool call, in JSON and streamed', async () => {
    const answers = { 'gpt-tools': { toolUse: { name: 'get_weather', input: { city: 'Porto' } } } };
    const tools = [
      {
        type: 'function',
        function: { name: 'get_weather', parameters: { type: 'object', properties: {} } },
      },
    ];
    await withChaos({ answers }, async (chaos) => {
      const untooled = (await (
        await post(chaos, '/v1/chat/completions', openaiBody({ model: 'gpt-tools' }))
      ).json()) as Completion;
      expect(untooled.choices[0]!.finish_reason).toBe('stop');
      const json = (await (
        await post(chaos, '/v1/chat/completions', openaiBody({ model: 'gpt-tools', tools }))
      ).json()) as Completion;
      const choice = json.choices[0]!;
      expect(choice.finish_reason).toBe('tool_calls');
      expect(choice.message.content).toBeNull();
      expect(choice.message.tool_calls).toEqual([
        {
          id: expect.stringMatching(/^call_/),
          type: 'function',
          function: { name: 'get_weather', arguments: '{"city":"Porto"}' },
        },
      ]);

      const res = await post(
        chaos,
        '/v1/chat/completions',
        openaiBody({ model: 'gpt-tools', tools, stream: true }),
      );
      const chunks = dataOf(parseSse(await res.text())) as unknown as Chunk[];
      const calls = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
      expect(calls[0]).toMatchObject({
        index: 0,
        id: expect.stringMatching(/^call_/),
        function: { name: 'get_weather' },
      });
      expect(JSON.parse(calls.map((c) => c.function.arguments).join(''))).toEqual({
        city: 'Porto',
      });
      expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('tool_calls');

      const afterTool = (await (
        await post(
          chaos,
          '/v1/chat/completions',
          openaiBody({
            model: 'gpt-tools',
            tools,
            messages: [
              { role: 'user', content: 'Weather?' },
              { role: 'assistant', content: null, tool_calls: choice.message.tool_calls },
              { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
            ],
          }),
        )
      ).json()) as Completion;
      expect(afterTool.choices[0]!.finish_reason).toBe('stop');
    });
  });

  it.each([
    ['invalid JSON', '{"model": ', 'not valid JSON'],
    ['no model', JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }), 'model'],
    ['no messages', JSON.stringify({ model: 'gpt-test' }), 'messages'],
    ['empty messages', JSON.stringify({ model: 'gpt-test', messages: [] }), 'messages'],
  ])('rejects %s with a 400 in the OpenAI error shape', async (_name, body, message) => {
    await withChaos({}, async (chaos) => {
      const res = await post(chaos, '/v1/chat/completions', body);
      expect(res.status).toBe(400);
      const error = (await res.json()) as {
        error: { message: string; type: string; code: unknown };
      };
      expect(error).toEqual({
        error: {
          message: expect.any(String),
          type: 'invalid_request_error',
          param: null,
          code: null,
        },
      });
      expect(error.error.message).toContain(message);
    });
  });
});
