import OpenAI from 'openai';
import { expect, it } from 'vitest';
import type { ChaosServer, ChaosServerOptions, Fault } from '../../src/chaos/index.js';
import { type Clock, isStallError, type StallError } from '../../src/index.js';
import { openAIClientOptions } from '../../src/openai/index.js';
import { VirtualClock } from '../../src/testing/index.js';
import { idleReference, outcome, socketsClosed, until, withChaos } from '../ai-sdk/helpers.js';

const ANSWER = 'Lisbon is sunny, hilly and old, with trams and tiles.';
const rule = (fault: Fault): ChaosServerOptions => ({
  answers: { '*': { text: ANSWER } },
  scenario: { rules: [{ fault }] },
});
const clientFor = (chaos: ChaosServer) =>
  new OpenAI(
    openAIClientOptions({ baseURL: `${chaos.url}/v1`, apiKey: 'test', logLevel: 'off' as const }),
  );
const stream = <T>(
  options: ChaosServerOptions,
  fn: (chaos: ChaosServer, client: OpenAI) => Promise<T>,
) => withChaos(options, (chaos) => fn(chaos, clientFor(chaos)));

/** One of the OpenAI stream helpers (streamChat, streamResponse), as the stall cases drive it. */
export interface StreamUnderTest {
  /** What one event of its wire is called in a title: 'chunk', 'event'. */
  unit: string;
  /** Runs one request through the helper with these options. */
  run(
    client: OpenAI,
    options: { idleMs?: number; clock?: Clock; onEvent?: (event: unknown) => void },
  ): Promise<unknown>;
  /** Events the stall and keep-alive faults let through before they stop the wire. */
  stallAfter: number;
  keepaliveAfter: number;
  /** With no options: where the wire goes quiet, the default limit that ends it, and the type of its last event when it matters. */
  defaults: Array<{
    afterEvents: number;
    limitMs: number;
    phase: string;
    why: string;
    lastType?: string;
  }>;
}

/** The stall cases both stream helpers share, as `it`s of the caller's describe. */
export function stallCases(api: StreamUnderTest): void {
  it(`stall after the first ${api.unit}s: StallError (idle) once idleMs passes, and the socket is closed`, async () => {
    await stream(rule({ kind: 'stall', afterEvents: api.stallAfter }), async (chaos, client) => {
      let lastEventAt = performance.now();
      const reference = idleReference(300);
      const onEvent = () => {
        lastEventAt = performance.now();
        reference.rearm();
      };
      const { error } = await outcome(api.run(client, { idleMs: 300, onEvent }));
      const endedAt = performance.now();
      expect(isStallError(error)).toBe(true);
      expect((error as StallError).phase).toBe('idle');
      expect(endedAt - lastEventAt).toBeGreaterThanOrEqual(295);
      // Fired with the reference timer, not a whole idle period after it; how close is the bench's
      // figure (stall-precision), this bound leaves room for a loaded machine.
      expect(reference.lateAt(endedAt)).toBeLessThan(250);
      await socketsClosed(chaos);
    });
  });

  it('keep-alive comments (and keepalive events) are not progress: a ping-only stream stalls', async () => {
    await stream(
      rule({ kind: 'keepalive', afterEvents: api.keepaliveAfter, intervalMs: 50 }),
      async (chaos, client) => {
        await expect(api.run(client, { idleMs: 300 })).rejects.toMatchObject({
          name: 'StallError',
          phase: 'idle',
        });
        await socketsClosed(chaos);
      },
    );
  });

  it.each(api.defaults)(
    'with no options, a stream $why stalls after $limitMs ms ($phase)',
    async ({ afterEvents, limitMs, phase, lastType }) => {
      await stream(rule({ kind: 'stall', afterEvents }), async (chaos, client) => {
        const clock = new VirtualClock();
        const events: unknown[] = [];
        const state: { done: boolean; error?: unknown } = { done: false };
        api.run(client, { clock, onEvent: (e) => events.push(e) }).then(
          () => (state.done = true),
          (error: unknown) => Object.assign(state, { done: true, error }),
        );
        await until(
          () => chaos.requests.length === 1 && events.length === afterEvents && clock.pending > 0,
        );
        await new Promise((resolve) => setTimeout(resolve, 50)); // nothing else is coming
        expect(events).toHaveLength(afterEvents);
        if (lastType !== undefined)
          expect((events.at(-1) as { type?: string }).type).toBe(lastType);
        await clock.advance(limitMs - 1);
        expect(state.done).toBe(false);
        await clock.advance(1);
        await until(() => state.done);
        expect(state.error).toMatchObject({ name: 'StallError', phase, limitMs });
        await socketsClosed(chaos);
      });
    },
  );
}
