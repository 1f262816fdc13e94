import { createHash } from 'node:crypto';
import { appendFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, STATUS_CODES, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { anthropicWire } from './anthropic-wire.js';
import type { ApiWire, ChaosEndpoint, ParsedRequest } from './api-wire.js';
import { type CannedAnswers, cannedReply } from './canned-answers.js';
import { malformFrames, malformJson, sleep, waitForAbort, writeJson, writeStream } from './faults.js';
import { openaiWire } from './openai-wire.js';
import { forward, parseUpstream, readText, sseFrames, upstreamHeaders } from './proxy.js';
import type { ChaosRequestRecord } from './request-log.js';
import { RequestLogFile } from './request-log.js';
import { RuleBook } from './rule-book.js';
import { type Fault, parseScenario, type Scenario } from './scenario.js';

/**
 * Options of {@link startChaosServer}. Defaults: `port` 0 (any free port), `host` `127.0.0.1`
 * (never another interface unless asked), `scenario` none (a healthy server), no upstream (the
 * server answers itself), no log file. `answers` override the scenario's `answers` per model.
 *
 * @example
 * const options: ChaosServerOptions = { port: 8787, scenario: await loadScenario('chaos.json'), log: 'chaos.jsonl' }
 */
export interface ChaosServerOptions {
  port?: number;
  host?: string;
  scenario?: Scenario;
  /** Forward requests to this base URL (e.g. `https://api.anthropic.com`) after the faults are decided. */
  upstream?: string;
  /** Append one JSON line per request to this file. */
  log?: string;
  answers?: CannedAnswers;
  /** Called with each record as it is added to `requests`; an exception it throws is ignored. */
  onRequest?: (record: ChaosRequestRecord) => void;
}

/**
 * A running chaos server. `requests` grows as requests come in (clear it with
 * `requests.length = 0`); `close()` destroys open connections, so a stalled stream never keeps
 * the process alive, and resolves once the server is closed and the log file written.
 *
 * @example
 * const chaos = await startChaosServer()
 * try { await fetch(`${chaos.url}/v1/messages`, { method: 'POST', body: '{}' }) } finally { await chaos.close() }
 */
export interface ChaosServer {
  /** `http://127.0.0.1:PORT`: the base URL to give an SDK (OpenAI clients: append `/v1`). */
  readonly url: string;
  readonly port: number;
  /** The underlying `node:http` server. */
  readonly server: Server;
  readonly requests: ChaosRequestRecord[];
  close(): Promise<void>;
}

interface Route {
  readonly wire: ApiWire;
  readonly endpoint: ChaosEndpoint;
}

const ROUTES: Readonly<Record<string, Route>> = {
  '/v1/messages': { wire: anthropicWire, endpoint: 'messages' },
  '/v1/messages/count_tokens': { wire: anthropicWire, endpoint: 'count_tokens' },
  '/v1/chat/completions': { wire: openaiWire, endpoint: 'chat_completions' },
};

const MAX_BODY_BYTES = 32 * 1024 * 1024;

/**
 * Starts a local server that speaks the Anthropic Messages API (`POST /v1/messages`, JSON and
 * SSE, `POST /v1/messages/count_tokens`) and OpenAI Chat Completions
 * (`POST /v1/chat/completions`, JSON and SSE) with deterministic canned answers, and injects the
 * faults of a {@link Scenario}. With `upstream` it forwards requests there instead and applies
 * the faults to the real answers. Binds `127.0.0.1` unless `host` says otherwise.
 *
 * @example
 * const chaos = await startChaosServer({
 *   scenario: { seed: 1, rules: [{ match: { model: 'claude-*' }, fault: { kind: 'status', status: 529 }, times: 1 }] },
 * })
 * const client = new Anthropic({ baseURL: chaos.url, apiKey: 'test', maxRetries: 0 })
 * // the first call gets a 529, the next ones a canned answer
 * await chaos.close()
 */
export async function startChaosServer(options: ChaosServerOptions = {}): Promise<ChaosServer> {
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new RangeError(`port must be an integer 0-65535, got ${JSON.stringify(port)}`);
  }
  const host = options.host ?? '127.0.0.1';
  const scenario = parseScenario(options.scenario ?? {});
  const answers: CannedAnswers = {
    ...scenario.answers,
    ...(options.answers === undefined ? {} : parseScenario({ answers: options.answers }).answers),
  };
  const upstream = options.upstream === undefined ? undefined : parseUpstream(options.upstream);
  let logFile: RequestLogFile | undefined;
  if (options.log !== undefined) {
    // Fail now, not on the first request, when the log cannot be written.
    await appendFile(options.log, '');
    logFile = new RequestLogFile(options.log);
  }

  const book = new RuleBook(scenario);
  const requests: ChaosRequestRecord[] = [];
  const seed = scenario.seed ?? 0;
  let sequence = 0;
  const record = (entry: ChaosRequestRecord): void => {
    requests.push(entry);
    logFile?.append(entry);
    try {
      options.onRequest?.(entry);
    } catch {
      // A logging callback must not turn into a fault nobody asked for.
    }
  };
  const context: HandlerContext = { book, answers, upstream, record, nextId: () => idFor(seed, ++sequence) };

  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    handle(req, res, context).catch(() => {
      if (!res.headersSent) send(res, 500, { 'content-type': 'application/json' }, errorBody('api_error', 'chaos server error'));
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.address.includes(':') ? `[${address.address}]` : address.address;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${address.port}`,
    port: address.port,
    server,
    requests,
    close() {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const socket of sockets) socket.destroy();
        await closed;
        await logFile?.flush();
      })();
      return closing;
    },
  };
}

interface HandlerContext {
  readonly book: RuleBook;
  readonly answers: CannedAnswers;
  readonly upstream: URL | undefined;
  readonly record: (entry: ChaosRequestRecord) => void;
  readonly nextId: () => string;
}

async function handle(req: IncomingMessage, res: ServerResponse, ctx: HandlerContext): Promise<void> {
  const at = Date.now();
  const id = ctx.nextId();
  const controller = new AbortController();
  const signal = controller.signal;
  res.on('close', () => controller.abort());
  // Writes to a connection the client already dropped are expected here, not errors.
  res.on('error', () => {});
  const path = (req.url ?? '/').split('?')[0] || '/';
  const route = ROUTES[path.length > 1 ? path.replace(/\/+$/, '') : path];
  const unknown: ChaosRequestRecord = { api: null, path, model: null, stream: false, fault: null, rule: null, status: null, at };

  if (route === undefined) {
    if (ctx.upstream !== undefined) {
      const body = await readBody(req);
      if (body === undefined) {
        ctx.record({ ...unknown, status: 413 });
        return send(res, 413, { 'content-type': 'application/json' }, errorBody('request_too_large', 'Request too large.'));
      }
      return passThrough(req, res, body, ctx, unknown, signal);
    }
    ctx.record({ ...unknown, status: 404 });
    return send(res, 404, { 'content-type': 'application/json' }, notFoundBody(req.method ?? 'GET', path));
  }

  const wire = route.wire;
  const fail = (status: number, message: string, headers: Record<string, string> = {}) => {
    ctx.record({ ...unknown, api: wire.api, status });
    const answer = wire.error(status, message, id, headers);
    send(res, answer.status, answer.headers, answer.body);
  };
  if (req.method !== 'POST') return fail(405, `${req.method} is not allowed on ${path}; use POST.`, { allow: 'POST' });
  const raw = await readBody(req);
  if (raw === undefined) return fail(413, `The request body is larger than ${MAX_BODY_BYTES} bytes.`);
  const parsed = wire.parse(route.endpoint, raw.toString('utf8'));
  if (typeof parsed === 'string') return fail(400, parsed);

  const forcedName = req.headers['x-chaos-rule'];
  let forced: number | undefined;
  if (typeof forcedName === 'string') {
    forced = ctx.book.find(forcedName);
    if (forced === undefined) return fail(400, `x-chaos-rule: the scenario has no rule named or numbered "${forcedName}".`);
  }
  const selected = ctx.book.select({ api: wire.api, path, model: parsed.model }, forced);
  const fault = selected?.fault;
  const base: ChaosRequestRecord = {
    api: wire.api,
    path,
    model: parsed.model,
    stream: parsed.stream,
    fault: fault?.kind ?? null,
    rule: selected?.rule ?? null,
    status: null,
    at,
  };

  if (fault?.kind === 'reset') {
    ctx.record(base);
    req.socket.destroy();
    return;
  }
  if (fault?.kind === 'latency' && !(await sleep(fault.ms, signal))) {
    ctx.record(base);
    return;
  }
  if (fault?.kind === 'status') {
    ctx.record({ ...base, status: fault.status });
    if (fault.status < 200) {
      // An informational status cannot end a response: send it, then nothing (a stall after it).
      req.socket.write(`HTTP/1.1 ${fault.status} ${STATUS_CODES[fault.status] ?? 'Informational'}\r\n\r\n`);
      return waitForAbort(signal);
    }
    const answer = wire.error(fault.status, statusMessage(fault.status, selected?.rule ?? 0), id, retryHeaders(fault));
    return send(res, answer.status, answer.headers, answer.body);
  }
  if (ctx.upstream !== undefined && fault?.kind !== 'empty' && fault?.kind !== 'malformed') {
    return proxied(req, res, raw, ctx, base, wire, fault, id, signal);
  }
  return answerLocally(res, parsed, ctx, base, wire, fault, id, signal);
}

async function answerLocally(
  res: ServerResponse,
  parsed: ParsedRequest,
  ctx: HandlerContext,
  base: ChaosRequestRecord,
  wire: ApiWire,
  fault: Fault | undefined,
  id: string,
  signal: AbortSignal,
): Promise<void> {
  const reply = cannedReply(parsed, ctx.answers, fault?.kind === 'empty');
  ctx.record({ ...base, status: 200 });
  if (parsed.stream) {
    const frames = wire.frames(parsed, reply, id);
    const head = { status: 200, headers: wire.streamHeaders(id) };
    return writeStream(res, head, fault?.kind === 'malformed' ? malformFrames(frames) : frames, fault, wire, signal);
  }
  const answer = wire.json(parsed, reply, id);
  const body = fault?.kind === 'malformed' ? malformJson(answer.body) : answer.body;
  return writeJson(res, answer, body, fault, signal);
}

async function proxied(
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
  ctx: HandlerContext,
  base: ChaosRequestRecord,
  wire: ApiWire,
  fault: Fault | undefined,
  id: string,
  signal: AbortSignal,
): Promise<void> {
  const upstream = ctx.upstream!;
  let up: IncomingMessage;
  try {
    up = await forward({ upstream, method: 'POST', url: req.url ?? '/', headers: req.headers, body, signal });
  } catch (error) {
    if (signal.aborted) return ctx.record(base);
    ctx.record({ ...base, status: 502 });
    const reason = error instanceof Error ? error.message : String(error);
    const answer = wire.error(502, `The upstream ${upstream.origin} could not be reached: ${reason}`, id);
    return send(res, answer.status, answer.headers, answer.body);
  }
  const status = up.statusCode ?? 502;
  ctx.record({ ...base, status });
  const encoding = up.headers['content-encoding'];
  // Error answers and bodies we cannot read frame by frame go back untouched.
  if (status < 200 || status >= 300 || (encoding !== undefined && encoding !== 'identity')) {
    return pipeBack(up, res, status);
  }
  const headers = upstreamHeaders(up, false);
  if ((up.headers['content-type'] ?? '').startsWith('text/event-stream')) {
    return writeStream(res, { status, headers }, sseFrames(up), fault, wire, signal);
  }
  return writeJson(res, { status, headers }, await readText(up), fault, signal);
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
    up = await forward({ upstream, method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body, signal });
  } catch (error) {
    if (signal.aborted) return ctx.record(entry);
    ctx.record({ ...entry, status: 502 });
    const reason = error instanceof Error ? error.message : String(error);
    return send(res, 502, { 'content-type': 'application/json' }, errorBody('api_error', `upstream unreachable: ${reason}`));
  }
  ctx.record({ ...entry, status: up.statusCode ?? 502 });
  return pipeBack(up, res, up.statusCode ?? 502);
}

async function pipeBack(up: IncomingMessage, res: ServerResponse, status: number): Promise<void> {
  res.writeHead(status, upstreamHeaders(up, true));
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

function send(res: ServerResponse, status: number, headers: Record<string, string>, body: string): void {
  res.writeHead(status, { ...headers, 'content-length': String(Buffer.byteLength(body)) });
  res.end(body);
}

// One body both SDKs can read: Anthropic looks at `error.type`, OpenAI at `error.message`.
function errorBody(type: string, message: string): string {
  return JSON.stringify({ type: 'error', error: { type, message, code: type } });
}

function notFoundBody(method: string, path: string): string {
  return errorBody(
    'not_found_error',
    `${method} ${path} is not served here; the chaos server answers POST /v1/messages, POST /v1/messages/count_tokens and POST /v1/chat/completions.`,
  );
}

function statusMessage(status: number, rule: number): string {
  const reason = status === 529 ? 'Overloaded' : (STATUS_CODES[status] ?? `Status ${status}`);
  return `${reason} (injected by the recourse chaos server, rule ${rule})`;
}

function retryHeaders(fault: Extract<Fault, { kind: 'status' }>): Record<string, string> {
  const headers: Record<string, string> = {};
  if (fault.retryAfterS !== undefined) headers['retry-after'] = String(fault.retryAfterS);
  if (fault.retryAfterMs !== undefined) headers['retry-after-ms'] = String(fault.retryAfterMs);
  return headers;
}

// Ids are derived from the seed and the request's position, so a replayed run answers with
// byte-identical bodies.
function idFor(seed: number, sequence: number): string {
  return createHash('sha256').update(`${seed}:${sequence}`).digest('hex').slice(0, 24);
}
