import { createHash } from 'node:crypto';
import { appendFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type Clock, systemClock } from '../clock/clock.js';
import {
  checkClock,
  checkFunction,
  checkInteger,
  checkOptions,
  checkString,
  type OptionKeys,
} from '../options/validate-options.js';
import { seededRandom } from '../random/seeded-random.js';
import type { CannedAnswers } from './canned-answers.js';
import { errorBody, type HandlerContext, handle, send } from './handle-request.js';
import { Pacer } from './pacing.js';
import { parseAnswers } from './parse-answers.js';
import { parseUpstream } from './proxy.js';
import { RateLimits } from './rate-limits.js';
import type { ChaosRequestRecord } from './request-log.js';
import { RequestLogFile } from './request-log.js';
import { RuleBook } from './rule-book.js';
import { parseScenario, type Scenario } from './scenario.js';

/**
 * Options of {@link startChaosServer}. Defaults: `port` 0 (any free port), `host` `127.0.0.1`
 * (never another interface unless asked), `scenario` none (a healthy server), no upstream (the
 * server answers itself), no log file, `clock` real time. `answers` override the scenario's
 * `answers` per model. `clock` drives every wait (latency, pacing, `slow`, keep-alive pings)
 * and the rate-limit buckets, so a `VirtualClock` runs a rate-limited or paced scenario on
 * virtual time; wall times (request log, `anthropic-ratelimit-*-reset`) then advance with it
 * from the real time at start.
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
  clock?: Clock;
}

const SERVER_KEYS: OptionKeys<ChaosServerOptions> = {
  port: true,
  host: true,
  scenario: true,
  upstream: true,
  log: true,
  answers: true,
  onRequest: true,
  clock: true,
};

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
  /**
   * Requests whose response is still open (a stalled or paced stream, a latency wait). It drops
   * as soon as the client closes the connection, so a test can check that an abandoned request
   * (a hedge's loser, a stall a watchdog caught) really let go of its socket.
   */
  readonly inFlight: number;
  close(): Promise<void>;
}

/**
 * Starts a local server that speaks the Anthropic Messages API (`POST /v1/messages`, JSON and
 * SSE, `POST /v1/messages/count_tokens`), OpenAI Chat Completions
 * (`POST /v1/chat/completions`) and the OpenAI Responses API (`POST /v1/responses`), JSON and
 * SSE, with deterministic canned answers (prefill continued exactly, `max_tokens` honoured,
 * thinking and tool calls when asked for), and injects the faults, rate limits and pacing of a
 * {@link Scenario}. With `upstream` it forwards requests there instead and applies the faults to
 * the real answers. Binds `127.0.0.1` unless `host` says otherwise.
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
  const o = checkOptions('startChaosServer', options, SERVER_KEYS);
  const port = o.port === undefined ? 0 : checkInteger('startChaosServer: port', o.port, 0, 65535);
  const host = o.host === undefined ? '127.0.0.1' : checkString('startChaosServer: host', o.host);
  if (o.onRequest !== undefined) checkFunction('startChaosServer: onRequest', o.onRequest);
  if (o.log !== undefined) checkString('startChaosServer: log', o.log);
  const scenario = parseScenario(options.scenario ?? {});
  const answers: CannedAnswers = {
    ...scenario.answers,
    ...(options.answers === undefined ? {} : parseAnswers(options.answers, 'answers')),
  };
  const clock =
    options.clock === undefined
      ? systemClock
      : checkClock<Clock>('startChaosServer: clock', options.clock);
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
  const startWall = Date.now();
  const startClock = clock.now();
  const context: HandlerContext = {
    book,
    answers,
    seed,
    upstream,
    clock,
    wallNow: options.clock === undefined ? Date.now : () => startWall + (clock.now() - startClock),
    limits:
      scenario.rateLimit === undefined ? undefined : new RateLimits(scenario.rateLimit, clock),
    pacer: new Pacer(scenario.pacing ?? []),
    record,
    nextRequest: () => {
      const id = idFor(seed, ++sequence);
      return { id, random: seededRandom(Number.parseInt(id.slice(0, 8), 16)) };
    },
  };

  const sockets = new Set<Socket>();
  let inFlight = 0;
  const server = createServer((req, res) => {
    inFlight++;
    res.once('close', () => inFlight--);
    handle(req, res, context).catch(() => {
      if (!res.headersSent)
        send(
          res,
          500,
          { 'content-type': 'application/json' },
          errorBody('api_error', 'chaos server error'),
        );
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
    get inFlight() {
      return inFlight;
    },
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

// Ids are derived from the seed and the request's position, so a replayed run answers with
// byte-identical bodies.
function idFor(seed: number, sequence: number): string {
  return createHash('sha256').update(`${seed}:${sequence}`).digest('hex').slice(0, 24);
}
