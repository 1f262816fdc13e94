import { describe, expect, it } from 'vitest';
import type { ChaosApi, ChaosServer, Fault } from '../../src/chaos/index.js';
import {
  anthropicBody,
  openaiBody,
  parseSse,
  post,
  readBody,
  readFor,
  type SseEvent,
  withChaos,
} from './helpers.js';

export interface ApiCase {
  name: 'anthropic' | 'chat' | 'responses';
  api: ChaosApi;
  path: string;
  body: (stream: boolean) => Record<string, unknown>;
  isTerminal: (e: SseEvent) => boolean;
  isPing: (e: SseEvent) => boolean;
}

/** The Anthropic Messages API as the fault tests see it. */
export const ANTHROPIC: ApiCase = {
  name: 'anthropic',
  api: 'anthropic',
  path: '/v1/messages',
  body: (stream) => anthropicBody({ stream }),
  isTerminal: (e) => e.event === 'message_stop',
  isPing: (e) => e.event === 'ping' && e.data === '{"type":"ping"}',
};

/** OpenAI Chat Completions as the fault tests see it. */
export const OPENAI: ApiCase = {
  name: 'chat',
  api: 'openai',
  path: '/v1/chat/completions',
  body: (stream) => openaiBody({ stream }),
  isTerminal: (e) => e.data === '[DONE]',
  isPing: (e) => e.comment === ': ping' && e.data === '',
};

/** The OpenAI Responses API as the fault tests see it. */
export const RESPONSES: ApiCase = {
  name: 'responses',
  api: 'openai',
  path: '/v1/responses',
  body: (stream) => ({ model: 'gpt-test', input: 'Hello there', stream }),
  isTerminal: (e) => e.event === 'response.completed',
  isPing: (e) => e.comment === ': ping' && e.data === '',
};

function faulty(fault: Fault) {
  return { scenario: { seed: 7, rules: [{ match: {}, fault }] } };
}

async function healthyEventCount(c: ApiCase): Promise<number> {
  return withChaos(
    {},
    async (chaos) => parseSse(await (await post(chaos, c.path, c.body(true))).text()).length,
  );
}

/** Every fault kind against one API, JSON and SSE, over real HTTP. */
export function describeFaults(c: ApiCase): void {
  describe(`faults, ${c.name}`, () => {
    const send = (chaos: ChaosServer, stream: boolean) => post(chaos, c.path, c.body(stream));

    it('status: the error in the API shape, with retry-after and retry-after-ms, for JSON and SSE requests', async () => {
      await withChaos(
        faulty({ kind: 'status', status: 529, retryAfterS: 2, retryAfterMs: 1500 }),
        async (chaos) => {
          for (const stream of [false, true]) {
            const res = await send(chaos, stream);
            expect(res.status).toBe(529);
            expect(res.headers.get('retry-after')).toBe('2');
            expect(res.headers.get('retry-after-ms')).toBe('1500');
            const body = (await res.json()) as Record<string, Record<string, unknown>>;
            if (c.api === 'anthropic') {
              expect(body).toEqual({
                type: 'error',
                error: { type: 'overloaded_error', message: expect.stringContaining('Overloaded') },
              });
            } else {
              expect(body.error).toMatchObject({
                message: expect.any(String),
                type: 'server_error',
                code: null,
              });
            }
          }
          expect(chaos.requests.map((r) => [r.fault, r.status, r.rule])).toEqual([
            ['status', 529, 0],
            ['status', 529, 0],
          ]);
        },
      );
      const expected =
        c.api === 'anthropic'
          ? { 429: 'rate_limit_error', 500: 'api_error', 401: 'authentication_error' }
          : {};
      for (const [status, type] of Object.entries(expected)) {
        await withChaos(faulty({ kind: 'status', status: Number(status) }), async (chaos) => {
          const res = await send(chaos, false);
          expect(res.status).toBe(Number(status));
          expect(res.headers.get('retry-after')).toBeNull();
          expect(((await res.json()) as { error: { type: string } }).error.type).toBe(type);
        });
      }
      if (c.api === 'openai') {
        await withChaos(faulty({ kind: 'status', status: 429 }), async (chaos) => {
          const body = (await (await send(chaos, false)).json()) as {
            error: Record<string, unknown>;
          };
          expect(body.error).toMatchObject({
            type: 'requests',
            code: 'rate_limit_exceeded',
            message: expect.any(String),
          });
        });
      }
    });

    it('status 1xx: the informational response, then nothing', async () => {
      await withChaos(faulty({ kind: 'status', status: 103 }), async (chaos) => {
        const res = await fetch(chaos.url + c.path, {
          method: 'POST',
          body: JSON.stringify(c.body(true)),
          signal: AbortSignal.timeout(150),
        }).catch((e: unknown) => e);
        expect((res as Error).name).toBe('TimeoutError');
        expect(chaos.requests.map((r) => r.status)).toEqual([103]);
      });
    });

    it('latency: waits, then answers normally', async () => {
      await withChaos(faulty({ kind: 'latency', ms: 60 }), async (chaos) => {
        const started = performance.now();
        await Promise.all(
          [false, true].map(async (stream) => {
            const res = await send(chaos, stream);
            const { ended } = await readBody(res);
            expect(performance.now() - started).toBeGreaterThanOrEqual(55);
            expect(res.status).toBe(200);
            expect(ended).toBe(true);
          }),
        );
      });
    });

    it('stall: SSE sends afterEvents events and then nothing; JSON sends the headers only', async () => {
      await withChaos(faulty({ kind: 'stall', afterEvents: 2 }), async (chaos) => {
        const [stream, json] = await Promise.all([send(chaos, true), send(chaos, false)]);
        expect(stream.status).toBe(200);
        expect(json.status).toBe(200);
        const [sse, body] = await Promise.all([readBody(stream, 120), readBody(json, 120)]);
        expect(sse.ended).toBe(false);
        expect(parseSse(sse.text)).toHaveLength(2);
        expect(body).toEqual({ text: '', ended: false });
      });
    });

    it('stall: afterEvents beyond the stream stops right before its final event', async () => {
      const total = await healthyEventCount(c);
      await withChaos(faulty({ kind: 'stall', afterEvents: 1000 }), async (chaos) => {
        const sse = await readBody(await send(chaos, true), 120);
        expect(sse.ended).toBe(false);
        const events = parseSse(sse.text);
        expect(events).toHaveLength(total - 1);
        expect(events.some(c.isTerminal)).toBe(false);
      });
    });

    it('keepalive: after afterEvents events only pings, forever; JSON gets whitespace', async () => {
      await withChaos(
        faulty({ kind: 'keepalive', afterEvents: 2, intervalMs: 10 }),
        async (chaos) => {
          const [sse, json] = await Promise.all([
            send(chaos, true).then((res) => readFor(res, 150)),
            send(chaos, false).then((res) => readFor(res, 150)),
          ]);
          expect(sse.ended).toBe(false);
          const events = parseSse(sse.text);
          expect(events.length).toBeGreaterThan(5);
          expect(events.slice(0, 2).some(c.isPing)).toBe(false);
          expect(events.slice(2).every(c.isPing)).toBe(true);
          expect(events.some(c.isTerminal)).toBe(false);
          expect(json.ended).toBe(false);
          expect(json.text.length).toBeGreaterThan(2);
          expect(json.text.trim()).toBe('');
        },
      );
    });

    it('keepalive: afterEvents counts the pings of the stream itself', async () => {
      await withChaos(
        faulty({ kind: 'keepalive', afterEvents: 3, intervalMs: 1000 }),
        async (chaos) => {
          const events = parseSse((await readBody(await send(chaos, true), 120)).text);
          expect(events).toHaveLength(3);
          if (c.api === 'anthropic')
            expect(events.map((e) => e.event)).toEqual([
              'message_start',
              'content_block_start',
              'ping',
            ]);
        },
      );
    });

    it('truncate: ends cleanly after afterEvents events without the final event; JSON gets half a body', async () => {
      const total = await healthyEventCount(c);
      await withChaos(faulty({ kind: 'truncate', afterEvents: 3 }), async (chaos) => {
        const sse = await readBody(await send(chaos, true));
        expect(sse.ended).toBe(true);
        expect(parseSse(sse.text)).toHaveLength(3);

        const json = await readBody(await send(chaos, false));
        expect(json.ended).toBe(true);
        expect(json.text.length).toBeGreaterThan(10);
        expect(() => JSON.parse(json.text)).toThrow();
      });
      await withChaos(faulty({ kind: 'truncate', afterEvents: 500 }), async (chaos) => {
        const sse = await readBody(await send(chaos, true));
        expect(sse.ended).toBe(true);
        const events = parseSse(sse.text);
        expect(events).toHaveLength(total - 1);
        expect(events.some(c.isTerminal)).toBe(false);
      });
    });

    it('stream-error: afterEvents events, then the API’s in-stream error inside the HTTP 200, and the end', async () => {
      const total = await healthyEventCount(c);
      for (const [afterEvents, errorType, sent] of [
        [3, undefined, 3],
        [2, 'api_error', 2],
        [500, undefined, total - 1],
      ] as const) {
        const fault: Fault = {
          kind: 'stream-error',
          afterEvents,
          ...(errorType === undefined ? {} : { errorType }),
        };
        await withChaos(faulty(fault), async (chaos) => {
          const res = await send(chaos, true);
          expect(res.status).toBe(200);
          const sse = await readBody(res);
          expect(sse.ended).toBe(true);
          const events = parseSse(sse.text);
          expect(events).toHaveLength(sent + 1);
          expect(events.some(c.isTerminal)).toBe(false);
          const last = events.at(-1)!;
          const data = JSON.parse(last.data) as Record<string, unknown>;
          const type = errorType ?? (c.name === 'anthropic' ? 'overloaded_error' : 'server_error');
          const message = type === 'overloaded_error' ? 'Overloaded' : expect.any(String);
          if (c.name === 'anthropic') {
            expect(last.event).toBe('error');
            expect(data).toEqual({ type: 'error', error: { type, message } });
          } else if (c.name === 'chat') {
            expect(last.event).toBeNull();
            expect(data).toEqual({ error: { message, type, param: null, code: null } });
          } else {
            expect(last.event).toBe('error');
            expect(data).toEqual({
              type: 'error',
              code: type,
              message,
              param: null,
              sequence_number: sent,
            });
          }
          expect(chaos.requests.map((r) => [r.fault, r.status])).toEqual([['stream-error', 200]]);
        });
      }
    });

    it('stream-error on a JSON request: the same error as its HTTP status', async () => {
      await withChaos(faulty({ kind: 'stream-error', afterEvents: 2 }), async (chaos) => {
        const res = await send(chaos, false);
        const body = (await res.json()) as { error: Record<string, unknown> };
        if (c.name === 'anthropic') {
          expect(res.status).toBe(529);
          expect(body).toEqual({
            type: 'error',
            error: { type: 'overloaded_error', message: 'Overloaded' },
          });
        } else {
          expect(res.status).toBe(500);
          expect(body.error).toMatchObject({ type: 'server_error', message: expect.any(String) });
        }
        expect(chaos.requests.map((r) => [r.fault, r.status])).toEqual([
          ['stream-error', res.status],
        ]);
      });
    });

    it('reset: the socket is destroyed without an answer', async () => {
      await withChaos(faulty({ kind: 'reset' }), async (chaos) => {
        for (const stream of [false, true]) await expect(send(chaos, stream)).rejects.toThrow();
        expect(chaos.requests.map((r) => [r.fault, r.status])).toEqual([
          ['reset', null],
          ['reset', null],
        ]);
      });
    });

    it('empty: a well-formed answer without content', async () => {
      await withChaos(faulty({ kind: 'empty' }), async (chaos) => {
        const json = (await (await send(chaos, false)).json()) as Record<string, unknown>;
        const events = parseSse(await (await send(chaos, true)).text());
        expect(events.some(c.isTerminal)).toBe(true);
        const data = events
          .filter((e) => e.data !== '' && e.data !== '[DONE]')
          .map((e) => JSON.parse(e.data) as Record<string, unknown>);
        if (c.name === 'anthropic') {
          expect(json).toMatchObject({
            type: 'message',
            content: [],
            stop_reason: 'end_turn',
            usage: { output_tokens: 0 },
          });
          expect(events.map((e) => e.event)).toEqual([
            'message_start',
            'ping',
            'message_delta',
            'message_stop',
          ]);
        } else if (c.name === 'responses') {
          expect(json).toMatchObject({
            object: 'response',
            status: 'completed',
            output: [],
            usage: { output_tokens: 0 },
          });
          expect(events.map((e) => e.event)).toEqual([
            'response.created',
            'response.in_progress',
            'response.completed',
          ]);
        } else {
          expect(json).toMatchObject({
            object: 'chat.completion',
            choices: [{ message: { content: '' }, finish_reason: 'stop' }],
          });
          const text = data
            .map(
              (d) => (d.choices as Array<{ delta: { content?: string } }>)[0]?.delta.content ?? '',
            )
            .join('');
          expect(text).toBe('');
        }
      });
    });

    it('malformed: status 200 and a body that does not parse', async () => {
      await withChaos(faulty({ kind: 'malformed' }), async (chaos) => {
        const res = await send(chaos, false);
        expect(res.status).toBe(200);
        const text = await res.text();
        expect(text.startsWith('{')).toBe(true);
        expect(() => JSON.parse(text)).toThrow();

        const stream = await send(chaos, true);
        expect(stream.status).toBe(200);
        const events = parseSse(await stream.text());
        expect(events.length).toBeGreaterThan(0);
        expect(() => {
          for (const e of events) JSON.parse(e.data);
        }).toThrow();
      });
    });

    it('slow: waits perEventMs before each event, then completes', async () => {
      await withChaos(faulty({ kind: 'slow', perEventMs: 10 }), async (chaos) => {
        let started = performance.now();
        const sse = await readBody(await send(chaos, true));
        const events = parseSse(sse.text);
        expect(sse.ended).toBe(true);
        expect(events.some(c.isTerminal)).toBe(true);
        expect(performance.now() - started).toBeGreaterThanOrEqual(events.length * 10 - 5);

        started = performance.now();
        const json = await send(chaos, false);
        expect(JSON.parse(await json.text())).toBeTypeOf('object');
        expect(performance.now() - started).toBeGreaterThanOrEqual(4 * 10 - 5);
      });
    });
  });
}
