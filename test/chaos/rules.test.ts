import { describe, expect, it } from 'vitest';
import type { ChaosServer, Scenario } from '../../src/chaos/index.js';
import { anthropicBody, openaiBody, post, withChaos } from './helpers.js';

async function statuses(
  chaos: ChaosServer,
  count: number,
  model = 'claude-test',
): Promise<number[]> {
  const result: number[] = [];
  for (let i = 0; i < count; i++) {
    const res = await post(chaos, '/v1/messages', anthropicBody({ model }));
    await res.arrayBuffer();
    result.push(res.status);
  }
  return result;
}

describe('scenario rules', () => {
  it('rolls probabilities from the seed: same scenario and order, same faults', async () => {
    const scenario = (seed: number): Scenario => ({
      seed,
      rules: [{ match: {}, fault: { kind: 'status', status: 503 }, probability: 0.5 }],
    });
    const a = await withChaos({ scenario: scenario(42) }, (chaos) => statuses(chaos, 24));
    const b = await withChaos({ scenario: scenario(42) }, (chaos) => statuses(chaos, 24));
    const c = await withChaos({ scenario: scenario(43) }, (chaos) => statuses(chaos, 24));
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    const faults = a.filter((s) => s === 503).length;
    expect(faults).toBeGreaterThan(4);
    expect(faults).toBeLessThan(20);
  });

  it('honours probability 0 and 1 without drawing', async () => {
    const scenario: Scenario = {
      rules: [
        { match: {}, fault: { kind: 'status', status: 500 }, probability: 0 },
        { match: {}, fault: { kind: 'status', status: 502 }, probability: 1 },
      ],
    };
    expect(await withChaos({ scenario }, (chaos) => statuses(chaos, 5))).toEqual([
      502, 502, 502, 502, 502,
    ]);
  });

  it('applies a rule `times` times, then the next matching rule or a healthy answer', async () => {
    const scenario: Scenario = {
      rules: [
        { match: {}, fault: { kind: 'status', status: 529 }, times: 2 },
        { match: {}, fault: { kind: 'status', status: 429 }, times: 1 },
      ],
    };
    await withChaos({ scenario }, async (chaos) => {
      expect(await statuses(chaos, 5)).toEqual([529, 529, 429, 200, 200]);
      expect(chaos.requests.map((r) => r.rule)).toEqual([0, 0, 1, null, null]);
      expect(chaos.requests.map((r) => r.fault)).toEqual([
        'status',
        'status',
        'status',
        null,
        null,
      ]);
    });
  });

  it('takes the first rule that matches model, path (without query) and api, with * wildcards', async () => {
    const scenario: Scenario = {
      rules: [
        { match: { model: 'claude-opus-*' }, fault: { kind: 'status', status: 529 } },
        { match: { path: '/v1/messages/count_tokens' }, fault: { kind: 'status', status: 503 } },
        { match: { api: 'openai' }, fault: { kind: 'status', status: 429 } },
        { match: { path: '/v1/mess*' }, fault: { kind: 'status', status: 500 } },
      ],
    };
    await withChaos({ scenario }, async (chaos) => {
      expect(
        (await post(chaos, '/v1/messages', anthropicBody({ model: 'claude-opus-4-8' }))).status,
      ).toBe(529);
      expect(
        (await post(chaos, '/v1/messages/count_tokens?beta=true', anthropicBody())).status,
      ).toBe(503);
      expect((await post(chaos, '/v1/chat/completions', openaiBody())).status).toBe(429);
      expect(
        (await post(chaos, '/v1/messages?beta=true', anthropicBody({ model: 'claude-haiku' })))
          .status,
      ).toBe(500);
      expect(chaos.requests.map((r) => r.path)).toEqual([
        '/v1/messages',
        '/v1/messages/count_tokens',
        '/v1/chat/completions',
        '/v1/messages',
      ]);
    });
  });

  it('applies faults to count_tokens too', async () => {
    const scenario: Scenario = {
      rules: [
        {
          match: { path: '/v1/messages/count_tokens' },
          fault: { kind: 'status', status: 529 },
          times: 1,
        },
        { match: { path: '/v1/messages/count_tokens' }, fault: { kind: 'malformed' }, times: 1 },
        { match: { path: '/v1/messages/count_tokens' }, fault: { kind: 'empty' }, times: 1 },
        { match: { path: '/v1/messages/count_tokens' }, fault: { kind: 'reset' }, times: 1 },
      ],
    };
    await withChaos({ scenario }, async (chaos) => {
      const overloaded = await post(chaos, '/v1/messages/count_tokens', anthropicBody());
      expect(overloaded.status).toBe(529);
      expect(await overloaded.json()).toMatchObject({
        type: 'error',
        error: { type: 'overloaded_error' },
      });
      const malformed = await post(chaos, '/v1/messages/count_tokens', anthropicBody());
      await expect(malformed.json()).rejects.toThrow();
      expect(
        await (await post(chaos, '/v1/messages/count_tokens', anthropicBody())).json(),
      ).toEqual({ input_tokens: 0 });
      await expect(post(chaos, '/v1/messages/count_tokens', anthropicBody())).rejects.toThrow();
      const healthy = (await (
        await post(chaos, '/v1/messages/count_tokens', anthropicBody())
      ).json()) as { input_tokens: number };
      expect(healthy.input_tokens).toBeGreaterThan(0);
    });
  });

  it('lets a request pick a rule with x-chaos-rule (name or index), spending its times', async () => {
    const scenario: Scenario = {
      rules: [
        {
          name: 'overload',
          match: { model: 'nothing-matches' },
          fault: { kind: 'status', status: 529 },
          probability: 0,
          times: 1,
        },
        { match: { model: 'nothing-matches' }, fault: { kind: 'status', status: 429 } },
      ],
    };
    await withChaos({ scenario }, async (chaos) => {
      const pick = (rule: string) =>
        post(chaos, '/v1/messages', anthropicBody(), { 'x-chaos-rule': rule });
      expect((await post(chaos, '/v1/messages', anthropicBody())).status).toBe(200);
      expect((await pick('overload')).status).toBe(529);
      expect((await pick('overload')).status).toBe(200);
      expect((await pick('1')).status).toBe(429);
      const unknown = await pick('nope');
      expect(unknown.status).toBe(400);
      expect(((await unknown.json()) as { error: { message: string } }).error.message).toContain(
        'x-chaos-rule',
      );
    });
  });

  it('does not apply faults to a malformed body: the 400 comes first', async () => {
    const scenario: Scenario = {
      rules: [{ match: {}, fault: { kind: 'status', status: 529 }, times: 1 }],
    };
    await withChaos({ scenario }, async (chaos) => {
      expect((await post(chaos, '/v1/messages', '{oops')).status).toBe(400);
      expect((await post(chaos, '/v1/messages', anthropicBody())).status).toBe(529);
    });
  });
});
