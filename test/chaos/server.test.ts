import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChaosRequestRecord, startChaosServer } from '../../src/chaos/index.js';
import { anthropicBody, openaiBody, post, withChaos } from './helpers.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'recourse-chaos-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('startChaosServer', () => {
  it('binds 127.0.0.1 by default, on any free port', async () => {
    await withChaos({}, async (chaos) => {
      const address = chaos.server.address() as AddressInfo;
      expect(address.address).toBe('127.0.0.1');
      expect(address.port).toBe(chaos.port);
      expect(chaos.port).toBeGreaterThan(0);
      expect(chaos.url).toBe(`http://127.0.0.1:${chaos.port}`);
    });
  });

  it('binds the host it is given', async () => {
    await withChaos({ host: 'localhost' }, async (chaos) => {
      expect(['127.0.0.1', '::1']).toContain((chaos.server.address() as AddressInfo).address);
    });
  });

  it('rejects a bad port and a port in use', async () => {
    await expect(startChaosServer({ port: -1 })).rejects.toThrow(
      'startChaosServer: port must be an integer between 0 and 65535, got -1',
    );
    await expect(startChaosServer({ port: 1.5 })).rejects.toThrow('got 1.5');
    await expect(startChaosServer({ scenrio: {} } as never)).rejects.toThrow(
      'startChaosServer: unknown option "scenrio" (did you mean "scenario"?); known options: port, host, scenario, upstream, log, answers, onRequest, clock',
    );
    await expect(startChaosServer({ clock: { now: () => 0 } } as never)).rejects.toThrow(
      'startChaosServer: clock must be a Clock',
    );
    await expect(startChaosServer({ onRequest: 'log' } as never)).rejects.toThrow(
      'startChaosServer: onRequest must be a function, got "log"',
    );
    await withChaos({}, async (chaos) => {
      await expect(startChaosServer({ port: chaos.port })).rejects.toThrow(/EADDRINUSE/);
    });
  });

  it('close() ends stalled and keepalive streams and resolves promptly', async () => {
    const chaos = await startChaosServer({
      scenario: {
        rules: [
          { match: { api: 'anthropic' }, fault: { kind: 'stall', afterEvents: 1 } },
          {
            match: { api: 'openai' },
            fault: { kind: 'keepalive', afterEvents: 1, intervalMs: 10 },
          },
        ],
      },
    });
    const stalled = await post(chaos, '/v1/messages', anthropicBody({ stream: true }));
    const pinging = await post(chaos, '/v1/chat/completions', openaiBody({ stream: true }));
    const stalledJson = await post(chaos, '/v1/messages', anthropicBody());
    const bodies = [stalled, pinging, stalledJson].map((res) =>
      res.text().then(
        () => 'ended',
        () => 'failed',
      ),
    );
    const started = performance.now();
    await chaos.close();
    // Promptly: the streams never end on their own (quiet: a few ms).
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(await Promise.all(bodies)).toEqual(['failed', 'failed', 'failed']);
    expect(chaos.server.listening).toBe(false);
    await chaos.close();
  });

  it('records every request and appends it to the log file as JSON lines', async () => {
    const log = join(dir, 'requests.jsonl');
    const seen: ChaosRequestRecord[] = [];
    const scenario = {
      seed: 5,
      rules: [{ match: { model: 'claude-busy' }, fault: { kind: 'status' as const, status: 529 } }],
    };
    const before = Date.now();
    await withChaos({ scenario, log, onRequest: (r) => seen.push(r) }, async (chaos) => {
      await (await post(chaos, '/v1/messages', anthropicBody({ stream: true }))).text();
      await (await post(chaos, '/v1/messages', anthropicBody({ model: 'claude-busy' }))).text();
      await (await post(chaos, '/v1/chat/completions', openaiBody())).text();
      await (await post(chaos, '/v1/chat/completions', '{')).text();
      await (await fetch(`${chaos.url}/elsewhere?x=1`)).text();
      const expected = [
        {
          api: 'anthropic',
          path: '/v1/messages',
          model: 'claude-test',
          stream: true,
          fault: null,
          rule: null,
          status: 200,
        },
        {
          api: 'anthropic',
          path: '/v1/messages',
          model: 'claude-busy',
          stream: false,
          fault: 'status',
          rule: 0,
          status: 529,
        },
        {
          api: 'openai',
          path: '/v1/chat/completions',
          model: 'gpt-test',
          stream: false,
          fault: null,
          rule: null,
          status: 200,
        },
        {
          api: 'openai',
          path: '/v1/chat/completions',
          model: null,
          stream: false,
          fault: null,
          rule: null,
          status: 400,
        },
        {
          api: null,
          path: '/elsewhere',
          model: null,
          stream: false,
          fault: null,
          rule: null,
          status: 404,
        },
      ];
      expect(chaos.requests).toMatchObject(expected);
      for (const r of chaos.requests) {
        expect(r.at).toBeGreaterThanOrEqual(before);
        expect(r.at).toBeLessThanOrEqual(Date.now());
      }
      expect(seen).toEqual(chaos.requests);
    });
    const lines = (await readFile(log, 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(5);
    expect(lines.map((l) => JSON.parse(l) as ChaosRequestRecord)).toEqual(seen);

    // Appends: a second server adds its lines after the first one's.
    await withChaos({ log }, async (chaos) => {
      await (await post(chaos, '/v1/messages', anthropicBody())).text();
    });
    expect((await readFile(log, 'utf8')).trimEnd().split('\n')).toHaveLength(6);
  });

  it('fails to start when the log file cannot be written', async () => {
    await expect(startChaosServer({ log: join(dir, 'no', 'such', 'dir.jsonl') })).rejects.toThrow(
      /ENOENT/,
    );
  });

  it('inFlight counts open responses and drops when a client lets go of a stalled stream', async () => {
    await withChaos(
      {
        scenario: {
          rules: [{ match: { model: 'claude-stall' }, fault: { kind: 'stall', afterEvents: 1 } }],
        },
      },
      async (chaos) => {
        expect(chaos.inFlight).toBe(0);
        await (await post(chaos, '/v1/messages', anthropicBody())).text();
        const controller = new AbortController();
        const stalled = await fetch(`${chaos.url}/v1/messages`, {
          method: 'POST',
          body: JSON.stringify(anthropicBody({ model: 'claude-stall', stream: true })),
          signal: controller.signal,
        });
        const reader = stalled.body!.getReader();
        await reader.read();
        expect(chaos.inFlight).toBe(1);
        controller.abort();
        for (let i = 0; i < 500 && chaos.inFlight > 0; i++)
          await new Promise((resolve) => setTimeout(resolve, 2));
        expect(chaos.inFlight).toBe(0);
      },
    );
  });

  it('afterEvents may be a distribution: each stream breaks at its own point, the same for the same seed', async () => {
    const scenario = {
      seed: 4,
      rules: [
        {
          fault: {
            kind: 'truncate' as const,
            afterEvents: { uniform: [2, 30] as [number, number] },
          },
        },
      ],
    };
    const counts = () =>
      withChaos({ scenario, answers: { '*': { textTokens: 200 } } }, async (chaos) => {
        const out: number[] = [];
        for (let i = 0; i < 12; i++)
          out.push(
            (
              await (
                await post(chaos, '/v1/messages', anthropicBody({ max_tokens: 1000, stream: true }))
              ).text()
            ).split('\n\n').length - 1,
          );
        return out;
      });
    const first = await counts();
    expect(first.every((n) => n >= 2 && n < 30)).toBe(true);
    expect(new Set(first).size).toBeGreaterThan(4);
    expect(await counts()).toEqual(first);
  });
});
