// mcpClient's limits in the shapes that take its cheaper paths (watched-request.ts): a total cap
// no longer than the idle limit (the SDK's own timer, no progress token), a caller's signal
// without an idle limit, and limits beyond a platform timer. Against the real chaos MCP server
// over Streamable HTTP; what the server saw comes from its log.
import { afterEach, describe, expect, it } from 'vitest';
import { isTimeoutError } from '../../src/errors/timeout-error.js';
import { type McpClient, type McpClientOptions, mcpClient } from '../../src/mcp/index.js';
import { type Harness, type HarnessOptions, startHarness } from './helpers.js';

let harness: Harness | undefined;
let client: McpClient | undefined;
afterEach(async () => {
  await client?.close();
  await harness?.close();
  client = undefined;
  harness = undefined;
});

async function setUp(
  server: HarnessOptions,
  options: Omit<McpClientOptions, 'name' | 'connect'>,
): Promise<{ h: Harness; mcp: McpClient }> {
  harness = await startHarness('http', server);
  const h = harness;
  client = mcpClient({ name: 'chaos', connect: h.connect, retry: false, ...options });
  return { h, mcp: client };
}

const textOf = (r: { content: unknown }) =>
  (r.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('');

describe('mcpClient limits', () => {
  it('idleMs: Infinity: a tool that never answers is a TimeoutError after timeoutMs, the server receives notifications/cancelled, the next call succeeds', async () => {
    const { h, mcp } = await setUp({}, { idleMs: Number.POSITIVE_INFINITY, timeoutMs: 1_000 });
    const error = await mcp.callTool({ name: 'hang' }).catch((e: unknown) => e);
    expect(isTimeoutError(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /hang on chaos: no result within 1000 ms.*outcome unknown/,
    );
    await h.waitForCancelled('hang');
    expect(h.calls('hang')).toBe(1);
    expect(textOf(await mcp.callTool({ name: 'read' }))).toBe('read #1');
  });

  it('without an idle limit no progress is asked for; with one the same tool reports it', async () => {
    const progress = { everyMs: 100, forMs: 600 };
    const { mcp } = await setUp({ progress }, { idleMs: Number.POSITIVE_INFINITY });
    expect(textOf(await mcp.callTool({ name: 'progress' }))).toBe(
      'progress: 0 notification(s) in 600 ms',
    );
    const watched = mcpClient({
      name: 'watched',
      connect: harness!.connect,
      idleMs: 5_000,
      retry: false,
    });
    try {
      expect(textOf(await watched.callTool({ name: 'progress' }))).toMatch(
        /^progress: [1-9]\d* notification\(s\) in 600 ms$/,
      );
    } finally {
      await watched.close();
    }
  });

  it('an idle limit longer than timeoutMs: progress does not extend the total cap (TimeoutError, cancelled)', async () => {
    const { h, mcp } = await setUp(
      { progress: { everyMs: 100, forMs: 20_000 } },
      { idleMs: 10_000, timeoutMs: 1_000 },
    );
    const error = await mcp.callTool({ name: 'progress' }).catch((e: unknown) => e);
    expect(isTimeoutError(error)).toBe(true);
    expect((error as Error).message).toMatch(/progress on chaos: no result within 1000 ms/);
    await h.waitForCancelled('progress');
  });

  it('a caller abort without an idle limit: rejects with the reason, the server receives notifications/cancelled', async () => {
    const { h, mcp } = await setUp({}, { idleMs: Number.POSITIVE_INFINITY });
    const controller = new AbortController();
    const pending = mcp.callTool({ name: 'hang_read' }, { signal: controller.signal });
    while (h.calls('hang_read') === 0) await new Promise((r) => setTimeout(r, 10));
    const reason = new Error('user pressed stop');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await h.waitForCancelled('hang_read');
  });

  it('limits beyond a platform timer (2^31 - 1 ms): calls succeed, progress is asked for, a caller abort still cancels', async () => {
    const { h, mcp } = await setUp(
      { progress: { everyMs: 100, forMs: 500 } },
      { idleMs: 3e9, timeoutMs: 4e9 },
    );
    expect(textOf(await mcp.callTool({ name: 'read' }))).toBe('read #1');
    expect(textOf(await mcp.callTool({ name: 'progress' }))).toMatch(
      /^progress: [1-9]\d* notification\(s\) in 500 ms$/,
    );
    const controller = new AbortController();
    const pending = mcp.callTool({ name: 'hang_read' }, { signal: controller.signal });
    while (h.calls('hang_read') === 0) await new Promise((r) => setTimeout(r, 10));
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await h.waitForCancelled('hang_read');
  });
});
