import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ChaosScenarioError,
  FAULT_KINDS,
  isChaosScenarioError,
  loadScenario,
  parseScenario,
  startChaosServer,
} from '../../src/chaos/index.js';

const rule = (fault: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  match: {},
  fault,
  ...extra,
});

function problem(input: unknown): ChaosScenarioError {
  try {
    parseScenario(input);
  } catch (error) {
    expect(isChaosScenarioError(error)).toBe(true);
    expect(error).toBeInstanceOf(ChaosScenarioError);
    expect((error as Error).name).toBe('ChaosScenarioError');
    return error as ChaosScenarioError;
  }
  throw new Error('expected a ChaosScenarioError');
}

describe('parseScenario', () => {
  it('accepts the documented example and every fault kind', () => {
    const example = {
      seed: 1,
      rules: [
        {
          match: { model: 'claude-opus-4-8' },
          fault: { kind: 'stall', afterEvents: 1 },
          probability: 1,
          times: 2,
        },
        { match: {}, fault: { kind: 'status', status: 529 }, probability: 0.1 },
      ],
    };
    expect(parseScenario(example)).toEqual(example);
    const all = [
      { kind: 'status', status: 429, retryAfterS: 1, retryAfterMs: 250 },
      { kind: 'latency', ms: 100 },
      { kind: 'stall', afterEvents: 0 },
      { kind: 'keepalive', afterEvents: 2, intervalMs: 50 },
      { kind: 'truncate', afterEvents: 3 },
      { kind: 'stream-error', afterEvents: 4, errorType: 'api_error' },
      { kind: 'reset' },
      { kind: 'empty' },
      { kind: 'malformed' },
      { kind: 'slow', perEventMs: 10 },
    ];
    expect(all.map((f) => f.kind)).toEqual([...FAULT_KINDS]);
    const parsed = parseScenario({
      rules: all.map((f) => rule(f)),
      answers: { '*': { text: '' }, m: { toolUse: { name: 't', input: { a: 1 } } } },
    });
    expect(parsed.rules!.map((r) => r.fault)).toEqual(all);
    expect(parsed.answers).toEqual({
      '*': { text: '' },
      m: { toolUse: { name: 't', input: { a: 1 } } },
    });
    expect(parseScenario({})).toEqual({});
    const timing = {
      rateLimit: {
        requestsPerMinute: 50,
        tokensPerMinute: 1000,
        inputTokensPerMinute: 800,
        outputTokensPerMinute: 200,
      },
      pacing: [
        {
          match: { model: 'claude-think-*' },
          firstEventMs: { lognormal: { median: 800, sigma: 0.6, max: 20_000 } },
          betweenEventsMs: {
            mix: [
              { weight: 97, ms: 15 },
              { weight: 3, ms: { uniform: [1000, 3000] } },
            ],
          },
        },
        { betweenEventsMs: { exponential: { mean: 20 } } },
      ],
      rules: [
        rule({
          kind: 'latency',
          ms: {
            mix: [
              { weight: 95, ms: 0 },
              { weight: 5, ms: 500 },
            ],
          },
          headersFirst: true,
        }),
      ],
      answers: {
        long: { textTokens: 3000, thinkingTokens: 200 },
        thinker: { thinking: '', text: 'ok' },
      },
    };
    expect(parseScenario(timing)).toEqual(timing);
  });

  it.each([
    [
      { rules: [rule({ kind: 'stall' }), rule({ kind: 'status', status: 'abc' })] },
      'rules[1].fault.status',
      'rules[1].fault.status must be an integer 100-599, got "abc"',
    ],
    [
      { rules: [rule({ kind: 'status', status: 600 })] },
      'rules[0].fault.status',
      'must be an integer 100-599, got 600',
    ],
    [{ rules: [rule({ kind: 'status' })] }, 'rules[0].fault.status', 'is required'],
    [
      { rules: [rule({ kind: 'explode' })] },
      'rules[0].fault.kind',
      'must be one of status, latency, stall, keepalive, truncate, stream-error, reset, empty, malformed, slow, got "explode"',
    ],
    [{ rules: [rule({})] }, 'rules[0].fault.kind', 'got nothing'],
    [
      { rules: [rule({ kind: 'latency', ms: -1 })] },
      'rules[0].fault.ms',
      'must be a number >= 0, got -1',
    ],
    [{ rules: [rule({ kind: 'latency', ms: '5' })] }, 'rules[0].fault.ms', 'got "5"'],
    [
      { rules: [rule({ kind: 'stall', afterEvents: 1.5 })] },
      'rules[0].fault.afterEvents',
      'must be an integer >= 0, got 1.5',
    ],
    [
      { rules: [rule({ kind: 'truncate', afterEvents: -2 })] },
      'rules[0].fault.afterEvents',
      'got -2',
    ],
    [
      { rules: [rule({ kind: 'keepalive', intervalMs: 0 })] },
      'rules[0].fault.intervalMs',
      'must be a number > 0',
    ],
    [{ rules: [rule({ kind: 'slow' })] }, 'rules[0].fault.perEventMs', 'is required'],
    [
      { rules: [rule({ kind: 'status', status: 500, retryAfterS: -1 })] },
      'rules[0].fault.retryAfterS',
      '>= 0',
    ],
    [
      { rules: [rule({ kind: 'stall', afterEvent: 1 })] },
      'rules[0].fault.afterEvent',
      'is not a field of a stall fault (allowed: afterEvents)',
    ],
    [{ rules: [rule({ kind: 'empty', ms: 1 })] }, 'rules[0].fault.ms', 'takes no fields'],
    [
      { rules: [rule({ kind: 'reset' }, { probability: 1.5 })] },
      'rules[0].probability',
      'must be a number between 0 and 1, got 1.5',
    ],
    [
      { rules: [rule({ kind: 'reset' }, { probability: -0.1 })] },
      'rules[0].probability',
      'between 0 and 1',
    ],
    [
      { rules: [rule({ kind: 'reset' }, { times: -1 })] },
      'rules[0].times',
      'must be an integer >= 0, got -1',
    ],
    [{ rules: [rule({ kind: 'reset' }, { times: 'twice' })] }, 'rules[0].times', 'got "twice"'],
    [{ rules: [rule({ kind: 'reset' }, { when: 1 })] }, 'rules[0].when', 'is not a known field'],
    [{ rules: [{ match: {} }] }, 'rules[0].fault', 'is required'],
    [
      { rules: [{ match: { model: 3 }, fault: { kind: 'reset' } }] },
      'rules[0].match.model',
      'must be a non-empty string, got 3',
    ],
    [
      { rules: [{ match: { api: 'gemini' }, fault: { kind: 'reset' } }] },
      'rules[0].match.api',
      'must be "anthropic" or "openai", got "gemini"',
    ],
    [
      { rules: [{ match: { host: 'x' }, fault: { kind: 'reset' } }] },
      'rules[0].match.host',
      'is not a known field',
    ],
    [
      { rules: [rule({ kind: 'reset' }, { name: 'a' }), rule({ kind: 'reset' }, { name: 'a' })] },
      'rules[1].name',
      'already the name of rules[0]',
    ],
    [{ rules: [rule({ kind: 'reset' }, { name: '3' })] }, 'rules[0].name', 'not a number'],
    [{ rules: {} }, 'rules', 'rules must be an array, got an object'],
    [{ rules: [null] }, 'rules[0]', 'rules[0] must be an object, got null'],
    [{ seed: 'x' }, 'seed', 'seed must be an integer, got "x"'],
    [
      { seed: 1, rule: [] },
      'rule',
      'rule is not a known field (allowed: seed, rules, answers, rateLimit, pacing)',
    ],
    [
      { answers: { m: { toolUse: { input: {} } } } },
      'answers["m"].toolUse.name',
      'must be a non-empty string',
    ],
    [{ answers: { m: { text: 5 } } }, 'answers["m"].text', 'got 5'],
    [[], '', 'scenario must be an object, got an array'],
    [
      { rules: [rule({ kind: 'stream-error', errorType: 'Overloaded Error' })] },
      'rules[0].fault.errorType',
      'must be an error type in snake_case such as "overloaded_error" or "server_error", got "Overloaded Error"',
    ],
    [
      { rules: [rule({ kind: 'stream-error', afterEvents: -1 })] },
      'rules[0].fault.afterEvents',
      'must be an integer >= 0, got -1',
    ],
    [
      { rules: [rule({ kind: 'truncate', afterEvents: { uniform: [9, 3] } })] },
      'rules[0].fault.afterEvents.uniform',
      'must have min <= max, got [9, 3]',
    ],
    [
      { rules: [rule({ kind: 'stall', afterEvents: 'late' })] },
      'rules[0].fault.afterEvents',
      'must be a number of events >= 0 or an object with one of uniform, exponential, lognormal, mix, got "late"',
    ],
    [
      { rules: [rule({ kind: 'latency', ms: 5, headersFirst: 'yes' })] },
      'rules[0].fault.headersFirst',
      'must be true or false, got "yes"',
    ],
    [
      { rules: [rule({ kind: 'latency', ms: { uniform: [5, 1] } })] },
      'rules[0].fault.ms.uniform',
      'must have min <= max, got [5, 1]',
    ],
    [
      { rules: [rule({ kind: 'latency', ms: { uniform: 5 } })] },
      'rules[0].fault.ms.uniform',
      'must be [min, max], got 5',
    ],
    [
      { rules: [rule({ kind: 'latency', ms: { lognormal: { median: 0, sigma: 1 } } })] },
      'rules[0].fault.ms.lognormal.median',
      'must be a number > 0, got 0',
    ],
    [
      { rules: [rule({ kind: 'latency', ms: { lognormal: { median: 5, sigma: 1, p99: 9 } } })] },
      'rules[0].fault.ms.lognormal.p99',
      'is not a known field (allowed: median, sigma, max)',
    ],
    [
      { rules: [rule({ kind: 'latency', ms: { exponential: { mean: 5, max: -1 } } })] },
      'rules[0].fault.ms.exponential.max',
      'must be a number >= 0, got -1',
    ],
    [
      { rules: [rule({ kind: 'latency', ms: { gauss: 1 } })] },
      'rules[0].fault.ms',
      'must have exactly one of uniform, exponential, lognormal, mix, got the fields gauss',
    ],
    [
      { rules: [rule({ kind: 'latency', ms: '5ms' })] },
      'rules[0].fault.ms',
      'must be a number of ms >= 0 or an object with one of uniform, exponential, lognormal, mix, got "5ms"',
    ],
    [
      { rules: [rule({ kind: 'latency', ms: { mix: [] } })] },
      'rules[0].fault.ms.mix',
      'must be a non-empty array of { weight, ms }, got an array',
    ],
    [
      { rules: [rule({ kind: 'latency', ms: { mix: [{ weight: 1 }] } })] },
      'rules[0].fault.ms.mix[0].ms',
      'is required',
    ],
    [
      { rules: [rule({ kind: 'latency', ms: { mix: [{ weight: 0, ms: 1 }] } })] },
      'rules[0].fault.ms.mix[0].weight',
      'must be a number > 0, got 0',
    ],
    [
      { rateLimit: {} },
      'rateLimit',
      'rateLimit needs at least one of requestsPerMinute, tokensPerMinute, inputTokensPerMinute, outputTokensPerMinute',
    ],
    [
      { rateLimit: { requestsPerMinute: 0 } },
      'rateLimit.requestsPerMinute',
      'must be an integer 1-1000000000, got 0',
    ],
    [
      { rateLimit: { rpm: 50 } },
      'rateLimit.rpm',
      'is not a known field (allowed: requestsPerMinute, tokensPerMinute, inputTokensPerMinute, outputTokensPerMinute)',
    ],
    [{ rateLimit: 50 }, 'rateLimit', 'rateLimit must be an object, got 50'],
    [
      { pacing: {} },
      'pacing',
      'pacing must be an array of { match?, firstEventMs?, betweenEventsMs? }, got an object',
    ],
    [{ pacing: [{}] }, 'pacing[0]', 'pacing[0] needs firstEventMs or betweenEventsMs (or both)'],
    [{ pacing: [{ firstEventMs: -1 }] }, 'pacing[0].firstEventMs', 'must be a number >= 0, got -1'],
    [
      { pacing: [{ betweenEventsMs: 1, jitter: 2 }] },
      'pacing[0].jitter',
      'is not a known field (allowed: match, firstEventMs, betweenEventsMs)',
    ],
    [
      { pacing: [{ match: { api: 'gemini' }, firstEventMs: 1 }] },
      'pacing[0].match.api',
      'must be "anthropic" or "openai", got "gemini"',
    ],
    [
      { answers: { m: { text: 'a', textTokens: 5 } } },
      'answers["m"].textTokens',
      'cannot be given with text (one or the other)',
    ],
    [
      { answers: { m: { textTokens: 0 } } },
      'answers["m"].textTokens',
      'must be an integer 1-1000000, got 0',
    ],
    [
      { answers: { m: { thinkingTokens: 1.5 } } },
      'answers["m"].thinkingTokens',
      'must be an integer 1-1000000, got 1.5',
    ],
    [
      { answers: { m: { thinking: 'x', thinkingTokens: 5 } } },
      'answers["m"].thinkingTokens',
      'cannot be given with thinking',
    ],
    [{ answers: { m: { thinking: 7 } } }, 'answers["m"].thinking', 'must be a string, got 7'],
  ])('rejects %j naming the field', (input, field, message) => {
    const error = problem(input);
    expect(error.field).toBe(field);
    expect(error.message).toContain(message);
    expect(error.message.startsWith(field === '' ? 'scenario' : field)).toBe(true);
  });
});

describe('loadScenario', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'recourse-chaos-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads and validates a JSON file, prefixing errors with its path', async () => {
    const good = join(dir, 'good.json');
    await writeFile(good, JSON.stringify({ seed: 3, rules: [rule({ kind: 'latency', ms: 5 })] }));
    expect(await loadScenario(good)).toEqual({
      seed: 3,
      rules: [rule({ kind: 'latency', ms: 5 })],
    });

    const bad = join(dir, 'bad.json');
    await writeFile(
      bad,
      JSON.stringify({ rules: [rule({ kind: 'stall' }), rule({ kind: 'status', status: 'abc' })] }),
    );
    await expect(loadScenario(bad)).rejects.toThrow(
      `${bad}: rules[1].fault.status must be an integer 100-599, got "abc"`,
    );

    const broken = join(dir, 'broken.json');
    await writeFile(broken, '{ "seed": 1, ');
    await expect(loadScenario(broken)).rejects.toThrow(`${broken}: not valid JSON`);
    await expect(loadScenario(join(dir, 'missing.json'))).rejects.toThrow(
      'cannot read the scenario file',
    );
  });

  it('makes startChaosServer reject an invalid scenario before listening', async () => {
    await expect(
      startChaosServer({ scenario: { rules: [{ fault: { kind: 'latency', ms: -5 } }] } }),
    ).rejects.toThrow('rules[0].fault.ms must be a number >= 0, got -5');
    await expect(
      startChaosServer({ answers: { m: { text: 1 as unknown as string } } }),
    ).rejects.toThrow('answers["m"].text');
    await expect(startChaosServer({ upstream: 'ftp://example' })).rejects.toThrow(
      'upstream must be an http',
    );
  });
});

describe('scenario keys that look like Object.prototype members', () => {
  it('keeps them as plain data', async () => {
    const parsed = parseScenario(
      JSON.parse('{"answers":{"__proto__":{"text":"proto"},"*":{"text":"star"}}}'),
    );
    expect(Object.getPrototypeOf(parsed.answers)).toBe(Object.prototype);
    expect(Object.keys(parsed.answers!)).toEqual(['__proto__', '*']);
    expect(() => parseScenario({ rules: [{ fault: { kind: 'reset', constructor: 1 } }] })).toThrow(
      'rules[0].fault.constructor is not a field of a reset fault',
    );
    const chaos = await startChaosServer({ scenario: parsed });
    try {
      const ask = async (model: string) => {
        const res = await fetch(`${chaos.url}/v1/messages`, {
          method: 'POST',
          body: JSON.stringify({
            model,
            max_tokens: 5,
            messages: [{ role: 'user', content: 'hi' }],
          }),
        });
        return ((await res.json()) as { content: Array<{ text: string }> }).content[0]!.text;
      };
      expect(await ask('__proto__')).toBe('proto');
      expect(await ask('constructor')).toBe('star');
    } finally {
      await chaos.close();
    }
  });
});
