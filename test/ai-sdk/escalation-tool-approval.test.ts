import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, type LanguageModel, stepCountIs, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { escalationToolApproval } from '../../src/ai-sdk/escalation-tool-approval.js';
import type { ChaosServer } from '../../src/chaos/index.js';
import { escalate, memoryStore } from '../../src/index.js';
import { withChaos } from '../chaos/helpers.js';

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const INPUT = { to: 'acct-7', amount: 120 };
const answers = { '*': { text: 'Sending it.', toolUse: { name: 'transfer', input: INPUT } } };
const providers: Array<[string, (chaos: ChaosServer) => LanguageModel]> = [
  [
    '@ai-sdk/anthropic',
    (chaos) => createAnthropic({ baseURL: `${chaos.url}/v1`, apiKey: 'test' })('claude-test'),
  ],
  [
    '@ai-sdk/openai chat',
    (chaos) => createOpenAI({ baseURL: `${chaos.url}/v1`, apiKey: 'test' }).chat('gpt-test'),
  ],
];

function tools(calls: unknown[]) {
  return {
    transfer: tool({
      description: 'Transfers money',
      inputSchema: z.object({ to: z.string(), amount: z.number() }),
      execute: async (input) => {
        calls.push(input);
        return { sent: input.amount };
      },
    }),
    lookup: tool({
      description: 'Looks an account up',
      inputSchema: z.object({ id: z.string() }),
      execute: async () => ({ ok: true }),
    }),
  };
}

describe('escalationToolApproval with the AI SDK (ai 7) against the chaos server', () => {
  it.each(providers)(
    '%s: a pending call is denied and never executed; approved, the same call runs once; then it is asked again',
    async (_name, model) => {
      await withChaos({ answers }, async (chaos) => {
        const risky = escalate({ store: memoryStore() });
        const calls: unknown[] = [];
        const run = () =>
          generateText({
            model: model(chaos),
            prompt: 'Pay acct-7 120.',
            tools: tools(calls),
            toolApproval: escalationToolApproval(risky, { tools: ['transfer'] }),
            stopWhen: stepCountIs(3),
            maxRetries: 0,
          });
        const first = await run();
        expect(calls).toEqual([]);
        const [pending] = await risky.list({ states: ['pending'] });
        expect(pending).toMatchObject({ action: 'transfer', args: '{"amount":120,"to":"acct-7"}' });
        const denials = first.steps
          .flatMap((s) => s.content)
          .filter((p) => p.type === 'tool-approval-response' || p.type === 'tool-result');
        expect(JSON.stringify(denials)).toContain(`escalation ${pending!.id} is pending`);
        await risky.approve(pending!.id, { by: 'alice' });
        await run();
        expect(calls).toEqual([INPUT]);
        await run();
        expect(calls).toHaveLength(1);
        expect((await risky.get(pending!.id))?.round).toBe(2);
      });
    },
  );

  it('a denied call never runs; calls of other tools are left to the SDK', async () => {
    await withChaos({ answers }, async (chaos) => {
      const risky = escalate({ store: memoryStore() });
      const calls: unknown[] = [];
      const approval = escalationToolApproval(risky, { tools: (name) => name === 'transfer' });
      expect(await approval({ toolCall: { toolName: 'lookup', input: { id: 'x' } } })).toBe(
        'not-applicable',
      );
      const run = () =>
        generateText({
          model: providers[0]![1](chaos),
          prompt: 'Pay acct-7 120.',
          tools: tools(calls),
          toolApproval: approval,
          stopWhen: stepCountIs(3),
          maxRetries: 0,
        });
      await run();
      const [pending] = await risky.list({ states: ['pending'] });
      await risky.deny(pending!.id, { by: 'bob' });
      await run();
      expect(calls).toEqual([]);
      expect(await approval({ toolCall: { toolName: 'transfer', input: INPUT } })).toEqual({
        type: 'denied',
        reason: `A person denied this call (escalation ${pending!.id}, by bob). It was not run. Do not try it again.`,
      });
    });
  });

  it('refuses bad options', () => {
    const risky = escalate({ store: memoryStore() });
    expect(() => escalationToolApproval({} as never, { tools: [] })).toThrow(
      /^escalation must be an escalate/,
    );
    expect(() => escalationToolApproval(risky, { tools: [5 as never] })).toThrow(
      /^tools\[0\] must be a tool name/,
    );
    expect(() => escalationToolApproval(risky, { tools: [], x: 1 } as never)).toThrow(
      /^escalationToolApproval: unknown option "x"/,
    );
  });
});
