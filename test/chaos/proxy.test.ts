import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { ChaosServer, ChaosServerOptions, Fault } from '../../src/chaos/index.js';
import {
  anthropicBody,
  dataOf,
  openaiBody,
  parseSse,
  post,
  readBody,
  withChaos,
} from './helpers.js';

const answers = { '*': { text: 'Straight from the upstream, in several words of text.' } };

/** A proxy chaos server in front of an upstream chaos server. */
function withProxy(
  proxy: Omit<ChaosServerOptions, 'upstream'>,
  fn: (proxy: ChaosServer, upstream: ChaosServer) => Promise<void>,
  upstream: ChaosServerOptions = { answers },
): Promise<void> {
  return withChaos(upstream, (up) =>
    withChaos({ ...proxy, upstream: up.url }, (front) => fn(front, up)),
  );
}

const only = (fault: Fault) => ({ scenario: { rules: [{ fault }] } });

describe('proxy mode', () => {
  it('forwards JSON and SSE answers of both APIs from the upstream', async () => {
    await withProxy({}, async (proxy, upstream) => {
      const json = await post(proxy, '/v1/messages', anthropicBody());
      expect(json.status).toBe(200);
      expect(json.headers.get('request-id')).toMatch(/^req_/);
      expect(await json.json()).toMatchObject({
        type: 'message',
        content: [{ type: 'text', text: answers['*'].text }],
      });

      const sse = await post(proxy, '/v1/messages', anthropicBody({ stream: true }));
      expect(sse.headers.get('content-type')).toContain('text/event-stream');
      const events = parseSse(await sse.text());
      expect(events.at(-1)!.event).toBe('message_stop');
      const text = dataOf(events)
        .filter((d) => d.type === 'content_block_delta')
        .map((d) => (d.delta as { text: string }).text)
        .join('');
      expect(text).toBe(answers['*'].text);

      const chat = (await (await post(proxy, '/v1/chat/completions', openaiBody())).json()) as {
        choices: Array<{ message: { content: string } }>;
      };
      expect(chat.choices[0]!.message.content).toBe(answers['*'].text);
      const chunks = parseSse(
        await (await post(proxy, '/v1/chat/completions', openaiBody({ stream: true }))).text(),
      );
      expect(chunks.at(-1)!.data).toBe('[DONE]');

      const count = await post(proxy, '/v1/messages/count_tokens', anthropicBody());
      expect(((await count.json()) as { input_tokens: number }).input_tokens).toBeGreaterThan(0);

      expect(upstream.requests.map((r) => [r.api, r.stream, r.status])).toEqual([
        ['anthropic', false, 200],
        ['anthropic', true, 200],
        ['openai', false, 200],
        ['openai', true, 200],
        ['anthropic', false, 200],
      ]);
      expect(proxy.requests.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    });
  });

  it('decides status, reset, empty and malformed faults itself, without calling the upstream', async () => {
    for (const fault of [
      { kind: 'status', status: 529 },
      { kind: 'reset' },
      { kind: 'empty' },
      { kind: 'malformed' },
    ] as Fault[]) {
      await withProxy(only(fault), async (proxy, upstream) => {
        const res = await post(proxy, '/v1/messages', anthropicBody()).catch(() => undefined);
        if (fault.kind === 'status') expect(res?.status).toBe(529);
        if (fault.kind === 'reset') expect(res).toBeUndefined();
        if (fault.kind === 'empty') expect(await res?.json()).toMatchObject({ content: [] });
        if (fault.kind === 'malformed') await expect(res!.json()).rejects.toThrow();
        expect(upstream.requests).toEqual([]);
      });
    }
  });

  it('applies stream faults to the upstream answer, counting its events', async () => {
    await withProxy(only({ kind: 'stall', afterEvents: 2 }), async (proxy, upstream) => {
      const sse = await readBody(
        await post(proxy, '/v1/messages', anthropicBody({ stream: true })),
        150,
      );
      expect(sse.ended).toBe(false);
      expect(parseSse(sse.text).map((e) => e.event)).toEqual([
        'message_start',
        'content_block_start',
      ]);
      expect(upstream.requests).toHaveLength(1);
      const json = await readBody(await post(proxy, '/v1/messages', anthropicBody()), 150);
      expect(json).toEqual({ text: '', ended: false });
    });
    await withProxy(only({ kind: 'truncate', afterEvents: 100 }), async (proxy) => {
      const sse = await readBody(
        await post(proxy, '/v1/chat/completions', openaiBody({ stream: true })),
      );
      expect(sse.ended).toBe(true);
      const events = parseSse(sse.text);
      expect(events.length).toBeGreaterThan(3);
      expect(events.some((e) => e.data === '[DONE]')).toBe(false);
      const json = await readBody(await post(proxy, '/v1/chat/completions', openaiBody()));
      expect(() => JSON.parse(json.text)).toThrow();
    });
    await withProxy(only({ kind: 'keepalive', afterEvents: 1, intervalMs: 20 }), async (proxy) => {
      const res = await post(proxy, '/v1/messages', anthropicBody({ stream: true }));
      const reader = res.body!.getReader();
      let text = '';
      while ((text.match(/event: ping/g) ?? []).length < 4)
        text += new TextDecoder().decode((await reader.read()).value);
      await reader.cancel();
      expect(text.startsWith('event: message_start')).toBe(true);
    });
    await withProxy(only({ kind: 'latency', ms: 60 }), async (proxy) => {
      const started = performance.now();
      expect((await post(proxy, '/v1/messages', anthropicBody())).status).toBe(200);
      expect(performance.now() - started).toBeGreaterThanOrEqual(55);
    });
  });

  it('passes upstream errors and faults through untouched', async () => {
    const upstream = {
      answers,
      scenario: {
        rules: [
          {
            match: { model: 'busy' },
            fault: { kind: 'status' as const, status: 529, retryAfterS: 3 },
          },
          { match: { model: 'cut' }, fault: { kind: 'truncate' as const, afterEvents: 3 } },
        ],
      },
    };
    await withProxy(
      {},
      async (proxy) => {
        const busy = await post(proxy, '/v1/messages', anthropicBody({ model: 'busy' }));
        expect(busy.status).toBe(529);
        expect(busy.headers.get('retry-after')).toBe('3');
        expect(await busy.json()).toMatchObject({
          type: 'error',
          error: { type: 'overloaded_error' },
        });
        const cut = await readBody(
          await post(proxy, '/v1/messages', anthropicBody({ model: 'cut', stream: true })),
        );
        expect(cut.ended).toBe(true);
        expect(parseSse(cut.text)).toHaveLength(3);
        expect(proxy.requests.map((r) => r.status)).toEqual([529, 200]);
      },
      upstream,
    );
  });

  it('forwards path, query string, headers and unknown paths; strips hop-by-hop headers', async () => {
    const seen: Array<{ method: string; url: string; headers: IncomingHttpHeaders; body: string }> =
      [];
    const raw = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        res.writeHead(req.url?.startsWith('/base/v1/models') ? 404 : 200, {
          'content-type': 'application/json',
          'x-upstream': 'yes',
        });
        res.end(
          req.url?.startsWith('/base/v1/models')
            ? '{"error":"none"}'
            : '{"type":"message","content":[]}',
        );
      });
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    try {
      const upstream = `http://127.0.0.1:${(raw.address() as AddressInfo).port}/base/`;
      const scenario = {
        rules: [{ match: { model: 'none' }, fault: { kind: 'latency' as const, ms: 1 } }],
      };
      await withChaos({ upstream, scenario }, async (proxy) => {
        const res = await post(proxy, '/v1/messages?beta=true', anthropicBody(), {
          'x-api-key': 'sk-test',
          'anthropic-version': '2023-06-01',
          'x-chaos-rule': '0',
          connection: 'keep-alive',
        });
        expect(res.status).toBe(200);
        expect(res.headers.get('x-upstream')).toBe('yes');
        expect(await res.json()).toEqual({ type: 'message', content: [] });
        const models = await fetch(`${proxy.url}/v1/models?limit=2`, {
          headers: { 'x-api-key': 'sk-test' },
        });
        expect(models.status).toBe(404);
        expect(await models.json()).toEqual({ error: 'none' });
        expect(proxy.requests.map((r) => [r.api, r.path, r.fault, r.status])).toEqual([
          ['anthropic', '/v1/messages', 'latency', 200],
          [null, '/v1/models', null, 404],
        ]);
      });
      expect(seen.map((s) => [s.method, s.url])).toEqual([
        ['POST', '/base/v1/messages?beta=true'],
        ['GET', '/base/v1/models?limit=2'],
      ]);
      expect(seen[0]!.headers).toMatchObject({
        'x-api-key': 'sk-test',
        'anthropic-version': '2023-06-01',
        'accept-encoding': 'identity',
      });
      expect(seen[0]!.headers.host).toBe(new URL(upstream).host);
      expect(seen[0]!.headers['x-chaos-rule']).toBeUndefined();
      expect(JSON.parse(seen[0]!.body)).toEqual(anthropicBody());
    } finally {
      await new Promise((resolve) => raw.close(resolve));
    }
  });

  it('answers 502 in the API error shape when the upstream is unreachable', async () => {
    const closed = await withChaos({}, async (chaos) => chaos.url);
    await withChaos({ upstream: closed }, async (proxy) => {
      const res = await post(proxy, '/v1/messages', anthropicBody());
      expect(res.status).toBe(502);
      expect(await res.json()).toMatchObject({
        type: 'error',
        error: { type: 'api_error', message: expect.stringContaining('ECONNREFUSED') },
      });
      const chat = await post(proxy, '/v1/chat/completions', openaiBody());
      expect(chat.status).toBe(502);
      expect(await chat.json()).toMatchObject({ error: { type: 'server_error' } });
    });
  });
});
