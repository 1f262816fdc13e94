import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'vitest';
import { anthropicClientOptions } from '../../src/anthropic/index.js';
import {
  type ChaosServer,
  type ChaosServerOptions,
  startChaosServer,
} from '../../src/chaos/index.js';
import type { RecourseEventMap } from '../../src/index.js';

// Shared by the resumption tests: a chaos server per test, what an onEvent consumer sees, and the
// check that a spliced event sequence is one message.

export type Event = Anthropic.MessageStreamEvent;
export type ResumeEvent = RecourseEventMap['resume'];

export const question = (n = 0): Anthropic.MessageParam[] => [
  { role: 'user', content: `Question ${n}: explain resumable streams.` },
];
export const body = (
  n = 0,
  extra: Partial<Anthropic.MessageStreamParams> = {},
): Anthropic.MessageStreamParams => ({
  model: 'claude-test',
  max_tokens: 8192,
  messages: question(n),
  ...extra,
});
export const clientFor = (chaos: ChaosServer) =>
  new Anthropic(
    anthropicClientOptions({ baseURL: chaos.url, apiKey: 'test', logLevel: 'off' as const }),
  );

export async function withChaos<T>(
  options: ChaosServerOptions,
  fn: (chaos: ChaosServer, client: Anthropic) => Promise<T>,
): Promise<T> {
  const chaos = await startChaosServer({ port: 0, ...options });
  try {
    return await fn(chaos, clientFor(chaos));
  } finally {
    await chaos.close();
  }
}

export const textOf = (m: Anthropic.Message): string =>
  m.content.map((b) => (b.type === 'text' ? b.text : '')).join('');

/** What an onEvent consumer sees: the events, the text deltas joined, and the check that the sequence is one message. */
export function consumer() {
  const events: Event[] = [];
  return {
    events,
    onEvent: (e: Event) => events.push(e),
    text: () =>
      events
        .filter((e) => e.type === 'content_block_delta' && e.delta.type === 'text_delta')
        .map((e) => (e as { delta: { text: string } }).delta.text)
        .join(''),
  };
}

/** One consistent sequence: one message_start first, blocks opened and closed in order with indexes 0, 1, 2…, one message_delta, message_stop last. */
export function expectOneMessage(events: readonly Event[]): void {
  const types = events.map((e) => e.type);
  expect(types.filter((t) => t === 'message_start')).toHaveLength(1);
  expect(types[0]).toBe('message_start');
  expect(types.at(-1)).toBe('message_stop');
  expect(types.filter((t) => t === 'message_delta')).toHaveLength(1);
  expect(types.filter((t) => t === 'message_stop')).toHaveLength(1);
  let open: number | undefined;
  let next = 0;
  for (const e of events) {
    if (e.type === 'content_block_start') {
      expect(open, 'a block starts while another is open').toBeUndefined();
      expect(e.index).toBe(next);
      open = e.index;
    } else if (e.type === 'content_block_delta') {
      expect(e.index).toBe(open);
    } else if (e.type === 'content_block_stop') {
      expect(e.index).toBe(open);
      open = undefined;
      next++;
    }
  }
  expect(open).toBeUndefined();
}

/** A client that records the body of every request it sends. */
export function recording(client: Anthropic) {
  const bodies: Anthropic.MessageStreamParams[] = [];
  return {
    bodies,
    client: {
      messages: {
        stream: (b: Anthropic.MessageStreamParams, o?: Anthropic.RequestOptions) => {
          bodies.push(b);
          return client.messages.stream(b, o);
        },
      },
    },
  };
}

/** The text the first `events` SSE events of the unbroken answer carry (what a break after them had sent). */
export async function sentBefore(chaos: ChaosServer, events: number, n = 0): Promise<string> {
  const res = await fetch(`${chaos.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body(n), stream: true }),
  });
  const frames = (await res.text()).split('\n\n').filter((f) => f.trim() !== '');
  return frames
    .slice(0, events)
    .map(
      (f) =>
        JSON.parse(f.slice(f.indexOf('data:') + 5)) as { type: string; delta?: { text?: string } },
    )
    .map((d) => (d.type === 'content_block_delta' ? (d.delta?.text ?? '') : ''))
    .join('');
}
