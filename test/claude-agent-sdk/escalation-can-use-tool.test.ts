import {
  createSdkMcpServer,
  type Options,
  query,
  type SDKMessage,
  tool,
} from '@anthropic-ai/claude-agent-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { escalationCanUseTool } from '../../src/claude-agent-sdk/index.js';
import { escalate, escalations, memoryStore } from '../../src/index.js';
import { cliBinary, waitNoCli, withAgentChaos } from './helpers.js';

// The real CLI asks our canUseTool before a high-risk MCP tool runs; the chaos server plays the
// model that calls it.
const binary = cliBinary();
const skip = 'missing' in binary && process.env.RECOURSE_REQUIRE_SERVICES !== '1';

const TRANSFER = 'mcp__bank__transfer';
const INPUT = { to: 'acct-7', amount: 120 };
const answers = { '*': { text: 'Sending it.', toolUse: { name: TRANSFER, input: INPUT } } };

function bank() {
  const calls: unknown[] = [];
  const server = createSdkMcpServer({
    name: 'bank',
    alwaysLoad: true,
    tools: [
      tool('transfer', 'Transfers money', { to: z.string(), amount: z.number() }, async (args) => {
        calls.push(args);
        return { content: [{ type: 'text', text: `sent ${args.amount} to ${args.to}` }] };
      }),
    ],
  });
  return { server, calls };
}

/** Runs one agent turn; returns the tool results the model saw. */
async function turn(options: Options): Promise<string[]> {
  const results: string[] = [];
  for await (const m of query({
    prompt: 'Pay acct-7 120.',
    options,
  }) as AsyncIterable<SDKMessage>) {
    if (m.type === 'user' && Array.isArray(m.message.content)) {
      for (const block of m.message.content) {
        if (typeof block === 'object' && block !== null && block.type === 'tool_result') {
          const content = block.content;
          results.push(typeof content === 'string' ? content : JSON.stringify(content));
        }
      }
    }
  }
  return results;
}

describe.skipIf(skip).sequential('escalationCanUseTool with the real Claude Agent SDK', () => {
  afterEach(async () => {
    await waitNoCli(6_000);
  });

  it('a pending high-risk tool call never runs; once approved from another process, the same call runs once', async () => {
    await withAgentChaos({ answers }, async ({ options }) => {
      const store = memoryStore();
      const risky = escalate({ store });
      const desk = escalations(store);
      const { server, calls } = bank();
      const canUseTool = escalationCanUseTool(risky, { tools: [TRANSFER] });
      const first = await turn(options({ mcpServers: { bank: server }, canUseTool, maxTurns: 3 }));
      expect(calls).toEqual([]);
      const [pending] = await desk.list({ states: ['pending'] });
      expect(pending).toMatchObject({ action: TRANSFER, args: '{"amount":120,"to":"acct-7"}' });
      expect(first.join('\n')).toContain(`escalation ${pending!.id} is pending`);
      await desk.approve(pending!.id, { by: 'alice' });
      const second = await turn(options({ mcpServers: { bank: server }, canUseTool, maxTurns: 3 }));
      expect(calls).toEqual([INPUT]);
      expect(second.join('\n')).toContain('sent 120 to acct-7');
      // The approval was used: the same call again asks a person again.
      await turn(options({ mcpServers: { bank: server }, canUseTool, maxTurns: 3 }));
      expect(calls).toHaveLength(1);
      expect((await desk.get(pending!.id))?.round).toBe(2);
    });
  });

  it('a denied call never runs and the model is told so; other tools are left to otherwise', async () => {
    await withAgentChaos({ answers }, async ({ options }) => {
      const store = memoryStore();
      const risky = escalate({ store });
      const { server, calls } = bank();
      const seen: string[] = [];
      const canUseTool = escalationCanUseTool(risky, {
        tools: (name) => name === TRANSFER,
        otherwise: async (name, input) => {
          seen.push(name);
          return { behavior: 'allow', updatedInput: input };
        },
      });
      await turn(options({ mcpServers: { bank: server }, canUseTool, maxTurns: 3 }));
      const [pending] = await risky.list({ states: ['pending'] });
      await risky.deny(pending!.id, { by: 'bob', note: 'wrong account' });
      const results = await turn(
        options({ mcpServers: { bank: server }, canUseTool, maxTurns: 3 }),
      );
      expect(calls).toEqual([]);
      expect(results.join('\n')).toContain(
        `A person denied this call (escalation ${pending!.id}, by bob: wrong account)`,
      );
      expect(seen).toEqual([]);
    });
  });

  it('with wait, the agent waits for the decision and then runs the call', async () => {
    await withAgentChaos({ answers }, async ({ options }) => {
      const store = memoryStore();
      const risky = escalate({ store, pollMs: 50 });
      const { server, calls } = bank();
      const canUseTool = escalationCanUseTool(risky, { tools: [TRANSFER], wait: true });
      const running = turn(options({ mcpServers: { bank: server }, canUseTool, maxTurns: 3 }));
      // Until the CLI (a process of its own, slow to start on a loaded machine) asks for the call,
      // or the turn ends without asking.
      let ended = false;
      running.then(
        () => (ended = true),
        () => (ended = true),
      );
      let pending = (await risky.list({ states: ['pending'] }))[0];
      for (
        const end = Date.now() + 100_000;
        pending === undefined && !ended && Date.now() < end;
      ) {
        await new Promise((r) => setTimeout(r, 50));
        pending = (await risky.list({ states: ['pending'] }))[0];
      }
      expect(pending).toBeDefined();
      expect(calls).toEqual([]);
      await risky.approve(pending!.id, { by: 'alice' });
      await running;
      expect(calls).toEqual([INPUT]);
    });
  });

  it('refuses bad options', () => {
    const risky = escalate({ store: memoryStore() });
    expect(() => escalationCanUseTool({} as never, { tools: [] })).toThrow(
      /^escalation must be an escalate/,
    );
    expect(() => escalationCanUseTool(risky, { tools: [''] })).toThrow(
      /^tools\[0\] must be a tool name/,
    );
    expect(() => escalationCanUseTool(risky, { tools: 5 as never })).toThrow(
      /^tools must be a function/,
    );
    expect(() => escalationCanUseTool(risky, { tools: [], when: 1 } as never)).toThrow(
      /^escalationCanUseTool: unknown option "when"/,
    );
  });
});
