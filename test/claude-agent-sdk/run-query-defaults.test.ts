import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import { type QueryLike, runQuery } from '../../src/claude-agent-sdk/index.js';
import { VirtualClock } from '../../src/testing/index.js';

// The message shapes (type, subtype, event) are those the real CLI sends, measured against the
// chaos server (see docs/claude-agent-sdk.md); fields that do not matter here are left out.
const init = { type: 'system', subtype: 'init' };
const textDelta = {
  type: 'stream_event',
  event: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Lis' } },
};
const thinkingDelta = {
  type: 'stream_event',
  event: {
    type: 'content_block_delta',
    index: 0,
    delta: { type: 'thinking_delta', thinking: 'hmm' },
  },
};
const toolCall = {
  type: 'assistant',
  message: { content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: {} }] },
};
const heartbeat = (s: number) => ({
  type: 'tool_progress',
  tool_name: 'Bash',
  tool_use_id: 't1',
  elapsed_time_seconds: s,
  heartbeat: true,
});
const success = { type: 'result', subtype: 'success', is_error: false, result: 'done' };

/** A scripted query: each step waits `afterMs` of virtual time, then yields; then it hangs (or ends). */
function scripted(
  clock: VirtualClock,
  steps: Array<{ afterMs: number; message: object }>,
  closed: { count: number },
): QueryLike {
  async function* run(): AsyncGenerator<SDKMessage> {
    for (const step of steps) {
      if (step.afterMs > 0) await clock.sleep(step.afterMs);
      yield step.message as SDKMessage;
    }
    await new Promise(() => {});
  }
  const it = run();
  return Object.assign(it, { close: () => void closed.count++ });
}

function track<T>(promise: Promise<T>): { done: boolean; value?: T; error?: unknown } {
  const state: { done: boolean; value?: T; error?: unknown } = { done: false };
  promise.then(
    (value) => Object.assign(state, { done: true, value }),
    (error: unknown) => Object.assign(state, { done: true, error }),
  );
  return state;
}

async function stallAt(
  steps: Array<{ afterMs: number; message: object }>,
  options: Parameters<typeof runQuery>[1] = {},
) {
  const clock = new VirtualClock();
  const closed = { count: 0 };
  const state = track(
    runQuery({ prompt: 'p' }, { ...options, clock, query: () => scripted(clock, steps, closed) }),
  );
  return { clock, closed, state };
}

describe('runQuery: stall detection on by default (virtual time)', () => {
  it('no first message within 60 s: first-item stall (the CLI starts in under 2 s)', async () => {
    const { clock, closed, state } = await stallAt([]);
    await clock.advance(59_999);
    expect(state.done).toBe(false);
    await clock.advance(1);
    expect(state.error).toMatchObject({ name: 'StallError', phase: 'first-item', limitMs: 60_000 });
    expect(closed.count).toBe(1);
  });

  it.each([
    { why: 'after a text delta', last: textDelta, limitMs: 60_000 },
    {
      why: 'after a tool call (the tool runs, the CLI may wait on the API)',
      last: toolCall,
      limitMs: 300_000,
    },
    { why: 'after a thinking delta', last: thinkingDelta, limitMs: 300_000 },
  ])('silent $why: an idle stall after $limitMs ms', async ({ last, limitMs }) => {
    const { clock, state } = await stallAt([
      { afterMs: 500, message: init },
      { afterMs: 1_000, message: last },
    ]);
    await clock.advance(1_500 + limitMs - 1);
    expect(state.done).toBe(false);
    await clock.advance(1);
    expect(state.error).toMatchObject({ name: 'StallError', phase: 'idle', limitMs, items: 2 });
  });

  it('thinking and tool runs may be quiet up to 300 s; a tool run with heartbeats every 30 s never stalls', async () => {
    const beats = Array.from({ length: 20 }, (_, i) => ({
      afterMs: 30_000,
      message: heartbeat(30 * (i + 1)),
    }));
    const { clock, state } = await stallAt([
      { afterMs: 500, message: init },
      { afterMs: 290_000, message: thinkingDelta }, // a long silent think before the first delta
      { afterMs: 299_000, message: toolCall },
      ...beats, // ten minutes of tool run
      { afterMs: 299_000, message: success },
    ]);
    await clock.advance(500 + 290_000 + 299_000 + 20 * 30_000 + 299_000);
    expect(state.done).toBe(true);
    expect(state.error).toBeUndefined();
    expect(state.value).toMatchObject({ result: 'done' });
  });

  it('an explicit idleMs applies after every message, and the first message gets at least 60 s', async () => {
    const { clock, state } = await stallAt([{ afterMs: 45_000, message: init }], {
      idleMs: 10_000,
    });
    await clock.advance(45_000 + 9_999);
    expect(state.done).toBe(false);
    await clock.advance(1);
    expect(state.error).toMatchObject({ name: 'StallError', phase: 'idle', limitMs: 10_000 });
  });

  it('Infinity turns the limits off: no timer at all', async () => {
    const controller = new AbortController();
    const { clock, state } = await stallAt([{ afterMs: 500, message: init }], {
      firstItemMs: Number.POSITIVE_INFINITY,
      idleMs: Number.POSITIVE_INFINITY,
      signal: controller.signal,
    });
    await clock.advance(30 * 86_400_000);
    expect(state.done).toBe(false);
    expect(clock.pending).toBe(0);
    controller.abort();
    await new Promise((resolve) => setImmediate(resolve));
    expect((state.error as Error).name).toBe('AbortError');
  });

  it('firstItemMs is the first-message limit; the old name firstMessageMs is refused', async () => {
    const { clock, state } = await stallAt([], { firstItemMs: 5_000 });
    await clock.advance(5_000);
    expect(state.error).toMatchObject({ name: 'StallError', phase: 'first-item', limitMs: 5_000 });
    await expect(runQuery({ prompt: 'p' }, { firstMessageMs: 5 } as never)).rejects.toThrow(
      /^runQuery: unknown option "firstMessageMs"/,
    );
    await expect(runQuery({ prompt: 'p' }, { firstItemMs: -1 })).rejects.toThrow(
      /firstItemMs must be a number of ms >= 1/,
    );
  });

  it('validate takes a Standard Schema too', async () => {
    const { z } = await import('zod');
    const clock = new VirtualClock();
    const closed = { count: 0 };
    const schema = z.object({ result: z.string().min(10, 'answer too short') });
    const run = runQuery(
      { prompt: 'p' },
      {
        clock,
        validate: schema,
        query: () =>
          scripted(
            clock,
            [
              { afterMs: 0, message: init },
              { afterMs: 0, message: success },
            ],
            closed,
          ),
      },
    );
    await expect(run).rejects.toMatchObject({
      name: 'InvalidResultError',
      issues: [{ message: 'answer too short' }],
    });
  });
});
