import { type IncomingMessage, STATUS_CODES, type ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { Clock } from '../clock/clock.js';
import { errorText } from '../text/safe-text.js';
import { anthropicWire } from './anthropic-wire.js';
import type { ApiWire, ChaosEndpoint, ParsedRequest } from './api-wire.js';
import {
  type CannedAnswers,
  type CannedReply,
  cannedReply,
  contextWindow,
} from './canned-answers.js';
import { sample } from './distribution.js';
import {
  malformFrames,
  malformJson,
  pause,
  waitForAbort,
  type WritePlan,
  writeJson,
  writeStream,
} from './faults.js';
import { openaiWire } from './openai-wire.js';
import type { Pacer } from './pacing.js';
import { forward, readText, sseFrames, upstreamHeaders } from './proxy.js';
import { rateLimitedAnswer } from './rate-limit-answer.js';
import type { RateLimits } from './rate-limits.js';
import type { ChaosRequestRecord } from './request-log.js';
import { responsesWire } from './responses-wire.js';
import type { RuleBook } from './rule-book.js';
import type { Fault } from './scenario.js';
import { messageOfErrorType, statusOfErrorType } from './stream-error.js';

/** @internal Everything a request handler shares with its server. */
export interface HandlerContext {
  readonly book: RuleBook;
  readonly answers: CannedAnswers;
  readonly seed: number;
  readonly upstream: URL | undefined;
  readonly clock: Clock;
  /** Wall time (epoch ms) on the server's clock: request log times and rate-limit resets. */
  readonly wallNow: () => number;
  readonly limits: RateLimits | undefined;
  readonly pacer: Pacer;
  readonly record: (entry: ChaosRequestRecord) => void;
  /** The next request's id and its own random source (both from the seed and its position). */
  readonly nextRequest: () => { readonly id: string; readonly random: () => number };
}

interface Route {
  readonly wire: ApiWire;
  readonly endpoint: ChaosEndpoint;
}

const ROUTES: Readonly<Record<string, Route>> = {
  '/v1/messages': { wire: anthropicWire, endpoint: 'messages' },
  '/v1/messages/count_tokens': { wire: anthropicWire, endpoint: 'count_tokens' },
  '/v1/chat/completions': { wire: openaiWire, endpoint: 'chat_completions' },
  '/v1/responses': { wire: responsesWire, endpoint: 'responses' },
};

/** @internal Largest request body read; a larger one gets a 413. */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

/** One request as the handler carries it along, once its body parsed. */
interface Call {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly ctx: HandlerContext;
  readonly wire: ApiWire;
  readonly id: string;
  readonly signal: AbortSignal;
  readonly base: ChaosRequestRecord;
  /** Rate-limit headers every answer to this request carries. */
  readonly limitHeaders: Record<string, string>;
  /** This request's draws: latency and pacing. */
  readonly random: () => number;
}

/** @internal Answers one HTTP request: routing, validation, rate limits, faults, answer. */
export async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: HandlerContext,
): Promise<void> {
  const at = ctx.wallNow();
  const { id, random } = ctx.nextRequest();
  const controller = new AbortController();
  const signal = controller.signal;
  res.on('close', () => controller.abort());
  // Writes to a connection the client already dropped are expected here, not errors.
  res.on('error', () => {});
  const path = (req.url ?? '/').split('?')[0] || '/';
  const route = ROUTES[path.length > 1 ? path.replace(/\/+$/, '') : path];
  const unknown: ChaosRequestRecord = {
    api: null,
    path,
    model: null,
    stream: false,
    fault: null,
    rule: null,
    status: null,
    at,
    prefill: null,
    usage: null,
    rateLimit: null,
  };

  if (route === undefined) {
    if (ctx.upstream !== undefined) {
      const body = await readBody(req);
      if (body === undefined) {
        ctx.record({ ...unknown, status: 413 });
        return send(
          res,
          413,
          { 'content-type': 'application/json' },
          errorBody('request_too_large', 'Request too large.'),
        );
      }
      return passThrough(req, res, body, ctx, unknown, signal);
    }
    ctx.record({ ...unknown, status: 404 });
    return send(
      res,
      404,
      { 'content-type': 'application/json' },
      notFoundBody(req.method ?? 'GET', path),
    );
  }

  const wire = route.wire;
  const fail = (status: number, message: string, headers: Record<string, string> = {}) => {
    ctx.record({ ...unknown, api: wire.api, status });
    const answer = wire.error(status, message, id, { headers });
    send(res, answer.status, answer.headers, answer.body);
  };
  if (req.method !== 'POST')
    return fail(405, `${req.method} is not allowed on ${path}; use POST.`, { allow: 'POST' });
  const raw = await readBody(req);
  if (raw === undefined)
    return fail(413, `The request body is larger than ${MAX_BODY_BYTES} bytes.`);
  const parsed = wire.parse(route.endpoint, raw.toString('utf8'));
  if (typeof parsed === 'string') return fail(400, parsed);
  // The model's context window is checked like the rest of the request: before any fault or limit.
  const window = contextWindow(ctx.answers, parsed.model);
  if (window !== undefined && route.endpoint !== 'count_tokens' && parsed.inputTokens > window) {
    ctx.record({
      ...unknown,
      api: wire.api,
      model: parsed.model,
      stream: parsed.stream,
      status: 400,
    });
    const answer = wire.contextOverflow(route.endpoint, parsed.inputTokens, window, id);
    return send(res, answer.status, answer.headers, answer.body);
  }

  const forcedName = req.headers['x-chaos-rule'];
  let forced: number | undefined;
  if (typeof forcedName === 'string') {
    forced = ctx.book.find(forcedName);
    if (forced === undefined)
      return fail(400, `x-chaos-rule: the scenario has no rule named or numbered "${forcedName}".`);
  }
  const target = { api: wire.api, path, model: parsed.model };
  const reply = cannedReply(parsed, ctx.answers, ctx.seed);
  const base0: ChaosRequestRecord = {
    ...unknown,
    api: wire.api,
    model: parsed.model,
    stream: parsed.stream,
    prefill: reply.prefill,
  };

  // The provider's gate comes before any fault: a refused request spends no rule's `times`.
  let limitHeaders: Record<string, string> = {};
  // The output tokens the answer really generated, counted against the output limits when the
  // response ends (until then its whole reservation is).
  let countOutput: (tokens: number) => void = () => {};
  if (ctx.limits !== undefined && route.endpoint !== 'count_tokens') {
    const reserved = parsed.maxOutputTokens ?? reply.outputTokens;
    const admission = ctx.limits.admit(`${wire.api}\n${parsed.model}`, {
      input: parsed.inputTokens,
      output: reserved,
    });
    limitHeaders = wire.rateLimitHeaders(admission.snapshot, ctx.wallNow());
    if (!admission.ok) {
      ctx.record({ ...base0, status: 429, rateLimit: admission.limit });
      const answer = rateLimitedAnswer(wire, admission, parsed.model, id, limitHeaders);
      return send(res, answer.status, answer.headers, answer.body);
    }
    let generated = 0;
    countOutput = (tokens) => {
      generated = tokens;
    };
    // 'finish' as soon as the last byte is handed over, 'close' when the client left early.
    res.once('finish', () => admission.settle(generated));
    res.once('close', () => admission.settle(generated));
    // A proxied answer's tokens are not counted here: it keeps its whole reservation.
    if (ctx.upstream !== undefined) countOutput(reserved);
  }

  const selected = ctx.book.select(target, forced);
  const fault = selected?.fault;
  const base: ChaosRequestRecord = {
    ...base0,
    fault: fault?.kind ?? null,
    rule: selected?.rule ?? null,
  };
  const call: Call = { req, res, ctx, wire, id, signal, base, limitHeaders, random };

  // A reset with afterEvents cuts a streamed answer mid-way (writeStream); otherwise no answer at all.
  if (fault?.kind === 'reset' && (fault.afterEvents === undefined || !parsed.stream)) {
    ctx.record(base);
    req.socket.destroy();
    return;
  }
  let afterHeadersMs = 0;
  if (fault?.kind === 'latency') {
    const ms = sample(fault.ms, random);
    if (fault.headersFirst === true) afterHeadersMs = ms;
    else if (!(await pause(ctx.clock, ms, signal))) return ctx.record(base);
  }
  if (fault?.kind === 'status') return statusFault(call, fault, selected?.rule ?? 0);
  if (fault?.kind === 'stream-error' && !parsed.stream) {
    // No stream to carry it: the same error comes as the HTTP error it stands for.
    const type = fault.errorType ?? wire.defaultStreamErrorType;
    const status = statusOfErrorType(type);
    ctx.record({ ...base, status });
    const answer = wire.error(status, messageOfErrorType(type), id, {
      headers: limitHeaders,
      type,
    });
    return send(res, answer.status, answer.headers, answer.body);
  }
  if (ctx.upstream !== undefined && fault?.kind !== 'empty' && fault?.kind !== 'malformed') {
    return proxied(call, raw, fault, afterHeadersMs);
  }
  const answer = fault?.kind === 'empty' ? cannedReply(parsed, ctx.answers, ctx.seed, true) : reply;
  countOutput(answer.outputTokens);
  return answerLocally(call, parsed, answer, fault, afterHeadersMs);
}

function statusFault(
  call: Call,
  fault: Extract<Fault, { kind: 'status' }>,
  rule: number,
): Promise<void> | void {
  const { req, res, ctx, wire, id, signal, base } = call;
  ctx.record({ ...base, status: fault.status });
  if (fault.status < 200) {
    // An informational status cannot end a response: send it, then nothing (a stall after it).
    req.socket.write(
      `HTTP/1.1 ${fault.status} ${STATUS_CODES[fault.status] ?? 'Informational'}\r\n\r\n`,
    );
    return waitForAbort(signal);
  }
  const headers: Record<string, string> = { ...call.limitHeaders };
  if (fault.retryAfterS !== undefined) headers['retry-after'] = String(fault.retryAfterS);
  if (fault.retryAfterMs !== undefined) headers['retry-after-ms'] = String(fault.retryAfterMs);
  const answer = wire.error(fault.status, statusMessage(fault.status, rule), id, { headers });
  send(res, answer.status, answer.headers, answer.body);
}

async function answerLocally(
  call: Call,
  parsed: ParsedRequest,
  reply: CannedReply,
  fault: Fault | undefined,
  afterHeadersMs: number,
): Promise<void> {
  const { res, ctx, wire, id, signal, base } = call;
  const usage =
    parsed.endpoint === 'count_tokens'
      ? null
      : { input: parsed.inputTokens, output: reply.outputTokens };
  ctx.record({ ...base, status: 200, usage });
  const gaps = ctx.pacer.gapsFor(
    { api: wire.api, path: base.path, model: parsed.model },
    call.random,
  );
  const plan: WritePlan = {
    ...planOf(call, fault, afterHeadersMs),
    ...(gaps === undefined ? {} : { gap: gaps }),
  };
  if (parsed.stream) {
    const frames = wire.frames(parsed, reply, id);
    const head = { status: 200, headers: { ...wire.streamHeaders(id), ...call.limitHeaders } };
    return writeStream(
      res,
      head,
      fault?.kind === 'malformed' ? malformFrames(frames) : frames,
      wire,
      plan,
    );
  }
  const answer = wire.json(parsed, reply, id);
  // A JSON answer arrives once the whole paced stream would have been generated.
  if (gaps !== undefined) {
    let total = 0;
    for (let n = 0; n < wire.frames(parsed, reply, id).length; n++) total += gaps(n);
    if (!(await pause(ctx.clock, total, signal))) return;
  }
  const body = fault?.kind === 'malformed' ? malformJson(answer.body) : answer.body;
  return writeJson(
    res,
    { status: answer.status, headers: { ...answer.headers, ...call.limitHeaders } },
    body,
    plan,
  );
}

/** How an answer is written: its fault, with the fault's event count drawn, on the server's clock. */
function planOf(call: Call, fault: Fault | undefined, afterHeadersMs: number): WritePlan {
  const plan: { -readonly [K in keyof WritePlan]: WritePlan[K] } = {
    fault,
    clock: call.ctx.clock,
    signal: call.signal,
    afterHeadersMs,
  };
  if (fault !== undefined && 'afterEvents' in fault && fault.afterEvents !== undefined) {
    plan.afterEvents = Math.floor(sample(fault.afterEvents, call.random));
  }
  if (fault?.kind === 'stream-error') {
    const type = fault.errorType ?? call.wire.defaultStreamErrorType;
    plan.errorFrame = (sent) => call.wire.streamError(type, messageOfErrorType(type), sent);
  }
  return plan;
}

async function proxied(
  call: Call,
  body: Buffer,
  fault: Fault | undefined,
  afterHeadersMs: number,
): Promise<void> {
  const { req, res, ctx, wire, id, signal, base } = call;
  const upstream = ctx.upstream!;
  let up: IncomingMessage;
  try {
    up = await forward({
      upstream,
      method: 'POST',
      url: req.url ?? '/',
      headers: req.headers,
      body,
      signal,
    });
  } catch (error) {
    if (signal.aborted) return ctx.record(base);
    ctx.record({ ...base, status: 502 });
    const answer = wire.error(
      502,
      `The upstream ${upstream.origin} could not be reached: ${errorText(error)}`,
      id,
      {
        headers: call.limitHeaders,
      },
    );
    return send(res, answer.status, answer.headers, answer.body);
  }
  const status = up.statusCode ?? 502;
  ctx.record({ ...base, status });
  const encoding = up.headers['content-encoding'];
  // Error answers and bodies we cannot read frame by frame go back untouched.
  if (status < 200 || status >= 300 || (encoding !== undefined && encoding !== 'identity')) {
    return pipeBack(up, res, status, call.limitHeaders);
  }
  const headers = { ...upstreamHeaders(up, false), ...call.limitHeaders };
  const plan = planOf(call, fault, afterHeadersMs);
  if ((up.headers['content-type'] ?? '').startsWith('text/event-stream')) {
    return writeStream(res, { status, headers }, sseFrames(up), wire, plan);
  }
  return writeJson(res, { status, headers }, await readText(up), plan);
}

async function passThrough(
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
  ctx: HandlerContext,
  entry: ChaosRequestRecord,
  signal: AbortSignal,
): Promise<void> {
  const upstream = ctx.upstream!;
  let up: IncomingMessage;
  try {
    up = await forward({
      upstream,
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      headers: req.headers,
      body,
      signal,
    });
  } catch (error) {
    if (signal.aborted) return ctx.record(entry);
    ctx.record({ ...entry, status: 502 });
    return send(
      res,
      502,
      { 'content-type': 'application/json' },
      errorBody('api_error', `upstream unreachable: ${errorText(error)}`),
    );
  }
  ctx.record({ ...entry, status: up.statusCode ?? 502 });
  return pipeBack(up, res, up.statusCode ?? 502, {});
}

async function pipeBack(
  up: IncomingMessage,
  res: ServerResponse,
  status: number,
  extra: Record<string, string>,
): Promise<void> {
  res.writeHead(status, { ...upstreamHeaders(up, true), ...extra });
  try {
    await pipeline(up, res);
  } catch {
    // The client or the upstream went away; both sides are destroyed by pipeline.
  }
}

/** Reads the whole body, or `undefined` when it is larger than the limit. */
async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** @internal Sends a complete answer with its length. */
export function send(
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: string,
): void {
  res.writeHead(status, { ...headers, 'content-length': String(Buffer.byteLength(body)) });
  res.end(body);
}

/** @internal One body every SDK can read: Anthropic looks at `error.type`, OpenAI at `error.message`. */
export function errorBody(type: string, message: string): string {
  return JSON.stringify({ type: 'error', error: { type, message, code: type } });
}

function notFoundBody(method: string, path: string): string {
  return errorBody(
    'not_found_error',
    `${method} ${path} is not served here; the chaos server answers POST ${Object.keys(ROUTES).join(', POST ')}.`,
  );
}

function statusMessage(status: number, rule: number): string {
  const reason = status === 529 ? 'Overloaded' : (STATUS_CODES[status] ?? `Status ${status}`);
  return `${reason} (injected by the recourse chaos server, rule ${rule})`;
}
