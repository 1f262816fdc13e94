import { describe, expect, it } from 'vitest';
import type { Distribution, Scenario } from '../../src/chaos/index.js';
import { sample } from '../../src/chaos/distribution.js';
import { seededRandom } from '../../src/random/seeded-random.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { anthropicBody, parseSse, post, withChaos } from './helpers.js';

const draws = (d: Distribution, n = 20_000, seed = 7) => {
  const random = seededRandom(seed);
  return Array.from({ length: n }, () => sample(d, random));
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Resolves once the server has started a wait on the virtual clock. */
async function timerStarted(clock: VirtualClock): Promise<void> {
  for (let i = 0; i < 2000 && clock.pending === 0; i++)
    await new Promise((resolve) => setTimeout(resolve, 1));
  expect(clock.pending).toBeGreaterThan(0);
}

// A read asked for but not answered yet stays with its reader: the next look takes it over, so
// no chunk is ever lost between two looks.
type ReadResult = Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']>>;
const pendingReads = new WeakMap<ReadableStreamDefaultReader<Uint8Array>, Promise<ReadResult>>();

/** Reads what arrives within `ms` of real time (the server waits on virtual time meanwhile). */
async function readSome(reader: ReadableStreamDefaultReader<Uint8Array>, ms = 40): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  const deadline = Date.now() + ms;
  for (;;) {
    const pending = pendingReads.get(reader) ?? reader.read();
    pendingReads.set(reader, pending);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), Math.max(0, deadline - Date.now()));
    });
    const chunk = await Promise.race([pending, late]);
    clearTimeout(timer);
    if (chunk === 'late') return text;
    pendingReads.delete(reader);
    if (chunk.done) return text;
    text += decoder.decode(chunk.value, { stream: true });
  }
}

/** Reads until `done(text)` holds (or the stream ends): what a positive expectation waits for. */
async function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  done: (text: string) => boolean,
): Promise<string> {
  let text = '';
  while (!done(text)) {
    const more = await readSome(reader, 1000);
    if (more === '' && !pendingReads.has(reader)) break;
    text += more;
  }
  return text;
}

const frames = (n: number) => (text: string) => parseSse(text).length >= n;

describe('distributions', () => {
  it('draws from each shape as documented, deterministically from the seed', () => {
    expect(draws(42, 3)).toEqual([42, 42, 42]);
    const uniform = draws({ uniform: [10, 20] });
    expect(Math.min(...uniform)).toBeGreaterThanOrEqual(10);
    expect(Math.max(...uniform)).toBeLessThan(20);
    expect(mean(uniform)).toBeCloseTo(15, 0);
    expect(mean(draws({ exponential: { mean: 50 } }))).toBeGreaterThan(48);
    expect(mean(draws({ exponential: { mean: 50 } }))).toBeLessThan(52);
    expect(Math.max(...draws({ exponential: { mean: 50, max: 120 } }))).toBe(120);
    const lognormal = draws({ lognormal: { median: 200, sigma: 1 } });
    expect(median(lognormal)).toBeGreaterThan(190);
    expect(median(lognormal)).toBeLessThan(210);
    expect(Math.max(...lognormal)).toBeGreaterThan(2000);
    expect(Math.max(...draws({ lognormal: { median: 200, sigma: 1, max: 900 } }))).toBe(900);
    const tail = draws({
      mix: [
        { weight: 95, ms: 40 },
        { weight: 5, ms: 400 },
      ],
    });
    expect(tail.filter((x) => x === 400).length / tail.length).toBeCloseTo(0.05, 2);
    expect(tail.every((x) => x === 40 || x === 400)).toBe(true);
    expect(draws({ lognormal: { median: 200, sigma: 1 } }, 5, 3)).toEqual(
      draws({ lognormal: { median: 200, sigma: 1 } }, 5, 3),
    );
  });
});

describe('pacing and latency on the server’s clock', () => {
  it('waits firstEventMs after the headers, then betweenEventsMs before each later event', async () => {
    const clock = new VirtualClock();
    const scenario: Scenario = {
      pacing: [{ match: { model: 'claude-slow' }, firstEventMs: 1000, betweenEventsMs: 300 }],
    };
    await withChaos({ scenario, clock }, async (chaos) => {
      const res = await post(
        chaos,
        '/v1/messages',
        anthropicBody({ model: 'claude-slow', stream: true }),
      );
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      await timerStarted(clock);
      await clock.advance(999);
      expect(await readSome(reader)).toBe('');
      await clock.advance(1);
      expect(parseSse(await readUntil(reader, frames(1))).map((e) => e.event)).toEqual([
        'message_start',
      ]);
      await timerStarted(clock);
      await clock.advance(299);
      expect(await readSome(reader)).toBe('');
      await clock.advance(1);
      expect(parseSse(await readUntil(reader, frames(1))).map((e) => e.event)).toEqual([
        'content_block_start',
      ]);
      await reader.cancel();

      // Another model is not paced: the whole stream at once, no timer.
      const fast = await post(
        chaos,
        '/v1/messages',
        anthropicBody({ model: 'claude-fast', stream: true }),
      );
      expect(parseSse(await fast.text()).at(-1)!.event).toBe('message_stop');
    });
  });

  it('a JSON answer arrives after the whole time its stream would take', async () => {
    const clock = new VirtualClock();
    // Three words: one text delta, so the stream has 7 events (message_start, block start, ping,
    // delta, block stop, message_delta, message_stop) and takes 500 + 6 × 100 ms.
    const scenario: Scenario = { pacing: [{ firstEventMs: 500, betweenEventsMs: 100 }] };
    await withChaos(
      { scenario, answers: { '*': { text: 'Three short words.' } }, clock },
      async (chaos) => {
        const answered = post(chaos, '/v1/messages', anthropicBody()).then(() => 'answered');
        await timerStarted(clock);
        await clock.advance(1099);
        expect(
          await Promise.race([
            answered,
            new Promise((resolve) => setTimeout(() => resolve('waiting'), 40)),
          ]),
        ).toBe('waiting');
        await clock.advance(1);
        expect(await answered).toBe('answered');
      },
    );
  });

  it('latency with headersFirst: the headers at once, the first event after ms; ms may be a distribution', async () => {
    const clock = new VirtualClock();
    const scenario: Scenario = {
      rules: [{ fault: { kind: 'latency', ms: 2000, headersFirst: true } }],
    };
    await withChaos({ scenario, clock }, async (chaos) => {
      const res = await post(chaos, '/v1/messages', anthropicBody({ stream: true }));
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      await timerStarted(clock);
      await clock.advance(1999);
      expect(await readSome(reader)).toBe('');
      await clock.advance(1);
      const rest = await readUntil(reader, (text) => text.includes('event: message_stop'));
      expect(parseSse(rest).at(-1)!.event).toBe('message_stop');
      expect(chaos.requests.map((r) => [r.fault, r.status])).toEqual([['latency', 200]]);
    });
    // Without headersFirst the headers wait too; the draw comes from the distribution.
    const clock2 = new VirtualClock();
    const tail: Scenario = {
      rules: [{ fault: { kind: 'latency', ms: { uniform: [3000, 3000] } } }],
    };
    await withChaos({ scenario: tail, clock: clock2 }, async (chaos) => {
      const answered = post(chaos, '/v1/messages', anthropicBody({ stream: true })).then(
        () => 'answered',
      );
      await timerStarted(clock2);
      await clock2.advance(2999);
      expect(
        await Promise.race([
          answered,
          new Promise((resolve) => setTimeout(() => resolve('waiting'), 40)),
        ]),
      ).toBe('waiting');
      await clock2.advance(1);
      expect(await answered).toBe('answered');
    });
  });

  it('pacing draws do not shift the rules’ probability rolls', async () => {
    const rules: Scenario['rules'] = [{ fault: { kind: 'status', status: 529 }, probability: 0.5 }];
    const statuses = async (scenario: Scenario) =>
      withChaos({ scenario }, async (chaos) => {
        for (let i = 0; i < 24; i++)
          await (await post(chaos, '/v1/messages', anthropicBody({ stream: true }))).text();
        return chaos.requests.map((r) => r.status);
      });
    const plain = await statuses({ seed: 11, rules });
    expect(new Set(plain)).toEqual(new Set([200, 529]));
    expect(
      await statuses({ seed: 11, rules, pacing: [{ betweenEventsMs: { uniform: [0, 1] } }] }),
    ).toEqual(plain);
  });
});
