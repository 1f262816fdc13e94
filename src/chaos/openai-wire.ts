import type { ApiWire, ChaosEndpoint, ParsedRequest, WireResponse } from './api-wire.js';
import { type CannedReply, estimateTokens, splitJson, splitText } from './canned-answers.js';
import { checkCommonFields, lastTurn, parseJsonBody } from './request-body.js';

const ERRORS: Readonly<Record<number, { type: string; code: string | null }>> = {
  400: { type: 'invalid_request_error', code: null },
  401: { type: 'invalid_request_error', code: 'invalid_api_key' },
  403: { type: 'invalid_request_error', code: 'unsupported_country_region_territory' },
  404: { type: 'invalid_request_error', code: 'not_found' },
  405: { type: 'invalid_request_error', code: null },
  413: { type: 'invalid_request_error', code: 'request_too_large' },
  429: { type: 'requests', code: 'rate_limit_exceeded' },
};

/** @internal The OpenAI error `type` and `code` for a status. */
export function openaiError(status: number): { type: string; code: string | null } {
  return ERRORS[status] ?? (status >= 500 ? { type: 'server_error', code: null } : { type: 'invalid_request_error', code: null });
}

/**
 * @internal OpenAI Chat Completions on the wire: `POST /v1/chat/completions`, a
 * `chat.completion` JSON object or `chat.completion.chunk` SSE lines ending with `data: [DONE]`,
 * tool calls included.
 */
export const openaiWire: ApiWire = {
  api: 'openai',
  // A comment line: SSE clients skip it, which is how OpenAI-compatible servers keep a stream alive.
  ping: ': ping\n\n',

  parse(endpoint: ChaosEndpoint, raw: string): ParsedRequest | string {
    const body = parseJsonBody(raw);
    if (typeof body === 'string') return body;
    const problem = checkCommonFields(body);
    if (problem !== undefined) return problem;
    return {
      endpoint,
      model: body.model as string,
      stream: body.stream === true,
      body,
      ...lastTurn(body.messages as Record<string, unknown>[]),
    };
  },

  error(status, message, id, extraHeaders = {}): WireResponse {
    const { type, code } = openaiError(status);
    return {
      status,
      headers: { ...jsonHeaders(id), ...extraHeaders },
      body: JSON.stringify({ error: { message, type, param: null, code } }),
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
      choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(reply) }],
      usage: usageOf(request, reply),
    };
    return { status: 200, headers: jsonHeaders(id), body: JSON.stringify(completion) };
  },

  frames(request, reply, id): string[] {
    const chunkHead = head(request, id, 'chat.completion.chunk');
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      data({ ...chunkHead, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
    const frames = [chunk({ role: 'assistant', content: '' })];
    for (const content of splitText(reply.text)) frames.push(chunk({ content }));
    if (reply.toolUse) {
      const call = { index: 0, id: `call_${reply.toolUse.id}`, type: 'function' };
      frames.push(chunk({ tool_calls: [{ ...call, function: { name: reply.toolUse.name, arguments: '' } }] }));
      for (const args of splitJson(JSON.stringify(reply.toolUse.input))) {
        frames.push(chunk({ tool_calls: [{ index: 0, function: { arguments: args } }] }));
      }
    }
    frames.push(chunk({}, finishReason(reply)));
    const options = request.body.stream_options;
    if (typeof options === 'object' && options !== null && (options as Record<string, unknown>).include_usage === true) {
      frames.push(data({ ...chunkHead, choices: [], usage: usageOf(request, reply) }));
    }
    frames.push('data: [DONE]\n\n');
    return frames;
  },

  streamHeaders(id): Record<string, string> {
    return { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-request-id': `req_${id}` };
  },

  isTerminal(sse: string): boolean {
    return /^data:\s*\[DONE\]\s*$/m.test(sse);
  },
};

function data(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}

function jsonHeaders(id: string): Record<string, string> {
  return { 'content-type': 'application/json', 'x-request-id': `req_${id}` };
}

function head(request: ParsedRequest, id: string, object: string) {
  return { id: `chatcmpl-${id}`, object, created: Math.floor(Date.now() / 1000), model: request.model };
}

function finishReason(reply: CannedReply): string {
  return reply.toolUse ? 'tool_calls' : 'stop';
}

function usageOf(request: ParsedRequest, reply: CannedReply) {
  const prompt = estimateTokens({ messages: request.body.messages, tools: request.body.tools });
  const completion =
    reply.text === '' && !reply.toolUse
      ? 0
      : estimateTokens(reply.text) + (reply.toolUse ? estimateTokens(reply.toolUse.input) : 0);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}
