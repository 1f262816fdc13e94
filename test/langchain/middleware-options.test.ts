import { describe, expect, it } from 'vitest';
import { fallback, retry } from '../../src/index.js';
import { recourseMiddleware } from '../../src/langchain/index.js';
import { MODELS } from './helpers.js';

const fakeChaos = { url: 'http://127.0.0.1:9' } as never;

describe('recourseMiddleware (langchain): bad options are refused when it is built, naming the option', () => {
  it.each([
    [{ idleMs: 0 }, /idleMs/],
    [{ zzz: 1 }, /zzz.*known options/],
    [{ retry: { maxAttempts: 0 } }, /maxAttempts must be an integer >= 1, got 0/],
    [{ breakers: {} }, /breakers must be a BreakerRegistry or false/],
    [{ policy: fallback([{ name: 'a', run: () => 1 }]) }, /policy is a fallback\(\.\.\.\) ladder/],
    [
      { fallbacks: [{ name: 'gpt', model: 'openai:gpt-5' }] },
      /fallbacks\[0\]\.model must be a chat model object.*"openai:gpt-5"/,
    ],
    [
      { fallbacks: [{ name: 'x', model: {} }] },
      /fallbacks\[0\]\.model must be a LangChain chat model/,
    ],
    [{ tools: { idempotent: 'search' } }, /tools\.idempotent must be an array of tool names/],
  ])('%o', (options, message) => {
    expect(() => recourseMiddleware(options as never)).toThrow(message);
  });

  it('two models of one name are refused', () => {
    const model = MODELS[0]![1](fakeChaos);
    expect(() =>
      recourseMiddleware({
        name: 'a',
        fallbacks: [{ name: 'a', model }],
      }),
    ).toThrow(/fallbacks\[0\]\.name "a" is used twice/);
  });

  it('is a createAgent middleware: the brand, a name, wrapModelCall and wrapToolCall', () => {
    const m = recourseMiddleware({ policy: retry() }) as unknown as Record<
      string | symbol,
      unknown
    >;
    expect(m[Symbol.for('AgentMiddleware')]).toBe(true);
    expect(m.name).toBe('recourse');
    expect(typeof m.wrapModelCall).toBe('function');
    expect(typeof m.wrapToolCall).toBe('function');
  });
});
