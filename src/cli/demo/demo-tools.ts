import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { exponential } from '../../backoff/exponential.js';
import type { ChaosMcpHttpServer } from '../../chaos/mcp/chaos-mcp-http.js';
import type { ChaosMcpStep } from '../../chaos/mcp/chaos-mcp-options.js';
import { classify } from '../../classify/classify.js';
import { dependencyOf } from '../../events/event-scope.js';
import { subscribe } from '../../events/subscribe.js';
import type { McpClient } from '../../mcp/mcp-client.js';
import { seededRandom } from '../../random/seeded-random.js';

/** The server's name: tool calls are named `tools/<tool>` in events, the log and the report. */
export const TOOL_SERVER = 'tools';
/** The flaky tool (`readOnlyHint`): transient JSON-RPC errors, retried. */
export const FLAKY_TOOL = 'read';
/** The tool that sometimes hangs (`readOnlyHint`; it sends progress, then answers, or goes silent). */
export const HANGING_TOOL = 'progress';

/** What one tool did over the run. */
export interface ToolTally {
  /** Calls the server saw (retries included). */
  calls: number;
  /** Transient errors the server injected. */
  errors: number;
  /** Hangs the server injected. */
  hangs: number;
  /** Retries the client made (`retry` events). */
  retries: number;
  /** Stalls the client caught (`stall` events: no result and no progress for idleMs). */
  stalls: number;
  /** `notifications/cancelled` the server received. */
  cancelled: number;
  /** Topics whose call of the tool was answered. */
  served: number;
  /** Topics that went on without the tool's result. */
  failed: number;
}

/** The demo's tools: a chaos MCP server over Streamable HTTP and an `mcpClient` of it. */
export interface DemoTools {
  /** The header line. */
  readonly details: string;
  readonly idleMs: number;
  /** Calls both tools for a topic at once; a tool that fails leaves its result out. */
  gather(topic: string): Promise<{ served: string[]; missing: Array<[string, string]> }>;
  tally(): Record<string, ToolTally>;
  /**
   * Resolves once the server has received a `notifications/cancelled` for every stall caught (each
   * travels as a request of its own, so a loaded machine may deliver it after the stall's error),
   * or after `limitMs` of real time (default 2,000), so the tally counts what was sent.
   */
  settled(limitMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Options of {@link startDemoTools}. */
export interface DemoToolsOptions {
  /** Seed of the tools' fault plan. Default 7. */
  seed?: number;
  /** The client's idle limit, ms. Default 300. */
  idleMs?: number;
  /** Sees a line for each retry and stall of a tool call. */
  onNote?: (text: string) => void;
}

/** A fault plan per tool, from the seed: a first fault of each kind, then random ones. */
function faultPlan(seed: number, calls: number): Record<string, ChaosMcpStep[]> {
  const random = seededRandom(seed ^ 0x7001);
  const hangRandom = seededRandom(seed ^ 0x7002);
  const read: ChaosMcpStep[] = ['error'];
  const progress: ChaosMcpStep[] = ['ok', 'hang'];
  // After an error the next two calls answer: a topic's retries (3 attempts) get through.
  for (let i = read.length; i < calls; i++)
    read.push(
      read[i - 1] !== 'error' && read[i - 2] !== 'error' && random() < 0.3 ? 'error' : 'ok',
    );
  for (let i = progress.length; i < calls; i++) progress.push(hangRandom() < 0.06 ? 'hang' : 'ok');
  return { [FLAKY_TOOL]: read, [HANGING_TOOL]: progress };
}

/**
 * Starts the demo's tools: a chaos MCP server on a free port (Streamable HTTP, the official SDK's
 * server classes) whose `read` tool fails now and then with a transient error and whose `progress`
 * tool (a progress notification, then its answer) now and then hangs; and an `mcpClient` of it
 * with a small idle limit, so a hang is a `StallError` after `idleMs`, the server is sent
 * `notifications/cancelled`, and both tools (`readOnlyHint`) are retried. Resolves undefined when
 * `@modelcontextprotocol/sdk` is not installed (the demo runs without tools).
 *
 * @example
 * const tools = await startDemoTools({ seed: 7, idleMs: 400 })
 * const { served, missing } = await tools!.gather('battery recycling')
 */
export async function startDemoTools(o: DemoToolsOptions = {}): Promise<DemoTools | undefined> {
  const idleMs = o.idleMs ?? 300;
  let sdk: [
    typeof import('@modelcontextprotocol/sdk/client/index.js'),
    typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ];
  try {
    sdk = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    ]);
  } catch {
    return undefined;
  }
  const [{ startChaosMcpServer }, { mcpClient }] = await Promise.all([
    import('../../chaos/mcp/chaos-mcp-http.js'),
    import('../../mcp/mcp-client.js'),
  ]);
  const [{ Client: SdkClient }, { StreamableHTTPClientTransport }] = sdk;
  const server: ChaosMcpHttpServer = await startChaosMcpServer({
    faults: faultPlan(o.seed ?? 7, 500),
    progress: { everyMs: 10, forMs: 15, after: 'answer' },
  });
  const clients: Client[] = [];
  const client: McpClient = mcpClient({
    name: TOOL_SERVER,
    connect: async () => {
      const c = new SdkClient({ name: 'recourse-demo', version: '1.0.0' });
      await c.connect(new StreamableHTTPClientTransport(new URL(server.url)));
      clients.push(c);
      return c;
    },
    idleMs,
    timeoutMs: 10_000,
    retry: {
      maxAttempts: 3,
      backoff: exponential({ baseMs: 20, maxMs: 100, jitter: 'full' }),
    },
    // A short cooldown: an unlucky run of faults must not shut the tools for the rest of the demo.
    breaker: { failureThreshold: 5, cooldownMs: 500 },
  });
  const tools = [FLAKY_TOOL, HANGING_TOOL];
  const counts = new Map<
    string,
    { retries: number; stalls: number; served: number; failed: number }
  >(tools.map((t) => [t, { retries: 0, stalls: 0, served: 0, failed: 0 }]));
  const prefix = `${TOOL_SERVER}/`;
  const stop = subscribe((e) => {
    const dep = dependencyOf(e);
    if (dep === undefined || !dep.startsWith(prefix)) return;
    const c = counts.get(dep.slice(prefix.length));
    if (c === undefined) return;
    if (e.type === 'retry') {
      c.retries++;
      o.onNote?.(
        `tool ${dep}: attempt ${e.attempt} failed (${classify(e.error).reason}), retried (readOnlyHint)`,
      );
    } else if (e.type === 'stall') {
      c.stalls++;
      o.onNote?.(
        `tool ${dep}: no result and no progress for ${idleMs} ms — stall caught, notifications/cancelled sent`,
      );
    }
  });
  const records = (tool: string, step: ChaosMcpStep) =>
    server.records.filter((r) => r.type === 'call' && r.tool === tool && r.step === step).length;
  return {
    details: `tools: a chaos MCP server (Streamable HTTP, ${server.url}) through mcpClient, idle limit ${idleMs} ms · ${FLAKY_TOOL}: about 20% transient errors (readOnlyHint: retried) · ${HANGING_TOOL}: 6% hang (stall caught, cancelled, retried)`,
    idleMs,
    async gather(topic) {
      const outcomes = await Promise.allSettled(
        tools.map((name) => client.callTool({ name, arguments: { topic } })),
      );
      const served: string[] = [];
      const missing: Array<[string, string]> = [];
      outcomes.forEach((r, i) => {
        const name = tools[i]!;
        const c = counts.get(name)!;
        if (r.status === 'fulfilled') {
          c.served++;
          served.push(name);
        } else {
          c.failed++;
          missing.push([name, classify(r.reason).reason]);
        }
      });
      return { served, missing };
    },
    tally() {
      const out: Record<string, ToolTally> = {};
      for (const name of tools) {
        const c = counts.get(name)!;
        out[name] = {
          calls: server.calls(name),
          errors: records(name, 'error'),
          hangs: records(name, 'hang'),
          retries: c.retries,
          stalls: c.stalls,
          cancelled: server.cancelled(name),
          served: c.served,
          failed: c.failed,
        };
      }
      return out;
    },
    async settled(limitMs = 2_000) {
      const end = Date.now() + limitMs;
      const pending = () => tools.some((name) => server.cancelled(name) < counts.get(name)!.stalls);
      while (pending() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    },
    async close() {
      stop();
      await client.close();
      await server.close();
    },
  };
}
