import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type {
  CallToolResult,
  JSONRPCMessage,
  ToolAnnotations,
} from '@modelcontextprotocol/sdk/types.js';
import { packageVersion } from '../../cli/version.js';
import type { ChaosMcpLog } from './chaos-mcp-log.js';
import type { ChaosMcpSettings, ChaosMcpStep, ChaosMcpTool } from './chaos-mcp-options.js';
import type { ServerSdk } from './load-server-sdk.js';

interface ToolSpec {
  readonly description: string;
  readonly annotations?: ToolAnnotations;
  /** What a call does when the fault plan says nothing about it. */
  readonly step: ChaosMcpStep;
}

const READ_ONLY: ToolAnnotations = { readOnlyHint: true };

const TOOLS: Record<ChaosMcpTool, ToolSpec> = {
  read: { description: 'answers at once (read-only)', annotations: READ_ONLY, step: 'ok' },
  idempotent_write: {
    description: 'answers at once (idempotent write)',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    step: 'ok',
  },
  write: {
    description: 'answers at once (no annotations: destructive, not idempotent)',
    step: 'ok',
  },
  hang: { description: 'never answers (no annotations)', step: 'hang' },
  hang_read: { description: 'never answers (read-only)', annotations: READ_ONLY, step: 'hang' },
  progress: {
    description: 'sends progress notifications, then answers or goes silent (read-only)',
    annotations: READ_ONLY,
    step: 'ok',
  },
  is_error: {
    description: 'answers with an isError result (read-only)',
    annotations: READ_ONLY,
    step: 'is-error',
  },
  exit: { description: 'the server goes away while it runs (no annotations)', step: 'exit' },
};

const text = (t: string): CallToolResult => ({ content: [{ type: 'text', text: t }] });

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * @internal A new `McpServer` (the SDK's own class) with the chaos tools. The faults are not in
 * the handlers but in front of them ({@link injectFaults}): the handlers only give the normal
 * answers and the `progress` tool's notifications.
 */
export function chaosMcpServer(
  sdk: ServerSdk,
  settings: ChaosMcpSettings,
  log: ChaosMcpLog,
): McpServer {
  const server = new sdk.McpServer(
    { name: 'recourse-chaos-mcp', version: packageVersion() },
    { capabilities: { tools: {} } },
  );
  for (const [name, spec] of Object.entries(TOOLS) as Array<[ChaosMcpTool, ToolSpec]>) {
    server.registerTool(
      name,
      {
        description: spec.description,
        ...(spec.annotations ? { annotations: spec.annotations } : {}),
      },
      async (extra) => {
        if (name !== 'progress') return text(`${name} #${log.calls(name)}`);
        const { everyMs, forMs, after } = settings.progress;
        const token = extra._meta?.progressToken;
        const end = Date.now() + forMs;
        let sent = 0;
        for (;;) {
          const left = end - Date.now();
          if (left <= 0 || extra.signal.aborted) break;
          await sleep(Math.min(everyMs, left), extra.signal);
          if (Date.now() >= end || extra.signal.aborted || token === undefined) continue;
          sent++;
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: sent },
          });
        }
        if (after === 'hang') await sleep(2 ** 31 - 1, extra.signal);
        return text(`progress: ${sent} notification(s) in ${forMs} ms`);
      },
    );
  }
  return server;
}

/**
 * @internal Puts the fault plan in front of a connected server: every `tools/call` is counted
 * (the server saw it) and gets its step; a `notifications/cancelled` is recorded with the tool of
 * the call it cancels. `exit` is how this transport's server goes away.
 */
export function injectFaults(transport: Transport, log: ChaosMcpLog, exit: () => void): void {
  const deliver = transport.onmessage;
  const toolOf = new Map<string | number, string>();
  /** The calls sent to the handlers and not answered yet: their tool and `n`. */
  const open = new Map<string | number, { tool: string; n: number }>();
  const send = transport.send.bind(transport);
  // The answer of a call is recorded as it leaves: with its `call` record, the calls the server
  // held at once (start and end events, not timing).
  transport.send = (message, options) => {
    const id = (message as { id?: string | number; method?: string }).id;
    const call = id === undefined || 'method' in message ? undefined : open.get(id);
    if (call !== undefined && id !== undefined) {
      open.delete(id);
      log.add({ type: 'answered', tool: call.tool, n: call.n, at: Date.now(), pid: process.pid });
    }
    return send(message, options);
  };
  transport.onmessage = (message, extra) => {
    const m = message as {
      id?: string | number;
      method?: string;
      params?: Record<string, unknown>;
    };
    if (m.method === 'tools/call' && m.id !== undefined) {
      const tool = typeof m.params?.name === 'string' ? m.params.name : '';
      toolOf.set(m.id, tool);
      const step = log.call(tool, TOOLS[tool as ChaosMcpTool]?.step ?? 'ok');
      open.set(m.id, { tool, n: log.calls(tool) });
      const answer = (reply: JSONRPCMessage) => {
        transport.send(reply).catch(() => {});
      };
      switch (step) {
        case 'error':
          return answer({
            jsonrpc: '2.0',
            id: m.id,
            error: { code: -32603, message: `chaos: ${tool} failed (transient)` },
          });
        case 'is-error':
          return answer({
            jsonrpc: '2.0',
            id: m.id,
            result: {
              content: [{ type: 'text', text: `chaos: ${tool} reports an error` }],
              isError: true,
            },
          });
        case 'hang':
          return;
        case 'exit':
          return exit();
        case 'ok':
          break;
      }
    } else if (m.method === 'notifications/cancelled') {
      const id = m.params?.requestId as string | number | undefined;
      log.add({
        type: 'cancelled',
        tool: (id === undefined ? undefined : toolOf.get(id)) ?? '',
        reason: typeof m.params?.reason === 'string' ? m.params.reason : '',
        at: Date.now(),
        pid: process.pid,
      });
    }
    deliver?.(message, extra);
  };
}
