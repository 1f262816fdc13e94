import { showValue } from '../../options/validate-options.js';
import type { Readable, Writable } from 'node:stream';
import { ChaosMcpLog } from './chaos-mcp-log.js';
import { type ChaosMcpOptions, checkChaosMcpOptions } from './chaos-mcp-options.js';
import { chaosMcpServer, injectFaults } from './chaos-mcp-tools.js';
import { loadServerSdk } from './load-server-sdk.js';

/** Options of {@link serveChaosMcpStdio}. */
export interface ChaosMcpStdioOptions extends ChaosMcpOptions {
  /** Default `process.stdin`. */
  stdin?: Readable;
  /** Default `process.stdout`. */
  stdout?: Writable;
  /** How step `exit` ends the server. Default: `process.exit(1)`, a server process that dies mid-call. */
  exit?: () => void;
}

/** A chaos MCP server running over stdio. */
export interface ChaosMcpStdioServer {
  /** Calls of `tool` this server saw (with those already in its `log` from earlier processes). */
  calls(tool: string): number;
  /** `notifications/cancelled` this process received for calls of `tool`. */
  cancelled(tool: string): number;
  /** Resolves when the client closed the connection (stdin ended) or `close()` was called. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Serves the chaos MCP tools over stdio with the official SDK's `McpServer` and
 * `StdioServerTransport` (what `recourse chaos mcp --stdio` runs): an MCP client starts it as its
 * server process. Faults, progress and the log as in {@link ChaosMcpOptions}; step `exit` ends
 * the process (`process.exit(1)`) while the call runs.
 *
 * @example
 * // server.js, started by StdioClientTransport({ command: 'node', args: ['server.js'] })
 * await serveChaosMcpStdio({ faults: { read: ['error', 'exit'] }, log: 'mcp.jsonl' })
 */
export async function serveChaosMcpStdio(
  options?: ChaosMcpStdioOptions,
): Promise<ChaosMcpStdioServer> {
  const settings = checkChaosMcpOptions('serveChaosMcpStdio', options, ['stdin', 'stdout', 'exit']);
  if (options?.exit !== undefined && typeof options.exit !== 'function')
    throw new TypeError(`exit must be a function, got ${showValue(options.exit)}`);
  const exit = options?.exit ?? (() => process.exit(1));
  const sdk = await loadServerSdk();
  const log = new ChaosMcpLog(settings);
  const server = chaosMcpServer(sdk, settings, log);
  const transport = new sdk.StdioServerTransport(options?.stdin, options?.stdout);
  let onClosed = (): void => {};
  const closed = new Promise<void>((resolve) => (onClosed = resolve));
  await server.connect(transport);
  const stdin = options?.stdin ?? process.stdin;
  stdin.once('end', () => void server.close().finally(onClosed));
  server.server.onclose = onClosed;
  injectFaults(transport, log, exit);
  return {
    calls: (tool) => log.calls(tool),
    cancelled: (tool) => log.cancelled(tool),
    closed,
    close: async () => {
      await server.close();
      onClosed();
    },
  };
}
