// Harnesses around the real chaos MCP server (the official SDK's McpServer): over stdio it is
// `recourse chaos mcp --stdio` started by the SDK's StdioClientTransport (a new process per
// connect), over Streamable HTTP it runs in this process. Both write their log file, which is
// what the tests count: the calls and cancellations the server actually saw, in every process.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type ChaosMcpHttpServer,
  type ChaosMcpProgress,
  type ChaosMcpRecord,
  type ChaosMcpStep,
  type ChaosMcpTool,
  readChaosMcpLog,
  startChaosMcpServer,
} from '../../src/chaos/index.js';
import { BIN } from '../helpers/run-bin.js';

export type Transport = 'stdio' | 'http';

export interface HarnessOptions {
  faults?: Partial<Record<ChaosMcpTool, ChaosMcpStep[]>>;
  progress?: ChaosMcpProgress;
}

/** A chaos MCP server and a `connect` for mcpClient that counts its calls. */
export interface Harness {
  readonly transport: Transport;
  connect: () => Promise<Client>;
  /** How many times `connect` was called. */
  connects: number;
  records(): ChaosMcpRecord[];
  calls(tool: string): number;
  cancelled(tool: string): number;
  /** Resolves once the server recorded a cancellation of `tool` (its log is the witness). */
  waitForCancelled(tool: string): Promise<void>;
  /** HTTP only: the in-process server. */
  http?: ChaosMcpHttpServer;
  close(): Promise<void>;
}

const newClient = () => new Client({ name: 'recourse-test', version: '1.0.0' });

export async function startHarness(
  transport: Transport,
  options: HarnessOptions = {},
): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'recourse-mcp-'));
  const log = join(dir, 'mcp.jsonl');
  const clients: Client[] = [];
  let http: ChaosMcpHttpServer | undefined;
  let open: () => Promise<Client>;
  if (transport === 'http') {
    const server = await startChaosMcpServer({ ...options, log });
    http = server;
    open = async () => {
      const client = newClient();
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
      return client;
    };
  } else {
    const args = [BIN, 'chaos', 'mcp', '--stdio', '--quiet', '--log', log];
    const plan = Object.entries(options.faults ?? {})
      .map(([tool, steps]) => `${tool}=${steps.join(',')}`)
      .join(';');
    if (plan !== '') args.push('--faults', plan);
    const p = options.progress;
    if (p?.everyMs !== undefined) args.push('--progress-every', String(p.everyMs));
    if (p?.forMs !== undefined) args.push('--progress-for', String(p.forMs));
    if (p?.after !== undefined) args.push('--progress-after', p.after);
    open = async () => {
      const client = newClient();
      await client.connect(
        new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' }),
      );
      return client;
    };
  }
  const records = () => readChaosMcpLog(log);
  const harness: Harness = {
    transport,
    connects: 0,
    connect: async () => {
      harness.connects++;
      const client = await open();
      clients.push(client);
      return client;
    },
    records,
    calls: (tool) => records().filter((r) => r.type === 'call' && r.tool === tool).length,
    cancelled: (tool) => records().filter((r) => r.type === 'cancelled' && r.tool === tool).length,
    waitForCancelled: async (tool) => {
      const deadline = Date.now() + 20_000;
      while (harness.cancelled(tool) === 0) {
        if (Date.now() > deadline)
          throw new Error(`the server never recorded a cancellation of ${tool}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    ...(http === undefined ? {} : { http }),
    close: async () => {
      // Every client this harness made (stdio: its server process) is closed, whoever held it.
      await Promise.allSettled(clients.map((c) => c.close()));
      await http?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return harness;
}
