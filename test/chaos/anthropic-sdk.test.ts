import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import type { ChaosServer, ChaosServerOptions } from '../../src/chaos/index.js';
import { withChaos } from './helpers.js';

// logLevel 'off': the malformed-stream test makes the SDK log the bad chunk it then throws on.
const client = (chaos: ChaosServer) =>
  new Anthropic({ baseURL: chaos.url, apiKey: 'test', maxRetries: 0, logLevel: 'off' });
const params = (model = 'claude-test') => ({
  model,
  max_tokens: 256,
  messages: [{ role: 'user' as const, content: 'What is the weather in Lisbon?' }],
});

const withSdk = (
  options: ChaosServerOptions,
  fn: (anthropic: Anthropic, chaos: ChaosServer) => Promise<void>,
) => withChaos(options, (chaos) => fn(client(chaos), chaos));

describe('the real @anthropic-ai/sdk against the chaos server', () => {
  it('streams a healthy answer with messages.stream() and gets the final message', async () => {
    await withSdk({}, async (anthropic) => {
      const stream = anthropic.messages.stream(params());
      const texts: string[] = [];
      stream.on('text', (delta) => texts.push(delta));
      const message = await stream.finalMessage();
      expect(message.role).toBe('assistant');
      expect(message.stop_reason).toBe('end_turn');
      expect(message.content).toHaveLength(1);
      const block = message.content[0]!;
      expect(block.type).toBe('text');
      expect(texts.length).toBeGreaterThan(1);
      expect(block.type === 'text' && block.text).toBe(texts.join(''));
      expect(message.usage.output_tokens).toBeGreaterThan(0);
      expect(stream.request_id).toMatch(/^req_/);

      const plain = await anthropic.messages.create(params());
      expect(plain.content).toEqual(message.content);
      expect(plain._request_id).toMatch(/^req_/);
    });
  });

  it('streams a tool_use answer and accumulates its input', async () => {
    const answers = {
      'claude-tools': {
        text: 'Let me check.',
        toolUse: { name: 'get_weather', input: { city: 'Lisbon' } },
      },
    };
    await withSdk({ answers }, async (anthropic) => {
      const tools = [
        {
          name: 'get_weather',
          description: 'Weather',
          input_schema: { type: 'object' as const, properties: {} },
        },
      ];
      const message = await anthropic.messages
        .stream({ ...params('claude-tools'), tools })
        .finalMessage();
      expect(message.stop_reason).toBe('tool_use');
      expect(message.content.map((b) => b.type)).toEqual(['text', 'tool_use']);
      const tool = message.content[1]!;
      expect(tool.type === 'tool_use' && { name: tool.name, input: tool.input }).toEqual({
        name: 'get_weather',
        input: { city: 'Lisbon' },
      });
    });
  });

  it('iterates raw events with create({ stream: true })', async () => {
    await withSdk({}, async (anthropic) => {
      const stream = await anthropic.messages.create({ ...params(), stream: true });
      const types: string[] = [];
      for await (const event of stream) types.push(event.type);
      expect(types[0]).toBe('message_start');
      expect(types.at(-1)).toBe('message_stop');
      expect(types).toContain('content_block_delta');
      expect(types).not.toContain('ping');
    });
  });

  it('surfaces a 529 as an APIError with status 529 and the overloaded_error type', async () => {
    const scenario = { rules: [{ match: {}, fault: { kind: 'status' as const, status: 529 } }] };
    await withSdk({ scenario }, async (anthropic) => {
      const failure = await anthropic.messages.create(params()).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(Anthropic.APIError);
      const error = failure as InstanceType<typeof Anthropic.APIError>;
      expect(error.status).toBe(529);
      expect(error.type).toBe('overloaded_error');
      const streamed = await anthropic.messages
        .stream(params())
        .finalMessage()
        .catch((e: unknown) => e);
      expect((streamed as InstanceType<typeof Anthropic.APIError>).status).toBe(529);
    });
  });

  it('counts tokens', async () => {
    await withSdk({}, async (anthropic) => {
      const count = await anthropic.messages.countTokens(params());
      expect(count.input_tokens).toBeGreaterThan(0);
    });
  });

  it('fails the stream on a truncated or malformed answer instead of returning a message', async () => {
    for (const fault of [
      { kind: 'truncate' as const, afterEvents: 4 },
      { kind: 'malformed' as const },
    ]) {
      await withSdk({ scenario: { rules: [{ fault }] } }, async (anthropic) => {
        await expect(anthropic.messages.stream(params()).finalMessage()).rejects.toThrow();
      });
    }
  });

  it('gives an empty answer no content blocks', async () => {
    await withSdk({ scenario: { rules: [{ fault: { kind: 'empty' } }] } }, async (anthropic) => {
      const message = await anthropic.messages.stream(params()).finalMessage();
      expect(message.content).toEqual([]);
    });
  });
});
