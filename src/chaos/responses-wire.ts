import type { ApiWire, ChaosEndpoint, ParsedRequest, WireResponse } from './api-wire.js';
import { type CannedReply, splitText } from './canned-answers.js';
import { OPENAI_WIRE_BASE, openaiJsonHeaders } from './openai-shared.js';
import { parseJsonBody, toolNames } from './request-body.js';
import { chunks, inputTokensOf, tokensOf } from './tokens.js';

type Json = Record<string, unknown>;

/**
 * @internal The OpenAI Responses API on the wire: `POST /v1/responses`, a `response` JSON
 * object, or SSE events each named by `event:` and carrying `type` and `sequence_number`:
 * `response.created`, `response.in_progress`, per output item `response.output_item.added`,
 * its content events (`response.output_text.delta`, `response.function_call_arguments.delta`,
 * `response.reasoning_summary_text.delta`, …) and `response.output_item.done`, then
 * `response.completed` (or `response.incomplete` when `max_output_tokens` cut the answer).
 * A request with `reasoning` gets a reasoning item first; its summary text only when
 * `reasoning.summary` asks for one.
 */
export const responsesWire: ApiWire = {
  ...OPENAI_WIRE_BASE,

  parse(endpoint: ChaosEndpoint, raw: string): ParsedRequest | string {
    const body = parseJsonBody(raw);
    if (typeof body === 'string') return body;
    const { model, input, stream, instructions, tools, reasoning } = body;
    if (model === undefined) return "Missing required parameter: 'model'.";
    if (typeof model !== 'string' || model === '')
      return `Invalid type for 'model': expected a non-empty string, but got ${kind(model)} instead.`;
    if (input === undefined) return "Missing required parameter: 'input'.";
    if (typeof input !== 'string' && !Array.isArray(input)) {
      return `Invalid type for 'input': expected one of a string or an array of input items, but got ${kind(input)} instead.`;
    }
    if (Array.isArray(input)) {
      const at = input.findIndex(
        (item) => typeof item !== 'object' || item === null || Array.isArray(item),
      );
      if (at >= 0)
        return `Invalid type for 'input[${at}]': expected an input item object, but got ${kind(input[at])} instead.`;
    }
    if (stream !== undefined && stream !== null && typeof stream !== 'boolean') {
      return `Invalid type for 'stream': expected a boolean, but got ${kind(stream)} instead.`;
    }
    const max = body.max_output_tokens;
    if (max !== undefined && max !== null) {
      if (!Number.isSafeInteger(max))
        return `Invalid type for 'max_output_tokens': expected an integer, but got ${kind(max)} instead.`;
      if ((max as number) < 16) {
        return `Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got ${String(max)} instead.`;
      }
    }
    const items =
      typeof input === 'string' ? [{ role: 'user', content: input }] : (input as Json[]);
    const lastUser = [...items].reverse().find((item) => item.role === 'user');
    const thinkingOn =
      typeof reasoning === 'object' && reasoning !== null && (reasoning as Json).effort !== 'none';
    return {
      endpoint,
      model,
      stream: stream === true,
      body,
      lastUserContent: typeof input === 'string' ? input : (lastUser?.content ?? null),
      afterToolResult: items[items.length - 1]?.type === 'function_call_output',
      toolNames: toolNames(tools, (tool) => (tool.type === 'function' ? tool.name : undefined)),
      thinking: thinkingOn ? { budgetTokens: null } : null,
      prefill: null,
      maxOutputTokens: (max as number | null | undefined) ?? null,
      inputTokens: inputTokensOf({ instructions, input, tools }),
    };
  },

  json(request, reply, id): WireResponse {
    const output = outputItems(request, reply, id).map((item) => item.done);
    return {
      status: 200,
      headers: openaiJsonHeaders(id),
      body: JSON.stringify(responseObject(request, reply, id, output, true)),
    };
  },

  frames(request, reply, id): string[] {
    let sequence = 0;
    const frames: string[] = [];
    const emit = (type: string, fields: Json) => {
      frames.push(
        `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`,
      );
    };
    const inProgress = responseObject(request, reply, id, [], false);
    emit('response.created', { response: inProgress });
    emit('response.in_progress', { response: inProgress });
    const items = outputItems(request, reply, id);
    for (const [output_index, item] of items.entries()) {
      emit('response.output_item.added', { output_index, item: item.added });
      for (const [type, fields] of item.events) emit(type, { ...fields, output_index });
      emit('response.output_item.done', { output_index, item: item.done });
    }
    const final = responseObject(
      request,
      reply,
      id,
      items.map((item) => item.done),
      true,
    );
    emit(reply.stop === 'max_tokens' ? 'response.incomplete' : 'response.completed', {
      response: final,
    });
    return frames;
  },

  isTerminal(sse: string): boolean {
    return /^event:\s*response\.(completed|incomplete|failed)\s*$/m.test(sse);
  },

  streamError(type, message, sent): string {
    const event = { type: 'error', code: type, message, param: null, sequence_number: sent };
    return `event: error\ndata: ${JSON.stringify(event)}\n\n`;
  },
};

interface OutputItem {
  readonly added: Json;
  readonly events: ReadonlyArray<readonly [string, Json]>;
  readonly done: Json;
}

function outputItems(request: ParsedRequest, reply: CannedReply, id: string): OutputItem[] {
  const items: OutputItem[] = [];
  if (reply.thinking !== null) {
    const itemId = `rs_${id}`;
    const summarise = (request.body.reasoning as Json).summary;
    const text = reply.thinking;
    const events: Array<[string, Json]> = [];
    if (typeof summarise === 'string' && text !== '') {
      const at = { item_id: itemId, summary_index: 0 };
      events.push([
        'response.reasoning_summary_part.added',
        { ...at, part: { type: 'summary_text', text: '' } },
      ]);
      for (const delta of splitText(text))
        events.push(['response.reasoning_summary_text.delta', { ...at, delta }]);
      events.push(['response.reasoning_summary_text.done', { ...at, text }]);
      events.push([
        'response.reasoning_summary_part.done',
        { ...at, part: { type: 'summary_text', text } },
      ]);
    }
    const summary = events.length > 0 ? [{ type: 'summary_text', text }] : [];
    items.push({
      added: { id: itemId, type: 'reasoning', summary: [] },
      events,
      done: { id: itemId, type: 'reasoning', summary },
    });
  }
  if (reply.text !== '') {
    const itemId = `msg_${id}`;
    const at = { item_id: itemId, content_index: 0 };
    const part = (text: string) => ({ type: 'output_text', text, annotations: [], logprobs: [] });
    const events: Array<[string, Json]> = [
      ['response.content_part.added', { ...at, part: part('') }],
    ];
    for (const delta of splitText(reply.text))
      events.push(['response.output_text.delta', { ...at, delta, logprobs: [] }]);
    events.push(['response.output_text.done', { ...at, text: reply.text, logprobs: [] }]);
    events.push(['response.content_part.done', { ...at, part: part(reply.text) }]);
    const message = { id: itemId, type: 'message', role: 'assistant' };
    const status = reply.stop === 'max_tokens' ? 'incomplete' : 'completed';
    items.push({
      added: { ...message, status: 'in_progress', content: [] },
      events,
      done: { ...message, status, content: [part(reply.text)] },
    });
  }
  if (reply.toolUse) {
    const itemId = `fc_${id}`;
    const args = JSON.stringify(reply.toolUse.input);
    const call = {
      id: itemId,
      type: 'function_call',
      call_id: `call_${reply.toolUse.id}`,
      name: reply.toolUse.name,
    };
    const events: Array<[string, Json]> = chunks(args, 16).map((delta) => [
      'response.function_call_arguments.delta',
      { item_id: itemId, delta },
    ]);
    events.push([
      'response.function_call_arguments.done',
      { item_id: itemId, name: reply.toolUse.name, arguments: args },
    ]);
    items.push({
      added: { ...call, arguments: '', status: 'in_progress' },
      events,
      done: { ...call, arguments: args, status: 'completed' },
    });
  }
  return items;
}

function responseObject(
  request: ParsedRequest,
  reply: CannedReply,
  id: string,
  output: Json[],
  finished: boolean,
): Json {
  const body = request.body;
  const reasoning =
    typeof body.reasoning === 'object' && body.reasoning !== null ? (body.reasoning as Json) : {};
  const incomplete = finished && reply.stop === 'max_tokens';
  const reasoningTokens = tokensOf(reply.thinking ?? '');
  return {
    id: `resp_${id}`,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: finished ? (incomplete ? 'incomplete' : 'completed') : 'in_progress',
    background: false,
    error: null,
    incomplete_details: incomplete ? { reason: 'max_output_tokens' } : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    max_tool_calls: null,
    model: request.model,
    output,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    reasoning: { effort: reasoning.effort ?? null, summary: reasoning.summary ?? null },
    service_tier: 'default',
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: body.tool_choice ?? 'auto',
    tools: Array.isArray(body.tools) ? body.tools : [],
    top_logprobs: 0,
    top_p: body.top_p ?? 1,
    truncation: 'disabled',
    usage: finished
      ? {
          input_tokens: request.inputTokens,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: reply.outputTokens,
          output_tokens_details: { reasoning_tokens: reasoningTokens },
          total_tokens: request.inputTokens + reply.outputTokens,
        }
      : null,
    user: null,
    metadata: body.metadata ?? {},
  };
}

function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
