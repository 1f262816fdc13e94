import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { ChaosServer, ChaosServerOptions } from '../../src/chaos/index.js';
import { withChaos } from './helpers.js';

const client = (chaos: ChaosServer) =>
  new OpenAI({ baseURL: `${chaos.url}/v1`, apiKey: 'test', maxRetries: 0, logLevel: 'off' });
const withSdk = (
  options: ChaosServerOptions,
  fn: (openai: OpenAI, chaos: ChaosServer) => Promise<void>,
) => withChaos(options, (chaos) => fn(client(chaos), chaos));

const input = { city: 'Porto', days: 3 };
const toolAnswers = {
  answers: { '*': { text: 'Checking.', toolUse: { name: 'get_weather', input } } },
};

describe('the real openai SDK (7) against the chaos server', () => {
  it('Chat Completions: create (JSON) and the stream helper agree, usage included', async () => {
    await withSdk({ answers: { '*': { textTokens: 120 } } }, async (openai) => {
      const messages = [{ role: 'user' as const, content: 'Tell me' }];
      const json = await openai.chat.completions.create({ model: 'gpt-test', messages });
      const text = json.choices[0]!.message.content!;
      expect(Math.ceil(text.length / 4)).toBe(json.usage!.completion_tokens);
      const deltas: string[] = [];
      const stream = openai.chat.completions.stream({
        model: 'gpt-test',
        messages,
        stream_options: { include_usage: true },
      });
      stream.on('content', (delta) => deltas.push(delta));
      const final = await stream.finalChatCompletion();
      expect(final.choices[0]!.message.content).toBe(text);
      expect(deltas.length).toBeGreaterThan(10);
      expect(final.choices[0]!.finish_reason).toBe('stop');
      expect(final.usage).toEqual(json.usage);
    });
  });

  it('Chat Completions: a streamed tool call accumulates into complete arguments', async () => {
    await withSdk(toolAnswers, async (openai) => {
      const final = await openai.chat.completions
        .stream({
          model: 'gpt-test',
          messages: [{ role: 'user', content: 'Weather?' }],
          tools: [
            {
              type: 'function',
              function: { name: 'get_weather', parameters: { type: 'object', properties: {} } },
            },
          ],
        })
        .finalChatCompletion();
      const choice = final.choices[0]!;
      expect(choice.finish_reason).toBe('tool_calls');
      expect(choice.message.content).toBe('Checking.');
      const call = choice.message.tool_calls![0]!;
      expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual(input);
    });
  });

  it('Responses: create gives output_text; the stream helper gives the same final response', async () => {
    await withSdk({ answers: { '*': { textTokens: 80 } } }, async (openai) => {
      const json = await openai.responses.create({ model: 'gpt-test', input: 'Tell me' });
      expect(json.status).toBe('completed');
      expect(json.output_text.length).toBeGreaterThan(300);
      const deltas: string[] = [];
      const stream = openai.responses.stream({ model: 'gpt-test', input: 'Tell me' });
      stream.on('response.output_text.delta', (event) => deltas.push(event.delta));
      const final = await stream.finalResponse();
      expect(final.output_text).toBe(json.output_text);
      expect(deltas.join('')).toBe(json.output_text);
      expect(final.usage).toEqual(json.usage);
    });
  });

  it('Responses: a function call, a reasoning summary, and max_output_tokens through the stream helper', async () => {
    const answers = {
      '*': {
        thinking: 'Compare the forecasts.',
        text: 'Checking.',
        toolUse: { name: 'get_weather', input },
      },
    };
    await withSdk({ answers }, async (openai) => {
      const summary: string[] = [];
      const stream = openai.responses.stream({
        model: 'gpt-test',
        input: 'Weather?',
        reasoning: { effort: 'low', summary: 'auto' },
        tools: [
          {
            type: 'function',
            name: 'get_weather',
            parameters: { type: 'object', properties: {} },
            strict: false,
          },
        ],
      });
      stream.on('response.reasoning_summary_text.delta', (event) => summary.push(event.delta));
      const final = await stream.finalResponse();
      expect(final.output.map((o) => o.type)).toEqual(['reasoning', 'message', 'function_call']);
      expect(summary.join('')).toBe('Compare the forecasts.');
      const call = final.output[2]!;
      expect(call.type === 'function_call' && JSON.parse(call.arguments)).toEqual(input);
      expect(final.usage!.output_tokens_details.reasoning_tokens).toBe(
        Math.ceil('Compare the forecasts.'.length / 4),
      );
    });
    await withSdk({ answers: { '*': { textTokens: 500 } } }, async (openai) => {
      const final = await openai.responses
        .stream({ model: 'gpt-test', input: 'Long', max_output_tokens: 50 })
        .finalResponse();
      expect(final.status).toBe('incomplete');
      expect(final.incomplete_details).toEqual({ reason: 'max_output_tokens' });
      expect(final.output_text.length).toBeLessThanOrEqual(200);
    });
  });

  it('on a truncated stream: the Responses helper resolves with status in_progress (a hazard), the Chat helper rejects', async () => {
    const scenario = {
      rules: [
        { name: 'truncate', fault: { kind: 'truncate' as const, afterEvents: 6 } },
        { name: 'overloaded', fault: { kind: 'status' as const, status: 529 } },
      ],
    };
    await withSdk({ scenario, answers: { '*': { textTokens: 40 } } }, async (openai) => {
      const truncated = { headers: { 'x-chaos-rule': 'truncate' } };
      // openai 7 resolves finalResponse() with the last snapshot when response.completed never
      // came: an adapter must check the status (or the event) itself.
      const partial = await openai.responses
        .stream({ model: 'gpt-test', input: 'hi' }, truncated)
        .finalResponse();
      expect(partial.status).toBe('in_progress');
      expect(partial.output_text.length).toBeGreaterThan(0);
      await expect(
        openai.chat.completions
          .stream({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] }, truncated)
          .finalChatCompletion(),
      ).rejects.toThrow('missing finish_reason for choice 0');
      // The raw iterators simply end.
      const chunks = await openai.chat.completions.create(
        { model: 'gpt-test', stream: true, messages: [{ role: 'user', content: 'hi' }] },
        truncated,
      );
      let n = 0;
      for await (const _ of chunks) n++;
      expect(n).toBe(6);

      const overloaded = await openai.responses
        .create({ model: 'gpt-test', input: 'hi' }, { headers: { 'x-chaos-rule': 'overloaded' } })
        .catch((e: unknown) => e);
      expect(overloaded).toBeInstanceOf(OpenAI.InternalServerError);
      expect((overloaded as InstanceType<typeof OpenAI.InternalServerError>).status).toBe(529);
    });
  });
});
