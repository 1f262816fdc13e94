import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { checkInteger, checkString } from '../../options/validate-options.js';
import { ChaosMcpLog } from './chaos-mcp-log.js';
import {
  type ChaosMcpOptions,
  type ChaosMcpRecord,
  checkChaosMcpOptions,
  checkForgetAfter,
} from './chaos-mcp-options.js';
import { chaosMcpServer, injectFaults } from './chaos-mcp-tools.js';
import { loadServerSdk } from './load-server-sdk.js';

/** Options of {@link startChaosMcpServer}. */
export interface ChaosMcpHttpOptions extends ChaosMcpOptions {
  /** Default 0: any free port. */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
  /**
   * Forget a session once it has sent this many tool calls: its next request gets HTTP 404, as
   * from a server that restarted or expired it. Default: never (see also `forgetSessions()`).
   */
  forgetSessionsAfter?: number;
}

/** A chaos MCP server listening for Streamable HTTP at `url`. */
export interface ChaosMcpHttpServer {
  /** `http://HOST:PORT/mcp`. */
  readonly url: string;
  /** Everything it saw, in order. */
  readonly records: readonly ChaosMcpRecord[];
  /** Calls of `tool` it saw (requests answered 404 for a forgotten session never reach a tool). */
  calls(tool: string): number;
  /** `notifications/cancelled` received for calls of `tool`. */
  cancelled(tool: string): number;
  /** Forgets every session now: each one's next request gets HTTP 404. */
  forgetSessions(): void;
  close(): Promise<void>;
}

interface Session {
  readonly server: McpServer;
  readonly transport: StreamableHTTPServerTransport;
  toolCalls: number;
}

const MCP_PATH = '/mcp';

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', reject);
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(raw === '' ? undefined : JSON.parse(raw));
      } catch {
        resolve(Symbol.for('invalid'));
      }
    });
  });
}

function jsonError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

const toolCallsIn = (body: unknown): number =>
  (Array.isArray(body) ? body : [body]).filter(
    (m) => (m as { method?: unknown } | null)?.method === 'tools/call',
  ).length;

const isInitialize = (body: unknown): boolean =>
  (Array.isArray(body) ? body : [body]).some(
    (m) => (m as { method?: unknown } | null)?.method === 'initialize',
  );

/**
 * Starts a chaos MCP server over Streamable HTTP, built with the official SDK's `McpServer` and
 * `StreamableHTTPServerTransport` (one of each per session). Faults, progress and the log as in
 * {@link ChaosMcpOptions}; step `exit` resets every connection and forgets every session (a
 * server that crashed and came back); a forgotten session's requests get HTTP 404 (with
 * `forgetSessionsAfter`, or `forgetSessions()`), which a client must answer by initialising again.
 *
 * @example
 * const chaos = await startChaosMcpServer({ faults: { read: ['error'] } })
 * const transport = new StreamableHTTPClientTransport(new URL(chaos.url))
 */
export async function startChaosMcpServer(
  options?: ChaosMcpHttpOptions,
): Promise<ChaosMcpHttpServer> {
  const settings = checkChaosMcpOptions('startChaosMcpServer', options, [
    'port',
    'host',
    'forgetSessionsAfter',
  ]);
  const forgetAfter = checkForgetAfter(options?.forgetSessionsAfter);
  const port = options?.port === undefined ? 0 : checkInteger('port', options.port, 0, 65_535);
  const bindHost = options?.host === undefined ? '127.0.0.1' : checkString('host', options.host);
  const sdk = await loadServerSdk();
  const log = new ChaosMcpLog(settings);
  const sessions = new Map<string, Session>();

  const forget = (id: string): void => {
    const session = sessions.get(id);
    if (session === undefined) return;
    sessions.delete(id);
    log.add({ type: 'session_forgotten', session: id, at: Date.now(), pid: process.pid });
    // The client is not told: it finds out from the 404 on its next request.
    void session.server.close().catch(() => {});
  };
  const forgetAll = (): void => {
    for (const id of [...sessions.keys()]) forget(id);
  };

  const http = createServer((req, res) => {
    void serve(req, res).catch((error: unknown) => {
      if (!res.headersSent) jsonError(res, 500, -32603, String(error));
      else res.destroy();
    });
  });

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (new URL(req.url ?? '/', 'http://x').pathname !== MCP_PATH)
      return jsonError(res, 404, -32601, `not found: use ${MCP_PATH}`);
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    const id = req.headers['mcp-session-id'];
    const sessionId = typeof id === 'string' ? id : undefined;
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      if (session === undefined) return jsonError(res, 404, -32001, 'Session not found');
      const calls = toolCallsIn(body);
      if (forgetAfter !== undefined && calls > 0 && session.toolCalls >= forgetAfter) {
        forget(sessionId);
        return jsonError(res, 404, -32001, 'Session not found');
      }
      session.toolCalls += calls;
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST' || !isInitialize(body))
      return jsonError(res, 400, -32000, 'Bad Request: no valid session id');
    const server = chaosMcpServer(sdk, settings, log);
    const transport: StreamableHTTPServerTransport = new sdk.StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => {
        sessions.set(sid, { server, transport, toolCalls: 0 });
      },
    });
    await server.connect(transport);
    injectFaults(transport, log, () => {
      // A crash: every connection reset at once, and the restarted server knows no session.
      forgetAll();
      http.closeAllConnections();
    });
    await transport.handleRequest(req, res, body);
  }

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, bindHost, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const address = http.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}${MCP_PATH}`,
    records: log.records,
    calls: (tool) => log.calls(tool),
    cancelled: (tool) => log.cancelled(tool),
    forgetSessions: forgetAll,
    close: async () => {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled(open.map((s) => s.server.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
