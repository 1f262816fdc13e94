import { Agent, Runner, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ChaosServer } from '../../src/chaos/index.js';
import { escalate, escalations, IdempotencyLedger, memoryStore } from '../../src/index.js';
import { recourseModelProvider, recourseTool } from '../../src/openai-agents/index.js';
import { ANSWER, withChaos } from '../ai-sdk/helpers.js';

// recourseTool with real @openai/agents: the chaos server's model calls the tool, the runner runs
// it through the ledger, and an escalated call stops the run at the SDK's approval interruption.

setTracingDisabled(true);

const answers = {
  answers: { '*': { text: ANSWER, toolUse: { name: 'transfer', input: { amount: 5 } } } },
};

function transferTool() {
  const calls: unknown[] = [];
  const transfer = tool({
    name: 'transfer',
    description: 'Moves money.',
    parameters: z.object({ amount: z.number() }),
    execute: async ({ amount }) => {
      calls.push(amount);
      return `moved ${amount}`;
    },
  });
  return { transfer, calls };
}

const runnerFor = (chaos: ChaosServer) =>
  new Runner({
    modelProvider: recourseModelProvider({
      client: new OpenAI({ baseURL: `${chaos.url}/v1`, apiKey: 'test', logLevel: 'off' }),
    }),
  });

describe('recourseTool', () => {
  it('with a ledger, a run sent again makes the same call once: the side effect happens once', async () => {
    await withChaos(answers, async (chaos) => {
      const { transfer, calls } = transferTool();
      const ledger = new IdempotencyLedger(memoryStore());
      const agent = new Agent({
        name: 'bank',
        model: 'gpt-a',
        tools: [recourseTool(transfer, { ledger })],
      });
      const runner = runnerFor(chaos);
      const first = await runner.run(agent, 'Move 5.');
      expect(first.finalOutput).toBe(ANSWER);
      // The same conversation again: the model makes the same call (same call id).
      const second = await runner.run(agent, 'Move 5.');
      expect(second.finalOutput).toBe(ANSWER);
      expect(calls).toEqual([5]);
      const outputs = second.newItems
        .filter((i) => i.type === 'tool_call_output_item')
        .map((i) => (i as { output: unknown }).output);
      expect(outputs).toEqual(['moved 5']);
    });
  });

  it('with escalation: the run stops at the SDK’s approval until a person approves in the store', async () => {
    await withChaos(answers, async (chaos) => {
      const store = memoryStore();
      const { transfer, calls } = transferTool();
      const agent = new Agent({
        name: 'bank',
        model: 'gpt-a',
        tools: [recourseTool(transfer, { escalation: escalate({ store }) })],
      });
      const runner = runnerFor(chaos);
      const stopped = await runner.run(agent, 'Move 5.');
      expect(stopped.interruptions).toHaveLength(1);
      expect(stopped.interruptions[0]).toMatchObject({ name: 'transfer' });
      expect(calls).toEqual([]);
      const pending = await escalations(store).list({ states: ['pending'] });
      expect(pending).toHaveLength(1);
      expect(pending[0]?.action).toBe('transfer');
      expect(JSON.parse(String(pending[0]?.args))).toEqual({ amount: 5 });

      // Still pending: resuming stops at the approval again, nothing runs.
      const again = await runner.run(agent, stopped.state);
      expect(again.interruptions).toHaveLength(1);
      expect(calls).toEqual([]);

      await escalations(store).approve(pending[0]!.id, { by: 'ops' });
      const done = await runner.run(agent, again.state);
      expect(done.interruptions ?? []).toHaveLength(0);
      expect(done.finalOutput).toBe(ANSWER);
      expect(calls).toEqual([5]);
    });
  });

  it('bad input names the option', () => {
    const { transfer } = transferTool();
    expect(() => recourseTool({} as never, {})).toThrow(/tool must be an Agents SDK function tool/);
    expect(() => recourseTool(transfer, { ledger: {} as never })).toThrow(/ledger must be/);
    expect(() => recourseTool(transfer, { nope: 1 } as never)).toThrow(/nope/);
  });
});
