// mcpClient against the real chaos MCP server, over stdio and over Streamable HTTP: what the
// caller gets, and what the server saw (calls and notifications/cancelled, from its log).
import { afterEach, describe, expect, it } from 'vitest';
import { constant } from '../../src/backoff/constant.js';
import { IdempotencyLedger } from '../../src/idempotency/idempotency-ledger.js';
import { isBulkheadRejectedError } from '../../src/errors/bulkhead-rejected-error.js';
import { isCircuitOpenError } from '../../src/errors/circuit-open-error.js';
import { isStallError } from '../../src/errors/stall-error.js';
import { isTimeoutError } from '../../src/errors/timeout-error.js';
import {
  isToolCallError,
  isToolOutcomeUnknownError,
  type McpClient,
  type McpClientOptions,
  mcpClient,
} from '../../src/mcp/index.js';
import { memoryStore } from '../../src/store/memory-store.js';
import { type Harness, type HarnessOptions, startHarness, type Transport } from './helpers.js';

const FAST_RETRY = { maxAttempts: 3, backoff: constant(20) };

let harness: Harness | undefined;
let client: McpClient | undefined;
afterEach(async () => {
  await client?.close();
  await harness?.close();
  client = undefined;
  harness = undefined;
});

async function setUp(
  transport: Transport,
  server: HarnessOptions = {},
  options: Omit<McpClientOptions, 'name' | 'connect'> = {},
): Promise<{ h: Harness; mcp: McpClient }> {
  harness = await startHarness(transport, server);
  const h = harness;
  client = mcpClient({ name: 'chaos', connect: h.connect, retry: FAST_RETRY, ...options });
  return { h, mcp: client };
}

const textOf = (r: { content: unknown }) =>
  (r.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('');

describe.each(['stdio', 'http'] as const)('mcpClient over %s', (transport) => {
  it('a tool that never answers: StallError, the server receives notifications/cancelled, the next call on the same client succeeds', async () => {
    const { h, mcp } = await setUp(transport, {}, { idleMs: 1_000 });
    const error = await mcp.callTool({ name: 'hang' }).catch((e: unknown) => e);
    expect(isStallError(error)).toBe(true);
    // No annotations, and the server had it: not retried, and the error says why.
    expect((error as Error).message).toMatch(/hang on chaos.*outcome unknown/);
    await h.waitForCancelled('hang');
    expect(h.calls('hang')).toBe(1);
    const next = await mcp.callTool({ name: 'read' });
    expect(textOf(next)).toBe('read #1');
    expect(h.connects).toBe(1);
  });

  it('progress every 300 ms for 2.5 s with idleMs 1 s succeeds; with timeoutMs 1.5 s it is a TimeoutError', async () => {
    const { h, mcp } = await setUp(
      transport,
      { progress: { everyMs: 300, forMs: 2_500 } },
      { idleMs: 1_000, retry: false },
    );
    const done = await mcp.callTool({ name: 'progress' });
    expect(textOf(done)).toMatch(/^progress: \d+ notification\(s\) in 2500 ms$/);

    // Connected before the client is made: connect() shares the 1.5 s limit, and spawning a stdio
    // server can take that long on a busy machine; the cap under test is the call's.
    const connected = await h.connect();
    const capped = mcpClient({
      name: 'capped',
      connect: () => Promise.resolve(connected),
      idleMs: 1_000,
      timeoutMs: 1_500,
      retry: false,
    });
    try {
      const error = await capped.callTool({ name: 'progress' }).catch((e: unknown) => e);
      expect(isTimeoutError(error)).toBe(true);
      expect((error as Error).message).toMatch(/progress on capped: no result within 1500 ms/);
      await h.waitForCancelled('progress');
    } finally {
      await capped.close();
    }
  });

  it('progress that stops: StallError after the notifications it saw', async () => {
    const { h, mcp } = await setUp(
      transport,
      { progress: { everyMs: 100, forMs: 500, after: 'hang' } },
      { idleMs: 1_000, retry: false },
    );
    const error = await mcp.callTool({ name: 'progress' }).catch((e: unknown) => e);
    expect(isStallError(error)).toBe(true);
    expect((error as { items: number }).items).toBeGreaterThan(0);
    await h.waitForCancelled('progress');
  });

  it('a readOnlyHint tool failing twice transiently (once by its server going away) succeeds on the 3rd attempt: the server saw 3 calls', async () => {
    const { h, mcp } = await setUp(transport, { faults: { read: ['error', 'exit'] } });
    const result = await mcp.callTool({ name: 'read' });
    expect(textOf(result)).toBe('read #3');
    expect(h.calls('read')).toBe(3);
    expect(
      h
        .records()
        .filter((r) => r.type === 'call')
        .map((r) => r.type === 'call' && r.step),
    ).toEqual(['error', 'exit', 'ok']);
    expect(h.connects).toBe(2); // a new client (stdio: a new server process) after the exit
  });

  it('a tool without annotations that stalls after the server received it is called exactly once', async () => {
    const { h, mcp } = await setUp(transport, { faults: { write: ['hang'] } }, { idleMs: 1_000 });
    const error = await mcp
      .callTool({ name: 'write', arguments: { path: 'a' } })
      .catch((e: unknown) => e);
    expect(isStallError(error)).toBe(true);
    expect((error as Error).message).toMatch(/outcome unknown/);
    await h.waitForCancelled('write');
    expect(h.calls('write')).toBe(1);
  });

  it('a tool without annotations that fails after sending is not retried: ToolOutcomeUnknownError', async () => {
    const { h, mcp } = await setUp(transport, { faults: { write: ['error'] } });
    const error = await mcp.callTool({ name: 'write' }).catch((e: unknown) => e);
    expect(isToolOutcomeUnknownError(error)).toBe(true);
    expect((error as Error).cause).toBeDefined();
    expect(h.calls('write')).toBe(1);
    const exited = await mcp.callTool({ name: 'exit' }).catch((e: unknown) => e);
    expect(isToolOutcomeUnknownError(exited)).toBe(true);
    expect(h.calls('exit')).toBe(1);
    // The client is usable after its server went away.
    expect(textOf(await mcp.callTool({ name: 'write' }))).toBe('write #2');
  });

  it('an idempotentHint tool is retried like a read-only one', async () => {
    const { h, mcp } = await setUp(transport, { faults: { idempotent_write: ['error'] } });
    expect(textOf(await mcp.callTool({ name: 'idempotent_write' }))).toBe('idempotent_write #2');
    expect(h.calls('idempotent_write')).toBe(2);
  });

  it('with a ledger and an idempotencyKey: a second call returns the first result without a request; a keyed unsafe tool is retried', async () => {
    const ledger = new IdempotencyLedger(memoryStore());
    const { h, mcp } = await setUp(transport, { faults: { write: ['error'] } }, { ledger });
    const first = await mcp.callTool({ name: 'write' }, { idempotencyKey: `send-${transport}` });
    expect(textOf(first)).toBe('write #2');
    expect(h.calls('write')).toBe(2);
    const second = await mcp.callTool({ name: 'write' }, { idempotencyKey: `send-${transport}` });
    expect(second).toEqual(first);
    expect(h.calls('write')).toBe(2);
  });

  it('5 isError results reject with ToolCallError, are not retried and leave the breaker closed', async () => {
    const { h, mcp } = await setUp(transport, {}, { breaker: { failureThreshold: 2 } });
    for (let i = 0; i < 5; i++) {
      const error = await mcp.callTool({ name: 'is_error' }).catch((e: unknown) => e);
      expect(isToolCallError(error)).toBe(true);
      expect(textOf((error as { result: { content: unknown } }).result)).toMatch(
        /reports an error/,
      );
    }
    expect(h.calls('is_error')).toBe(5);
    expect(mcp.breaker.state).toBe('closed');
  });

  it('the caller aborting cancels the call on the server too', async () => {
    const { h, mcp } = await setUp(transport);
    const controller = new AbortController();
    const pending = mcp.callTool({ name: 'hang_read' }, { signal: controller.signal });
    while (h.calls('hang_read') === 0) await new Promise((r) => setTimeout(r, 10));
    const reason = new Error('user pressed stop');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await h.waitForCancelled('hang_read');
    expect(h.calls('hang_read')).toBe(1);
  });

  it('bulkhead maxConcurrent 2: 6 concurrent calls of a slow tool all succeed, the server never holds more than 2 at once', async () => {
    const { h, mcp } = await setUp(
      transport,
      { progress: { everyMs: 100, forMs: 300 } },
      { bulkhead: { maxConcurrent: 2 } },
    );
    const results = await Promise.all(
      Array.from({ length: 6 }, () => mcp.callTool({ name: 'progress' })),
    );
    expect(results.map(textOf)).toEqual(
      Array.from({ length: 6 }, () => expect.stringMatching(/^progress: \d+ notification/)),
    );
    // The server's own start and end events, in the order it wrote them.
    const events = h.records().filter((r) => r.type === 'call' || r.type === 'answered');
    let held = 0;
    let most = 0;
    for (const r of events) {
      held += r.type === 'call' ? 1 : -1;
      most = Math.max(most, held);
    }
    expect(events.filter((r) => r.type === 'call')).toHaveLength(6);
    expect(events.filter((r) => r.type === 'answered')).toHaveLength(6);
    expect(most).toBe(2);
  });

  it('bulkhead with a full queue (maxQueue 0): BulkheadRejectedError without a request, the breaker does not count it', async () => {
    const { h, mcp } = await setUp(
      transport,
      { progress: { everyMs: 100, forMs: 1_000 } },
      { bulkhead: { maxConcurrent: 1, maxQueue: 0 }, breaker: { failureThreshold: 1 } },
    );
    const first = mcp.callTool({ name: 'progress' });
    while (h.calls('progress') === 0) await new Promise((r) => setTimeout(r, 20));
    const error = await mcp.callTool({ name: 'read' }).catch((e: unknown) => e);
    expect(isBulkheadRejectedError(error)).toBe(true);
    expect(error).toMatchObject({ maxConcurrent: 1, maxQueue: 0 });
    expect(h.calls('read')).toBe(0);
    expect(textOf(await first)).toMatch(/^progress: /);
    expect(mcp.breaker.state).toBe('closed');
    expect(textOf(await mcp.callTool({ name: 'read' }))).toBe('read #1');
    expect(h.calls('progress')).toBe(1);
  });

  it('listTools returns every tool with its annotations', async () => {
    const { mcp } = await setUp(transport);
    const { tools } = await mcp.listTools();
    const byName = new Map(tools.map((t) => [t.name, t.annotations]));
    expect(byName.get('read')).toEqual({ readOnlyHint: true });
    expect(byName.get('write')).toBeUndefined();
    expect(byName.has('hang')).toBe(true);
  });
});

describe('mcpClient breaker and sessions', () => {
  it('2 failed connects with failureThreshold 2: the 3rd call is CircuitOpenError without calling connect()', async () => {
    let connects = 0;
    client = mcpClient({
      name: 'down',
      connect: async () => {
        connects++;
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), {
          code: 'ECONNREFUSED',
        });
      },
      retry: false,
      breaker: { failureThreshold: 2 },
    });
    for (let i = 0; i < 2; i++)
      await expect(client.callTool({ name: 'read' })).rejects.toThrow(/ECONNREFUSED/);
    const third = await client.callTool({ name: 'read' }).catch((e: unknown) => e);
    expect(isCircuitOpenError(third)).toBe(true);
    expect(connects).toBe(2);
  });

  it('50 concurrent first calls share one connect() and one tools/list; every call runs once', async () => {
    harness = await startHarness('http');
    const h = harness;
    let lists = 0;
    const mcp = mcpClient({
      name: 'chaos',
      connect: async () => {
        const c = await h.connect();
        const list = c.listTools.bind(c);
        c.listTools = (...args: Parameters<typeof list>) => {
          lists++;
          return list(...args);
        };
        return c;
      },
    });
    client = mcp;
    const results = await Promise.all(
      Array.from({ length: 50 }, () => mcp.callTool({ name: 'read' })),
    );
    expect(results).toHaveLength(50);
    expect(h.connects).toBe(1);
    expect(lists).toBe(1);
    expect(h.calls('read')).toBe(50);
    expect(new Set(results.map(textOf)).size).toBe(50);
  });

  it('a forgotten HTTP session: connect() again, and the call runs once', async () => {
    const { h, mcp } = await setUp('http');
    expect(textOf(await mcp.callTool({ name: 'write' }))).toBe('write #1');
    h.http!.forgetSessions();
    expect(textOf(await mcp.callTool({ name: 'write' }))).toBe('write #2');
    expect(h.connects).toBe(2);
    expect(h.calls('write')).toBe(2);
    expect(h.records().some((r) => r.type === 'session_forgotten')).toBe(true);
  });
});
