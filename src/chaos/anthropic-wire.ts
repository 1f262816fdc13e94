import { anthropicTurn } from './anthropic-request.js';
import type { ApiWire, ChaosEndpoint, ParsedRequest, WireResponse } from './api-wire.js';
import { type CannedReply, splitText } from './canned-answers.js';
import { mostRestrictiveTokens, type LimitState, type RateLimitSnapshot } from './rate-limits.js';
import { checkCommonFields, lastTurn, parseJsonBody, toolNames } from './request-body.js';
import { chunks, inputTokensOf } from './tokens.js';

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

const STOP_REASONS: Readonly<Record<CannedReply['stop'], string>> = {
  end: 'end_turn',
  tool_use: 'tool_use',
  max_tokens: 'max_tokens',
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
 * `message_stop`), with `thinking` (`thinking_delta`, `signature_delta`), `text` and `tool_use`
 * (`input_json_delta`) blocks in that order.
 */
export const anthropicWire: ApiWire = {
  api: 'anthropic',
  ping: frame('ping', { type: 'ping' }),
  defaultStreamErrorType: 'overloaded_error',

  parse(endpoint: ChaosEndpoint, raw: string): ParsedRequest | string {
    const body = parseJsonBody(raw);
    if (typeof body === 'string') return body;
    const problem = checkCommonFields(body);
    if (problem !== undefined) return problem;
    const messages = body.messages as Record<string, unknown>[];
    const turn = anthropicTurn(body, messages, endpoint === 'count_tokens');
    if (typeof turn === 'string') return turn;
    const { system, tools } = body;
    return {
      endpoint,
      model: body.model as string,
      stream: endpoint === 'messages' && body.stream === true,
      body,
      ...lastTurn(messages),
      ...turn,
      toolNames: toolNames(tools, (tool) => tool.name),
      inputTokens: inputTokensOf({ system, messages, tools }),
    };
  },

  error(status, message, id, options = {}): WireResponse {
    return {
      status,
      headers: { ...jsonHeaders(id), ...options.headers },
      body: JSON.stringify({
        type: 'error',
        error: { type: options.type ?? anthropicErrorType(status), message },
      }),
    };
  },

  contextOverflow(_endpoint, inputTokens, limit, id): WireResponse {
    return this.error(400, `prompt is too long: ${inputTokens} tokens > ${limit} maximum`, id);
  },

  json(request, reply, id): WireResponse {
    const headers = jsonHeaders(id);
    if (request.endpoint === 'count_tokens') {
      return {
        status: 200,
        headers,
        body: JSON.stringify({ input_tokens: reply.empty ? 0 : request.inputTokens }),
      };
    }
    const message = {
      ...messageHead(request, id),
      content: blocksOf(reply).map((b) => b.complete),
      stop_reason: STOP_REASONS[reply.stop],
      stop_sequence: null,
      usage: usage(request.inputTokens, reply.outputTokens),
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
          usage: usage(request.inputTokens, 1),
        },
      }),
    ];
    const blocks = blocksOf(reply);
    for (const [index, block] of blocks.entries()) {
      frames.push(
        frame('content_block_start', {
          type: 'content_block_start',
          index,
          content_block: block.start,
        }),
      );
      if (index === 0) frames.push(anthropicWire.ping);
      for (const delta of block.deltas)
        frames.push(frame('content_block_delta', { type: 'content_block_delta', index, delta }));
      frames.push(frame('content_block_stop', { type: 'content_block_stop', index }));
    }
    if (blocks.length === 0) frames.push(anthropicWire.ping);
    frames.push(
      frame('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: STOP_REASONS[reply.stop], stop_sequence: null },
        usage: { output_tokens: reply.outputTokens },
      }),
      frame('message_stop', { type: 'message_stop' }),
    );
    return frames;
  },

  streamHeaders(id): Record<string, string> {
    return {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'request-id': `req_${id}`,
    };
  },

  isTerminal(sse: string): boolean {
    return /^event:\s*message_stop\s*$/m.test(sse);
  },

  streamError(type, message): string {
    return frame('error', { type: 'error', error: { type, message } });
  },

  rateLimitHeaders(s: RateLimitSnapshot, wallNow: number): Record<string, string> {
    const headers: Record<string, string> = {};
    const put = (name: string, state: LimitState | undefined) => {
      if (state === undefined) return;
      headers[`anthropic-ratelimit-${name}-limit`] = String(state.limit);
      headers[`anthropic-ratelimit-${name}-remaining`] = String(state.remaining);
      headers[`anthropic-ratelimit-${name}-reset`] = rfc3339(wallNow + state.resetMs);
    };
    put('requests', s.requests);
    put('tokens', mostRestrictiveTokens(s));
    put('input-tokens', s.input_tokens);
    put('output-tokens', s.output_tokens);
    return headers;
  },
};

interface Block {
  /** The block as a JSON answer holds it. */
  readonly complete: Record<string, unknown>;
  /** The block as `content_block_start` opens it. */
  readonly start: Record<string, unknown>;
  readonly deltas: ReadonlyArray<Record<string, unknown>>;
}

function blocksOf(reply: CannedReply): Block[] {
  const blocks: Block[] = [];
  if (reply.thinking !== null) {
    const signature = signatureOf(reply);
    blocks.push({
      complete: { type: 'thinking', thinking: reply.thinking, signature },
      start: { type: 'thinking', thinking: '', signature: '' },
      deltas: [
        ...splitText(reply.thinking).map((thinking) => ({ type: 'thinking_delta', thinking })),
        { type: 'signature_delta', signature },
      ],
    });
  }
  if (reply.text !== '') {
    blocks.push({
      complete: { type: 'text', text: reply.text },
      start: { type: 'text', text: '' },
      deltas: splitText(reply.text).map((text) => ({ type: 'text_delta', text })),
    });
  }
  if (reply.toolUse) {
    const head = { type: 'tool_use', id: `toolu_${reply.toolUse.id}`, name: reply.toolUse.name };
    // The real API opens with an empty partial_json, then sends the input a few characters at a time.
    const json = JSON.stringify(reply.toolUse.input);
    blocks.push({
      complete: { ...head, input: reply.toolUse.input },
      start: { ...head, input: {} },
      deltas: ['', ...chunks(json, 16)].map((partial_json) => ({
        type: 'input_json_delta',
        partial_json,
      })),
    });
  }
  return blocks;
}

// Opaque like the real one; the chaos server never checks signatures it gets back.
function signatureOf(reply: CannedReply): string {
  return Buffer.from(`recourse-chaos:${reply.key}:${reply.thinking?.length ?? 0}`).toString(
    'base64',
  );
}

function frame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

function jsonHeaders(id: string): Record<string, string> {
  return { 'content-type': 'application/json', 'request-id': `req_${id}` };
}

function messageHead(request: ParsedRequest, id: string) {
  return { id: `msg_${id}`, type: 'message', role: 'assistant', model: request.model };
}

function usage(input: number, output: number) {
  return {
    input_tokens: input,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: output,
  };
}

// RFC 3339 in whole seconds like the API's own, rounded up so a client never retries early.
function rfc3339(epochMs: number): string {
  return new Date(Math.ceil(epochMs / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
