import { describe, expect, it } from 'vitest';
import { dataOf, parseSse, post, withChaos } from './helpers.js';

const body = (extra: Record<string, unknown> = {}) => ({
  model: 'gpt-test',
  input: 'Hello there',
  ...extra,
});

interface OutputItem {
  id: string;
  type: string;
  status?: string;
  role?: string;
  content?: Array<{ type: string; text: string; annotations: unknown[] }>;
  summary?: Array<{ type: string; text: string }>;
  call_id?: string;
  name?: string;
  arguments?: string;
}

interface ResponseObject {
  id: string;
  object: string;
  status: string;
  model: string;
  output: OutputItem[];
  incomplete_details: { reason: string } | null;
  usage: {
    input_tokens: number;
    output_tokens: number;
    total_tokens: number;
    output_tokens_details: { reasoning_tokens: number };
    input_tokens_details: { cached_tokens: number };
  } | null;
}

const textOf = (r: ResponseObject) =>
  r.output
    .filter((o) => o.type === 'message')
    .flatMap((o) => o.content ?? [])
    .map((c) => c.text)
    .join('');

describe('OpenAI Responses API', () => {
  it('answers a response object with a message item, usage and a request id', async () => {
    await withChaos({}, async (chaos) => {
      const res = await post(chaos, '/v1/responses', body());
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(res.headers.get('x-request-id')).toMatch(/^req_/);
      const r = (await res.json()) as ResponseObject;
      expect(r).toMatchObject({
        object: 'response',
        status: 'completed',
        model: 'gpt-test',
        incomplete_details: null,
      });
      expect(r.id).toMatch(/^resp_/);
      expect(r.output).toEqual([
        {
          id: expect.stringMatching(/^msg_/),
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [
            {
              type: 'output_text',
              text: expect.stringContaining('gpt-test'),
              annotations: [],
              logprobs: [],
            },
          ],
        },
      ]);
      const usage = r.usage!;
      expect(usage.output_tokens).toBe(Math.ceil(textOf(r).length / 4));
      expect(usage.total_tokens).toBe(usage.input_tokens + usage.output_tokens);
      expect(usage.output_tokens_details.reasoning_tokens).toBe(0);
      // The same prompt gets the same answer; input as items reads the last user message.
      const items = (await (
        await post(
          chaos,
          '/v1/responses',
          body({
            input: [{ role: 'user', content: [{ type: 'input_text', text: 'Hello there' }] }],
          }),
        )
      ).json()) as ResponseObject;
      expect(textOf(items)).not.toBe('');
      const again = (await (await post(chaos, '/v1/responses', body())).json()) as ResponseObject;
      expect(textOf(again)).toBe(textOf(r));
    });
  });

  it('streams the real event sequence, each named by event: and numbered, the text equal to the JSON answer', async () => {
    await withChaos({ answers: { '*': { textTokens: 60 } } }, async (chaos) => {
      const res = await post(chaos, '/v1/responses', body({ stream: true }));
      expect(res.headers.get('content-type')).toContain('text/event-stream');
      const events = parseSse(await res.text());
      const data = dataOf(events);
      expect(events.map((e) => e.event)).toEqual(data.map((d) => d.type));
      expect(data.map((d) => d.sequence_number)).toEqual(data.map((_, i) => i));
      const types = data.map((d) => d.type as string);
      const deltas = types.filter((t) => t === 'response.output_text.delta').length;
      expect(deltas).toBeGreaterThan(5);
      expect(types).toEqual([
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.content_part.added',
        ...Array<string>(deltas).fill('response.output_text.delta'),
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.completed',
      ]);
      expect(data[0]).toMatchObject({
        response: { status: 'in_progress', output: [], usage: null },
      });
      const text = data
        .filter((d) => d.type === 'response.output_text.delta')
        .map((d) => d.delta)
        .join('');
      expect(data.find((d) => d.type === 'response.output_text.done')).toMatchObject({
        text,
        output_index: 0,
        content_index: 0,
      });
      const completed = data.at(-1)!.response as ResponseObject;
      expect(textOf(completed)).toBe(text);
      const json = (await (await post(chaos, '/v1/responses', body())).json()) as ResponseObject;
      expect(textOf(json)).toBe(text);
      expect(completed.usage).toEqual(json.usage);
    });
  });

  it('calls a function the request offers, streamed as function_call_arguments deltas; a function_call_output ends the loop', async () => {
    const input = {
      city: 'Porto',
      days: 3,
      note: 'a long enough note to need several argument deltas',
    };
    const answers = { '*': { toolUse: { name: 'get_weather', input } } };
    const tools = [
      { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: {} } },
    ];
    await withChaos({ answers }, async (chaos) => {
      const untooled = (await (
        await post(chaos, '/v1/responses', body())
      ).json()) as ResponseObject;
      expect(untooled.output.map((o) => o.type)).toEqual(['message']);

      const r = (await (
        await post(chaos, '/v1/responses', body({ tools }))
      ).json()) as ResponseObject;
      expect(r.output).toEqual([
        {
          id: expect.stringMatching(/^fc_/),
          type: 'function_call',
          call_id: expect.stringMatching(/^call_/),
          name: 'get_weather',
          arguments: JSON.stringify(input),
          status: 'completed',
        },
      ]);

      const data = dataOf(
        parseSse(await (await post(chaos, '/v1/responses', body({ tools, stream: true }))).text()),
      );
      expect(data.find((d) => d.type === 'response.output_item.added')).toMatchObject({
        item: { type: 'function_call', name: 'get_weather', arguments: '', status: 'in_progress' },
      });
      const deltas = data
        .filter((d) => d.type === 'response.function_call_arguments.delta')
        .map((d) => d.delta as string);
      expect(deltas.length).toBeGreaterThan(3);
      expect(JSON.parse(deltas.join(''))).toEqual(input);
      expect(data.find((d) => d.type === 'response.function_call_arguments.done')).toMatchObject({
        arguments: JSON.stringify(input),
      });

      const call = r.output[0]!;
      const after = (await (
        await post(
          chaos,
          '/v1/responses',
          body({
            tools,
            input: [
              { role: 'user', content: 'Weather?' },
              {
                type: 'function_call',
                call_id: call.call_id,
                name: call.name,
                arguments: call.arguments,
              },
              { type: 'function_call_output', call_id: call.call_id, output: 'sunny' },
            ],
          }),
        )
      ).json()) as ResponseObject;
      expect(after.output.map((o) => o.type)).toEqual(['message']);
    });
  });

  it('gives a request with reasoning a reasoning item first, with summary text only when a summary is asked for', async () => {
    const answers = {
      '*': { thinking: 'Weighing the options one by one before answering.', text: 'Done.' },
    };
    await withChaos({ answers }, async (chaos) => {
      const plain = (await (
        await post(chaos, '/v1/responses', body({ reasoning: { effort: 'low' } }))
      ).json()) as ResponseObject;
      expect(plain.output.map((o) => o.type)).toEqual(['reasoning', 'message']);
      expect(plain.output[0]).toEqual({
        id: expect.stringMatching(/^rs_/),
        type: 'reasoning',
        summary: [],
      });
      expect(plain.usage!.output_tokens_details.reasoning_tokens).toBe(
        Math.ceil(answers['*'].thinking.length / 4),
      );

      const summarised = dataOf(
        parseSse(
          await (
            await post(
              chaos,
              '/v1/responses',
              body({ reasoning: { effort: 'low', summary: 'auto' }, stream: true }),
            )
          ).text(),
        ),
      );
      const summary = summarised
        .filter((d) => d.type === 'response.reasoning_summary_text.delta')
        .map((d) => d.delta)
        .join('');
      expect(summary).toBe(answers['*'].thinking);
      const types = summarised.map((d) => d.type);
      expect(types.indexOf('response.reasoning_summary_part.added')).toBeLessThan(
        types.indexOf('response.content_part.added'),
      );
      const none = (await (
        await post(chaos, '/v1/responses', body({ reasoning: { effort: 'none' } }))
      ).json()) as ResponseObject;
      expect(none.output.map((o) => o.type)).toEqual(['message']);
    });
  });

  it('cuts an answer at max_output_tokens: status incomplete, reason max_output_tokens, response.incomplete', async () => {
    await withChaos({ answers: { '*': { textTokens: 200 } } }, async (chaos) => {
      const r = (await (
        await post(chaos, '/v1/responses', body({ max_output_tokens: 20 }))
      ).json()) as ResponseObject;
      expect(r).toMatchObject({
        status: 'incomplete',
        incomplete_details: { reason: 'max_output_tokens' },
      });
      expect(textOf(r)).toHaveLength(80);
      expect(r.usage!.output_tokens).toBe(20);
      const events = parseSse(
        await (
          await post(chaos, '/v1/responses', body({ max_output_tokens: 20, stream: true }))
        ).text(),
      );
      expect(events.at(-1)!.event).toBe('response.incomplete');
    });
  });

  it.each([
    ['no model', { input: 'hi' }, "Missing required parameter: 'model'."],
    ['no input', { model: 'gpt-test' }, "Missing required parameter: 'input'."],
    ['input a number', { model: 'gpt-test', input: 3 }, "Invalid type for 'input'"],
    [
      'an input item that is not an object',
      { model: 'gpt-test', input: ['hi'] },
      "Invalid type for 'input[0]'",
    ],
    [
      'stream not a boolean',
      { model: 'gpt-test', input: 'hi', stream: 'yes' },
      "Invalid type for 'stream'",
    ],
    [
      'max_output_tokens below 16',
      { model: 'gpt-test', input: 'hi', max_output_tokens: 5 },
      'Expected a value >= 16, but got 5 instead.',
    ],
  ])('rejects %s with a 400 in the OpenAI error shape', async (_name, request, message) => {
    await withChaos({}, async (chaos) => {
      const res = await post(chaos, '/v1/responses', request);
      expect(res.status).toBe(400);
      const error = (await res.json()) as { error: { message: string } };
      expect(error).toEqual({
        error: {
          message: expect.any(String),
          type: 'invalid_request_error',
          param: null,
          code: null,
        },
      });
      expect(error.error.message).toContain(message);
      expect(chaos.requests.map((r) => [r.api, r.status])).toEqual([['openai', 400]]);
    });
  });
});
