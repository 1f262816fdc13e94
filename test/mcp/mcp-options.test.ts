import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { classify } from '../../src/classify/classify.js';
import { mcpClient, ToolCallError, ToolOutcomeUnknownError } from '../../src/mcp/index.js';

const connect = async (): Promise<Client> => {
  throw new Error('unused');
};

describe('mcpClient options', () => {
  it.each([
    [{}, /name must be a non-empty string/],
    [{ name: 'files' }, /connect must be a function/],
    [{ name: 'files', connect, idleMs: 0 }, /idleMs must be a number of ms >= 1, or Infinity/],
    [{ name: 'files', connect, timeoutMs: -1 }, /timeoutMs/],
    [{ name: 'files', connect, retry: 'yes' }, /retry must be RetryOptions or false/],
    [{ name: 'files', connect, retry: { maxAttemps: 2 } }, /did you mean "maxAttempts"/],
    [
      { name: 'files', connect, breaker: { failureTreshold: 2 } },
      /did you mean "failureThreshold"/,
    ],
    [{ name: 'files', connect, ledger: {} }, /ledger must be an IdempotencyLedger/],
    [{ name: 'files', connect, bulkhead: 4 }, /bulkhead must be BulkheadOptions/],
    [{ name: 'files', connect, bulkhead: {} }, /maxConcurrent is required/],
    [{ name: 'files', connect, bulkhead: { maxConcurrent: 0 } }, /maxConcurrent/],
    [{ name: 'files', connect, idle: 5 }, /mcpClient: unknown option "idle"/],
  ])('refuses %j, naming the option', (options, message) => {
    expect(() => mcpClient(options as never)).toThrow(message);
  });

  it('refuses bad call arguments with a rejection naming them', async () => {
    const mcp = mcpClient({ name: 'files', connect });
    await expect(mcp.callTool({ name: '' })).rejects.toThrow(
      /params.name must be a non-empty string/,
    );
    await expect(mcp.callTool({ name: 'x', arguments: [] as never })).rejects.toThrow(
      /params.arguments must be an object/,
    );
    await expect(mcp.callTool({ name: 'x' }, { idempotencyKey: 1 as never })).rejects.toThrow(
      /idempotencyKey must be a non-empty string/,
    );
    await mcp.close();
    await expect(mcp.callTool({ name: 'x' })).rejects.toThrow(/mcpClient files is closed/);
  });

  it('a connect() that never finishes is a TimeoutError after timeoutMs, before sending: retried, then given up', async () => {
    let connects = 0;
    const mcp = mcpClient({
      name: 'slow',
      connect: () => {
        connects++;
        return new Promise<Client>(() => {});
      },
      timeoutMs: 50,
      retry: { maxAttempts: 2, backoff: { delay: () => 0 } },
    });
    await expect(mcp.callTool({ name: 'write' })).rejects.toThrow(
      /connect\(\) did not finish within 50 ms/,
    );
    expect(connects).toBe(2);
  });

  it('classifies its errors: isError logical and not counted, outcome unknown not retryable but counted', () => {
    const toolError = new ToolCallError('files', 'read', {
      content: [{ type: 'text', text: 'no such file' }],
      isError: true,
    });
    expect(toolError.message).toBe('MCP tool read on files reported an error: no such file');
    expect(classify(toolError)).toMatchObject({
      kind: 'logical',
      retryable: false,
      countsForBreaker: false,
      reason: 'tool_error',
    });
    const unknown = new ToolOutcomeUnknownError('files', 'write', new Error('Connection closed'));
    expect(classify(unknown)).toMatchObject({
      retryable: false,
      countsForBreaker: true,
      reason: 'outcome_unknown',
    });
  });
});
