import type { ApiWire, ChaosEndpoint, ParsedRequest, WireResponse } from './api-wire.js';
import { type CannedReply, splitText } from './canned-answers.js';
import { data, OPENAI_WIRE_BASE, openaiJsonHeaders } from './openai-shared.js';
import {
  checkCommonFields,
  lastTurn,
  optionalPositiveInteger,
  parseJsonBody,
  toolNames,
} from './request-body.js';
import { chunks, inputTokensOf } from './tokens.js';

const FINISH_REASONS: Readonly<Record<CannedReply['stop'], string>> = {
  end: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
};

/**
 * @internal OpenAI Chat Completions on the wire: `POST /v1/chat/completions`, a
 * `chat.completion` JSON object or `chat.completion.chunk` SSE lines ending with `data: [DONE]`,
 * tool calls included. Chat Completions shows no reasoning text, so `thinking` stays off.
 */
export const openaiWire: ApiWire = {
  ...OPENAI_WIRE_BASE,

  parse(endpoint: ChaosEndpoint, raw: string): ParsedRequest | string {
    const body = parseJsonBody(raw);
    if (typeof body === 'string') return body;
    const problem = checkCommonFields(body);
    if (problem !== undefined) return problem;
    const max = optionalPositiveInteger(
      body,
      body.max_completion_tokens === undefined ? 'max_tokens' : 'max_completion_tokens',
    );
    if (typeof max === 'string') return max;
    const { messages, tools } = body;
    return {
      endpoint,
      model: body.model as string,
      stream: body.stream === true,
      body,
      ...lastTurn(messages as Record<string, unknown>[]),
      toolNames: toolNames(
        tools,
        (tool) => (tool.function as Record<string, unknown> | undefined)?.name,
      ),
      thinking: null,
      prefill: null,
      maxOutputTokens: max,
      inputTokens: inputTokensOf({ messages, tools }),
    };
  },

  json(request, reply, id): WireResponse {
    const message: Record<string, unknown> = {
      role: 'assistant',
      content: reply.toolUse && reply.text === '' ? null : reply.text,
      refusal: null,
    };
    if (reply.toolUse) {
      message.tool_calls = [
        {
          id: `call_${reply.toolUse.id}`,
          type: 'function',
          function: { name: reply.toolUse.name, arguments: JSON.stringify(reply.toolUse.input) },
        },
      ];
    }
    const completion = {
      ...head(request, id, 'chat.completion'),
      choices: [{ index: 0, message, logprobs: null, finish_reason: FINISH_REASONS[reply.stop] }],
      usage: usageOf(request, reply),
    };
    return { status: 200, headers: openaiJsonHeaders(id), body: JSON.stringify(completion) };
  },

  frames(request, reply, id): string[] {
    const chunkHead = head(request, id, 'chat.completion.chunk');
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      data({ ...chunkHead, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
    const frames = [chunk({ role: 'assistant', content: '', refusal: null })];
    for (const content of splitText(reply.text)) frames.push(chunk({ content }));
    if (reply.toolUse) {
      const call = { index: 0, id: `call_${reply.toolUse.id}`, type: 'function' };
      frames.push(
        chunk({ tool_calls: [{ ...call, function: { name: reply.toolUse.name, arguments: '' } }] }),
      );
      for (const args of chunks(JSON.stringify(reply.toolUse.input), 16)) {
        frames.push(chunk({ tool_calls: [{ index: 0, function: { arguments: args } }] }));
      }
    }
    frames.push(chunk({}, FINISH_REASONS[reply.stop]));
    const options = request.body.stream_options;
    if (
      typeof options === 'object' &&
      options !== null &&
      (options as Record<string, unknown>).include_usage === true
    ) {
      frames.push(data({ ...chunkHead, choices: [], usage: usageOf(request, reply) }));
    }
    frames.push('data: [DONE]\n\n');
    return frames;
  },

  isTerminal(sse: string): boolean {
    return /^data:\s*\[DONE\]\s*$/m.test(sse);
  },

  // What OpenAI sends when a stream fails mid-way: a chunk holding only an `error` object.
  streamError(type, message): string {
    return data({ error: { message, type, param: null, code: null } });
  },
};

function head(request: ParsedRequest, id: string, object: string) {
  return {
    id: `chatcmpl-${id}`,
    object,
    created: Math.floor(Date.now() / 1000),
    model: request.model,
  };
}

function usageOf(request: ParsedRequest, reply: CannedReply) {
  const completion = reply.outputTokens;
  return {
    prompt_tokens: request.inputTokens,
    completion_tokens: completion,
    total_tokens: request.inputTokens + completion,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0 },
  };
}
