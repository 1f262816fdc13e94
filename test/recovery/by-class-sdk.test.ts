import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import {
  type AlertInfo,
  byClass,
  Checkpointer,
  isReplanRequiredError,
  isRunStoppedError,
  jsonLogger,
  memoryStore,
  pipeline,
  shutdown,
  subscribe,
} from '../../src/index.js';
import { withChaos } from '../chaos/helpers.js';

// byClass against real SDK errors from the chaos server: each class down its own road.

const client = (url: string) =>
  new Anthropic({
    baseURL: url,
    apiKey: 'sk-ant-api03-test-key-0123456789abcdef',
    maxRetries: 0,
    logLevel: 'off',
  });
type Message = Anthropic.Messages.Message;
const ask = (
  c: Anthropic,
  model: string,
  content: string,
  signal?: AbortSignal,
): Promise<Message> =>
  c.messages.create(
    { model, max_tokens: 100, messages: [{ role: 'user', content }] },
    signal === undefined ? {} : { signal },
  );
const rejection = async (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

describe('byClass with the Anthropic SDK against the chaos server', () => {
  it('a 401 is never retried and alerts once, however many calls fail at once', async () => {
    const scenario = {
      rules: [
        { match: { model: 'claude-locked' }, fault: { kind: 'status' as const, status: 401 } },
      ],
    };
    await withChaos({ scenario }, async (chaos) => {
      const anthropic = client(chaos.url);
      const alerts: AlertInfo[] = [];
      const claude = pipeline({ name: 'claude' }, byClass({ alert: (a) => void alerts.push(a) }));
      const errors = await Promise.all(
        Array.from({ length: 20 }, () =>
          rejection(claude.execute((ctx) => ask(anthropic, 'claude-locked', 'hi', ctx.signal))),
        ),
      );
      for (const e of errors) expect(e).toBeInstanceOf(Anthropic.AuthenticationError);
      expect(chaos.requests).toHaveLength(20); // one request per call: not one retried
      expect(alerts).toHaveLength(1);
      expect(alerts[0]).toMatchObject({
        name: 'claude',
        kind: 'persistent',
        reason: 'unauthorized',
        suppressed: 0,
      });
      expect(alerts[0]!.explain).toMatch(
        /^AuthenticationError: 401 .*\[persistent: unauthorized, status 401\]/,
      );
    });
  });

  it('a 400 context overflow re-plans: the orchestrator puts the summary back and asks a shorter question, which is answered', async () => {
    await withChaos(
      { answers: { 'claude-small': { contextTokens: 300, text: 'Here is the short answer.' } } },
      async (chaos) => {
        const anthropic = client(chaos.url);
        const claude = pipeline({ name: 'claude' }, byClass());
        const documents = Array.from(
          { length: 40 },
          (_, i) => `Document ${i}: ${'lorem ipsum dolor sit amet '.repeat(3)}`,
        );
        let context = documents.join('\n');
        let answer: Message | undefined;
        const summaries: string[] = [];
        for (let turn = 0; turn < 3 && answer === undefined; turn++) {
          try {
            answer = await claude.execute((ctx) =>
              ask(anthropic, 'claude-small', `Summarise:\n${context}`, ctx.signal),
            );
          } catch (error) {
            if (!isReplanRequiredError(error)) throw error;
            summaries.push(error.summary);
            // The re-plan: keep the first documents and the model-readable summary of what went wrong.
            context = `${documents.slice(0, 3).join('\n')}\n(note: ${error.summary.slice(0, 80)}…)`;
          }
        }
        expect(answer?.content).toEqual([{ type: 'text', text: 'Here is the short answer.' }]);
        expect(summaries).toHaveLength(1);
        expect(summaries[0]).toMatch(
          /^The call to "claude" failed: the request is larger than the model's context window \[HTTP 400\] \("prompt is too long: \d+ tokens > 300 maximum"\)\. Tried once; not retried/,
        );
        expect(chaos.requests.map((r) => r.status)).toEqual([400, 200]);
      },
    );
  });

  it('a TypeError stops the run once with 50 calls in flight: they drain, the steps run once, and no call starts after it', async () => {
    const scenario = {
      rules: [
        { match: { model: 'claude-slow' }, fault: { kind: 'latency' as const, ms: 400 } },
        { match: { model: 'claude-empty' }, fault: { kind: 'empty' as const } },
      ],
    };
    await withChaos({ scenario }, async (chaos) => {
      const anthropic = client(chaos.url);
      const lines: string[] = [];
      const unsubscribe = subscribe(jsonLogger({ write: (line) => lines.push(line) }));
      const run = shutdown({ drainMs: 5_000 });
      const checkpoints = new Checkpointer(memoryStore());
      const steps: string[] = [];
      run.step('flush log', () => {
        unsubscribe();
        steps.push(`flushed ${lines.length} lines`);
      });
      run.step('save checkpoint', async () => {
        await checkpoints.save('research-7', 3, { done: ['a', 'b', 'c'] });
        steps.push('checkpoint');
      });
      const claude = pipeline({ name: 'claude' }, byClass({ shutdown: run }));
      // Reads the first block's text: a bug when the model answers with no content at all.
      const firstText = async (model: string, signal: AbortSignal) => {
        const reply = await ask(anthropic, model, `question for ${model}`, signal);
        return (reply.content[0] as Anthropic.Messages.TextBlock).text.toUpperCase();
      };
      const slow = Array.from({ length: 49 }, () =>
        claude.execute((ctx) => firstText('claude-slow', ctx.signal)),
      );
      const buggy = rejection(claude.execute((ctx) => firstText('claude-empty', ctx.signal)));
      const bug = await buggy;
      expect(bug).toBeInstanceOf(TypeError);
      expect((bug as Error).message).toMatch(
        /Cannot read properties of undefined \(reading 'text'\)/,
      );
      // By the time the failing caller has its error back, the others have drained and the steps ran.
      const drained = await Promise.all(slow);
      expect(drained.every((t) => t.startsWith('CANNED REPLY'))).toBe(true);
      expect(steps).toEqual([expect.stringMatching(/^flushed \d+ lines$/), 'checkpoint']);
      expect((await checkpoints.recover('research-7')).recovered).toBe(true);
      expect(chaos.requests).toHaveLength(50);
      const late = await Promise.all(
        Array.from({ length: 10 }, () =>
          rejection(claude.execute((ctx) => firstText('claude-slow', ctx.signal))),
        ),
      );
      for (const e of late) expect(isRunStoppedError(e) && e.phase).toBe('refused');
      expect(chaos.requests).toHaveLength(50); // no call started after the stop
      const stopLines = lines
        .map((l) => JSON.parse(l) as { event: string })
        .filter((l) => l.event === 'route');
      expect(stopLines.length).toBeGreaterThanOrEqual(1);
      expect((await run.stop()).inFlight).toBe(49);
    });
  });

  it('with a short drain deadline, the calls still in flight are aborted (the SDK request too) and their callers get RunStoppedError', async () => {
    const scenario = {
      rules: [
        { match: { model: 'claude-hang' }, fault: { kind: 'stall' as const } },
        { match: { model: 'claude-empty' }, fault: { kind: 'empty' as const } },
      ],
    };
    await withChaos({ scenario }, async (chaos) => {
      const anthropic = client(chaos.url);
      const run = shutdown({ drainMs: 200 });
      const claude = pipeline({ name: 'claude' }, byClass({ shutdown: run }));
      const hung = Array.from({ length: 5 }, () =>
        rejection(claude.execute((ctx) => ask(anthropic, 'claude-hang', 'x', ctx.signal))),
      );
      await new Promise((r) => setTimeout(r, 100));
      const started = Date.now();
      const bug = await rejection(
        claude.execute(async (ctx) => {
          const reply = await ask(anthropic, 'claude-empty', 'x', ctx.signal);
          return (reply.content[0] as Anthropic.Messages.TextBlock).text;
        }),
      );
      expect(bug).toBeInstanceOf(TypeError);
      expect(Date.now() - started).toBeLessThan(10_000); // not held behind the hung calls
      for (const e of await Promise.all(hung))
        expect(isRunStoppedError(e) && e.phase).toBe('drain');
      const report = await run.stop();
      expect([report.inFlight, report.aborted]).toEqual([5, 5]);
      // The aborted requests were really cancelled: the server sees no connection left open.
      for (let i = 0; i < 50 && chaos.inFlight > 0; i++)
        await new Promise((r) => setTimeout(r, 20));
      expect(chaos.inFlight).toBe(0);
    });
  });
});
