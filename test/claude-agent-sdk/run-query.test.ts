import { spawn } from 'node:child_process';
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  classify,
  fallback,
  isInvalidResultError,
  isStallError,
  retry,
  type StallError,
} from '../../src/index.js';
import {
  AgentResultError,
  isAgentResultError,
  type ModelFallbackEvent,
  onAgentEvent,
  runQuery,
  subagentPath,
} from '../../src/claude-agent-sdk/index.js';
import { cliBinary, cliChildren, isAlive, waitNoCli, withAgentChaos } from './helpers.js';
import { settle } from '../helpers/settle.js';

// Each test starts the real ~400 MB CLI (start-up 0.35–1.5 s here): a few, one at a time.
const binary = cliBinary();
const required = process.env.RECOURSE_REQUIRE_SERVICES === '1';
const skip = 'missing' in binary && !required;
if (skip)
  console.warn(
    `[recourse] skipping the Claude Agent SDK tests: ${'missing' in binary ? binary.missing : ''}`,
  );

describe.runIf(required)('CI requirements', () => {
  it('has the Claude Agent SDK CLI binary (RECOURSE_REQUIRE_SERVICES=1)', () => {
    expect('missing' in binary ? binary.missing : 'present').toBe('present');
  });
});

const PROMPT = 'Say hello.';

describe
  .skipIf(skip)
  .sequential('runQuery against the real Claude Agent SDK and the chaos server', () => {
    beforeAll(() => {
      expect(cliChildren()).toEqual([]);
    });
    afterEach(async () => {
      // Whatever a test did, it must not leave a CLI behind.
      await waitNoCli(6000);
    });

    it('resolves with the success result on a healthy server', async () => {
      await withAgentChaos(
        { answers: { '*': { text: 'Hello from chaos.' } } },
        async ({ chaos, options }) => {
          const seen: string[] = [];
          const result = await runQuery(
            { prompt: PROMPT, options: options() },
            {
              idleMs: 10_000,
              onMessage: (m) => seen.push(m.type),
              validate: (r) => r.result.includes('Hello') || 'no greeting',
            },
          );
          expect(result.subtype).toBe('success');
          expect(result.is_error).toBe(false);
          expect(result.result).toBe('Hello from chaos.');
          expect(seen[0]).toBe('system');
          expect(seen).toContain('stream_event'); // includePartialMessages is on by default
          expect(seen.at(-1)).toBe('result');
          expect(chaos.requests.filter((r) => r.path === '/v1/messages')).toHaveLength(1);
          // runQuery settles once the CLI has exited by itself: none outlives the call.
          expect(cliChildren()).toEqual([]);
        },
      );
    });

    it('validate turns a useless success into InvalidResultError (logical, retryable); query can be injected', async () => {
      await withAgentChaos({ answers: { '*': { text: '   ' } } }, async ({ options }) => {
        let injectedCalls = 0;
        const outcome = await settle(
          runQuery(
            { prompt: PROMPT, options: options() },
            {
              idleMs: 10_000,
              // As a caller would when recourse is symlinked and resolves another copy of the SDK.
              query: (params) => {
                injectedCalls++;
                return query(params);
              },
              validate: (r) => r.result.trim() !== '' || 'empty answer',
            },
          ),
        );
        expect(injectedCalls).toBe(1);
        expect(isInvalidResultError(outcome.error)).toBe(true);
        expect((outcome.error as Error).message).toContain('empty answer');
        expect(classify(outcome.error)).toMatchObject({ kind: 'logical', retryable: true });
      });
    });

    it('an unreachable API (ECONNREFUSED, no status) rejects as transient network', async () => {
      await withAgentChaos({}, async ({ options }) => {
        const outcome = await settle(
          runQuery(
            { prompt: PROMPT, options: options({}, { baseUrl: 'http://127.0.0.1:9' }) },
            { idleMs: 10_000 },
          ),
        );
        expect(outcome.error).toMatchObject({
          name: 'AgentResultError',
          failure: 'api_error',
          code: 'ECONNREFUSED',
          status: undefined,
        });
        expect(classify(outcome.error)).toMatchObject({
          kind: 'transient',
          retryable: true,
          reason: 'network',
          code: 'ECONNREFUSED',
        });
      });
    });

    it('stall after message_start: idleMs 2000 rejects with StallError within seconds, and no CLI is left', async () => {
      const scenario = { rules: [{ fault: { kind: 'stall' as const, afterEvents: 1 } }] };
      await withAgentChaos({ scenario }, async ({ options }) => {
        let messageStartAt = 0;
        const outcome = await settle(
          runQuery(
            { prompt: PROMPT, options: options() },
            {
              idleMs: 2000,
              onMessage: (m) => {
                if (m.type === 'stream_event' && m.event.type === 'message_start')
                  messageStartAt = Date.now();
              },
            },
          ),
        );
        const rejectedAt = Date.now();
        expect(isStallError(outcome.error)).toBe(true);
        expect((outcome.error as StallError).phase).toBe('idle');
        expect(classify(outcome.error)).toMatchObject({ kind: 'transient', retryable: true });
        expect(messageStartAt).toBeGreaterThan(0);
        // Detected 2 s after the last progress, not after the CLI's own 300 s watchdog.
        expect(rejectedAt - messageStartAt).toBeGreaterThanOrEqual(1900);
        // Bounds far from both (room for a loaded machine; quiet: about 2 s and 5 s).
        expect(rejectedAt - messageStartAt).toBeLessThan(20_000);
        expect(outcome.ms).toBeLessThan(25_000);
        await waitNoCli(10_000);
      });
    });

    it('a keep-alive-only stream stalls: the pings the CLI forwards (one per ~10 s) are not progress', async () => {
      const scenario = {
        rules: [{ fault: { kind: 'keepalive' as const, afterEvents: 1, intervalMs: 500 } }],
      };
      await withAgentChaos({ scenario }, async ({ options }) => {
        const pings: number[] = [];
        let messageStartAt = 0;
        const outcome = await settle(
          runQuery(
            { prompt: PROMPT, options: options() },
            {
              idleMs: 11_000,
              onMessage: (m) => {
                if (m.type !== 'stream_event') return;
                if (m.event.type === 'message_start') messageStartAt = Date.now();
                if ((m.event as { type: string }).type === 'ping')
                  pings.push(Date.now() - messageStartAt);
              },
            },
          ),
        );
        expect((outcome.error as StallError).phase).toBe('idle');
        expect(pings.length).toBeGreaterThanOrEqual(1); // the CLI did pass one on, ~10 s in
        // At idleMs after message_start: a ping taken for progress would push it past 21 s.
        expect(Date.now() - messageStartAt).toBeLessThan(20_000);
      });
    }, 60_000);

    it('every response 529 with CLAUDE_CODE_MAX_RETRIES=0: rejects with a transient error, status 529', async () => {
      const scenario = { rules: [{ fault: { kind: 'status' as const, status: 529 } }] };
      await withAgentChaos({ scenario }, async ({ chaos, options }) => {
        const outcome = await settle(
          runQuery({ prompt: PROMPT, options: options() }, { idleMs: 10_000 }),
        );
        expect(outcome.error).toBeInstanceOf(AgentResultError);
        const error = outcome.error as AgentResultError;
        expect(error).toMatchObject({
          failure: 'api_error',
          status: 529,
          type: 'overloaded_error',
        });
        expect(error.result).toMatchObject({
          subtype: 'success',
          is_error: true,
          api_error_status: 529,
          terminal_reason: 'api_error',
        });
        expect(classify(error)).toMatchObject({
          kind: 'transient',
          retryable: true,
          countsForBreaker: true,
          status: 529,
        });
        expect(chaos.requests).toHaveLength(1); // the CLI did not retry on its own
        expect(cliChildren()).toEqual([]);
      });
    });

    it('retry around runQuery recovers from one 529 (ctx-style composition)', async () => {
      const scenario = { rules: [{ fault: { kind: 'status' as const, status: 529 }, times: 1 }] };
      await withAgentChaos({ scenario }, async ({ chaos, options }) => {
        const policy = retry({ maxAttempts: 2, backoff: { delay: () => 10 } });
        const result = await policy.execute((ctx) =>
          runQuery({ prompt: PROMPT, options: options() }, { signal: ctx.signal, idleMs: 10_000 }),
        );
        expect(result.is_error).toBe(false);
        expect(chaos.requests.map((r) => r.status)).toEqual([529, 200]);
      });
    });

    it('error_max_turns rejects as logical', async () => {
      const answers = { '*': { toolUse: { name: 'Read', input: { file_path: '/etc/hostname' } } } };
      await withAgentChaos({ answers }, async ({ options }) => {
        const outcome = await settle(
          runQuery({ prompt: PROMPT, options: options({ maxTurns: 1 }) }, { idleMs: 10_000 }),
        );
        expect(isAgentResultError(outcome.error)).toBe(true);
        expect(outcome.error).toMatchObject({ failure: 'error_max_turns' });
        expect(classify(outcome.error)).toMatchObject({
          kind: 'logical',
          retryable: false,
          countsForBreaker: false,
        });
      });
    });

    it('a caller abort rejects promptly as cancelled and stops the CLI', async () => {
      const scenario = { rules: [{ fault: { kind: 'stall' as const, afterEvents: 1 } }] };
      await withAgentChaos({ scenario }, async ({ options }) => {
        const controller = new AbortController();
        let abortedAt = 0;
        let scheduled = false;
        const outcome = await settle(
          runQuery(
            { prompt: PROMPT, options: options() },
            {
              signal: controller.signal,
              idleMs: 30_000,
              onMessage: (m: SDKMessage) => {
                if (m.type === 'stream_event' && !scheduled) {
                  scheduled = true;
                  setTimeout(() => {
                    abortedAt = Date.now();
                    controller.abort();
                  }, 200);
                }
              },
            },
          ),
        );
        const latency = Date.now() - abortedAt;
        expect((outcome.error as Error).name).toBe('AbortError');
        expect(classify(outcome.error).kind).toBe('cancelled');
        expect(latency).toBeLessThan(5_000); // at the abort, not at idleMs 30 s (quiet: a few ms)
        await waitNoCli(10_000);
      });
    });

    it('a fallback ladder of two subagents, the first stalling, is served by the second and degraded', async () => {
      const scenario = {
        rules: [
          {
            match: { model: 'claude-stalls-*' },
            fault: { kind: 'stall' as const, afterEvents: 1 },
          },
        ],
      };
      await withAgentChaos(
        { scenario, answers: { 'claude-steady-1': { text: 'steady answer' } } },
        async ({ chaos, options }) => {
          const base = options();
          const ladder = fallback([
            subagentPath({
              name: 'deep',
              agent: {
                description: 'Thorough researcher',
                prompt: 'You research thoroughly.',
                model: 'claude-stalls-1',
              },
              prompt: 'Research the topic.',
              options: base,
              idleMs: 2000,
            }),
            subagentPath({
              name: 'quick',
              agent: {
                description: 'Quick researcher',
                prompt: 'You answer quickly.',
                model: 'claude-steady-1',
              },
              prompt: 'Research the topic.',
              options: base,
              idleMs: 10_000,
            }),
          ]);
          const served = await ladder.execute();
          expect(served).toMatchObject({ servedBy: 'quick', degraded: true });
          expect(served.value.result).toBe('steady answer');
          expect(served.failures).toHaveLength(1);
          expect(isStallError(served.failures[0]!.error)).toBe(true);
          expect(chaos.requests.map((r) => r.model)).toEqual([
            'claude-stalls-1',
            'claude-steady-1',
          ]);
        },
      );
    });

    it('surfaces the CLI model_fallback message as a model_fallback event', async () => {
      const scenario = {
        rules: [
          { match: { model: 'claude-primary-1' }, fault: { kind: 'status' as const, status: 529 } },
        ],
      };
      await withAgentChaos({ scenario }, async ({ options }) => {
        const events: ModelFallbackEvent[] = [];
        const off = onAgentEvent('model_fallback', (e) => events.push(e));
        try {
          // The CLI falls back only after its own retries of 529s: let it retry here.
          const result = await runQuery(
            {
              prompt: PROMPT,
              options: options(
                { model: 'claude-primary-1', fallbackModel: 'claude-backup-1' },
                { maxRetries: 5 },
              ),
            },
            { idleMs: 10_000 },
          );
          expect(result.is_error).toBe(false);
        } finally {
          off();
        }
        expect(events).toHaveLength(1);
        expect(events[0]).toMatchObject({
          trigger: 'overloaded',
          from: 'claude-primary-1',
          to: 'claude-backup-1',
        });
      });
    });

    it('a CLI that exits without a result rejects with a transient no_result error', async () => {
      await withAgentChaos({}, async ({ options }) => {
        const pids: number[] = [];
        const outcome = await settle(
          runQuery(
            {
              prompt: PROMPT,
              options: options({
                // A custom spawn (as for a VM) whose "CLI" dies at once: the real SDK sees no result.
                spawnClaudeCodeProcess: (o) => {
                  const child = spawn(process.execPath, ['-e', 'process.exit(3)'], {
                    env: o.env,
                    stdio: ['pipe', 'pipe', 'ignore'],
                  });
                  if (child.pid !== undefined) pids.push(child.pid);
                  return child;
                },
              }),
            },
            { idleMs: 10_000 },
          ),
        );
        expect(outcome.error).toMatchObject({ name: 'AgentResultError', failure: 'no_result' });
        expect(classify(outcome.error)).toMatchObject({ kind: 'transient', retryable: true });
        expect(pids).toHaveLength(1);
        expect(isAlive(pids[0]!)).toBe(false);
      });
    });
  });
