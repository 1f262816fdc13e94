import type { ApiWire, ChaosEndpoint, ParsedRequest, WireResponse } from './api-wire.js';
import { type CannedReply, estimateTokens, splitJson, splitText } from './canned-answers.js';
import { checkCommonFields, lastTurn, parseJsonBody } from './request-body.js';

const ERROR_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  405: 'invalid_request_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  502: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

/**
 * @internal The Anthropic error `type` for a status, as the Messages API uses them.
 */
export function anthropicErrorType(status: number): string {
  return ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

/**
 * @internal The Anthropic Messages API on the wire: `POST /v1/messages` (JSON and SSE) and
 * `POST /v1/messages/count_tokens`. The SSE sequence is the real one (`message_start`,
 * `content_block_start`, a `ping`, deltas, `content_block_stop`, `message_delta`,
 * `message_stop`), close enough for `@anthropic-ai/sdk` to accumulate a final message.
 */
export const anthropicWire: ApiWire = {
  api: 'anthropic',
  ping: frame('ping', { type: 'ping' }),

  parse(endpoint: ChaosEndpoint, raw: string): ParsedRequest | string {
    const body = parseJsonBody(raw);
    if (typeof body === 'string') return body;
    const problem = checkCommonFields(body);
    if (problem !== undefined) return problem;
    const messages = body.messages as Record<string, unknown>[];
    return {
      endpoint,
      model: body.model as string,
      stream: endpoint === 'messages' && body.stream === true,
      body,
      ...lastTurn(messages),
    };
  },

  error(status, message, id, extraHeaders = {}): WireResponse {
    return {
      status,
      headers: { ...jsonHeaders(id), ...extraHeaders },
      body: JSON.stringify({ type: 'error', error: { type: anthropicErrorType(status), message } }),
    };
  },

  json(request, reply, id): WireResponse {
    const headers = jsonHeaders(id);
    if (request.endpoint === 'count_tokens') {
      const inputTokens = reply.text === '' && reply.toolUse === undefined ? 0 : inputTokensOf(request);
      return { status: 200, headers, body: JSON.stringify({ input_tokens: inputTokens }) };
    }
    const content: Record<string, unknown>[] = [];
    if (reply.text !== '') content.push({ type: 'text', text: reply.text });
    if (reply.toolUse) content.push(toolBlock(reply.toolUse, reply.toolUse.input));
    const message = {
      ...messageHead(request, id),
      content,
      stop_reason: reply.toolUse ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: usage(inputTokensOf(request), outputTokensOf(reply)),
    };
    return { status: 200, headers, body: JSON.stringify(message) };
  },

  frames(request, reply, id): string[] {
    const frames = [
      frame('message_start', {
        type: 'message_start',
        message: {
          ...messageHead(request, id),
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: usage(inputTokensOf(request), 1),
        },
      }),
    ];
    let index = 0;
    const pingOnce = () => {
      if (index === 0) frames.push(anthropicWire.ping);
    };
    if (reply.text !== '') {
      frames.push(frame('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
      pingOnce();
      for (const text of splitText(reply.text)) {
        frames.push(frame('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text } }));
      }
      frames.push(frame('content_block_stop', { type: 'content_block_stop', index }));
      index++;
    }
    if (reply.toolUse) {
      frames.push(frame('content_block_start', { type: 'content_block_start', index, content_block: toolBlock(reply.toolUse, {}) }));
      pingOnce();
      for (const partial_json of ['', ...splitJson(JSON.stringify(reply.toolUse.input))]) {
        frames.push(
          frame('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } }),
        );
      }
      frames.push(frame('content_block_stop', { type: 'content_block_stop', index }));
      index++;
    }
    pingOnce();
    frames.push(
      frame('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: reply.toolUse ? 'tool_use' : 'end_turn', stop_sequence: null },
        usage: { output_tokens: outputTokensOf(reply) },
      }),
      frame('message_stop', { type: 'message_stop' }),
    );
    return frames;
  },

  streamHeaders(id): Record<string, string> {
    return { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'request-id': `req_${id}` };
  },

  isTerminal(sse: string): boolean {
    return /^event:\s*message_stop\s*$/m.test(sse);
  },
};

function frame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

function jsonHeaders(id: string): Record<string, string> {
  return { 'content-type': 'application/json', 'request-id': `req_${id}` };
}

function messageHead(request: ParsedRequest, id: string) {
  return { id: `msg_${id}`, type: 'message', role: 'assistant', model: request.model };
}

function toolBlock(tool: NonNullable<CannedReply['toolUse']>, input: Record<string, unknown>) {
  return { type: 'tool_use', id: `toolu_${tool.id}`, name: tool.name, input };
}

function usage(input: number, output: number) {
  return { input_tokens: input, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: output };
}

function inputTokensOf(request: ParsedRequest): number {
  const { system, messages, tools } = request.body;
  return estimateTokens({ system, messages, tools });
}

function outputTokensOf(reply: CannedReply): number {
  if (reply.text === '' && reply.toolUse === undefined) return 0;
  return estimateTokens(reply.text) + (reply.toolUse ? estimateTokens(reply.toolUse.input) : 0);
}
