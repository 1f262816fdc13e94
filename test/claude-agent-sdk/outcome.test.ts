import type { SDKResultMessage } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import { classify } from '../../src/index.js';
import {
  agentEnv,
  agentOptions,
  agentResultError,
  noResultError,
  subagentPath,
} from '../../src/claude-agent-sdk/index.js';

// Result messages in the shapes the real CLI 0.3.332 sends (measured against the chaos server);
// the fields that do not matter here are left out.
const base = {
  type: 'result',
  duration_ms: 1,
  duration_api_ms: 0,
  num_turns: 1,
  stop_reason: null,
  total_cost_usd: 0,
  session_id: 's',
  uuid: 'u',
};
const success = (extra: Record<string, unknown>) =>
  ({
    ...base,
    subtype: 'success',
    is_error: false,
    result: 'ok',
    ...extra,
  }) as unknown as SDKResultMessage;
const errorResult = (subtype: string, errors: string[] = [], extra: Record<string, unknown> = {}) =>
  ({ ...base, subtype, is_error: true, errors, ...extra }) as unknown as SDKResultMessage;

describe('agentResultError: the result message decides the classification', () => {
  it('a success that is not an error is not a failure', () => {
    expect(agentResultError(success({ terminal_reason: 'completed' }))).toBeUndefined();
  });

  it.each([
    [529, 'overloaded_error', 'transient', 'overloaded'],
    [429, 'rate_limit_error', 'transient', 'rate_limited'],
    [500, 'api_error', 'transient', 'server_error'],
    [400, 'invalid_request_error', 'logical', 'bad_request'],
    [401, 'authentication_error', 'persistent', 'unauthorized'],
    [404, 'not_found_error', 'logical', 'not_found'],
  ])('is_error with api_error_status %i → %s → %s', (status, type, kind, reason) => {
    const result = success({
      is_error: true,
      api_error_status: status,
      api_error_type: type,
      terminal_reason: 'api_error',
      result: `API Error: ${status}`,
    });
    const thrown = new Error('Claude Code returned an error result: …');
    const error = agentResultError(result, thrown);
    expect(error).toMatchObject({
      name: 'AgentResultError',
      failure: 'api_error',
      status,
      type,
      result,
    });
    expect(classify(error)).toMatchObject({ kind, reason, status });
    expect(error?.cause).toBe(thrown);
  });

  it('a 400 whose text says the prompt is too long is a context overflow', () => {
    const result = success({
      is_error: true,
      api_error_status: 400,
      result: 'API Error: 400 prompt is too long: 250000 tokens > 200000 maximum',
    });
    expect(classify(agentResultError(result))).toMatchObject({
      kind: 'logical',
      reason: 'context_overflow',
    });
  });

  it('is_error without a status: a network code in the text decides', () => {
    const refused = success({
      is_error: true,
      api_error_status: null,
      api_error: 'connection_failed',
      terminal_reason: 'api_error',
      result: 'API Error: Connection refused (ECONNREFUSED)',
    });
    expect(classify(agentResultError(refused))).toMatchObject({
      kind: 'transient',
      code: 'ECONNREFUSED',
      reason: 'network',
    });
    const dns = success({
      is_error: true,
      api_error_status: null,
      terminal_reason: 'api_error',
      result: 'API Error: getaddrinfo ENOTFOUND api.example',
    });
    expect(classify(agentResultError(dns))).toMatchObject({
      kind: 'persistent',
      code: 'ENOTFOUND',
    });
    const timedOut = success({
      is_error: true,
      api_error_status: null,
      terminal_reason: 'api_error',
      result:
        'Request timed out. If the API is slow to answer, … set API_TIMEOUT_MS above the limit in force (600000 by default).',
    });
    expect(classify(agentResultError(timedOut))).toMatchObject({
      kind: 'transient',
      code: 'ETIMEDOUT',
      reason: 'network',
    });
    const vague = success({
      is_error: true,
      api_error_status: null,
      terminal_reason: 'model_error',
      result: 'something odd',
    });
    expect(classify(agentResultError(vague))).toMatchObject({ kind: 'transient', retryable: true });
  });

  it.each([
    ['prompt_too_long', 'logical', 'context_overflow'],
    ['blocking_limit', 'logical', 'context_overflow'],
    ['max_turns', 'logical', undefined],
    ['hook_stopped', 'logical', undefined],
    ['budget_exhausted', 'persistent', undefined],
  ])('is_error without a status, terminal_reason %s → %s', (terminal_reason, kind, reason) => {
    const error = agentResultError(success({ is_error: true, terminal_reason, result: 'stopped' }));
    expect(classify(error)).toMatchObject({ kind, ...(reason === undefined ? {} : { reason }) });
  });

  it.each([
    ['error_during_execution', 'transient', true],
    ['error_max_turns', 'logical', false],
    ['error_max_structured_output_retries', 'logical', false],
    ['error_max_budget_usd', 'persistent', false],
  ])('subtype %s → %s', (subtype, kind, retryable) => {
    const error = agentResultError(errorResult(subtype, ['it stopped']));
    expect(error).toMatchObject({ failure: subtype });
    expect(error?.message).toContain('it stopped');
    expect(classify(error)).toMatchObject({ kind, retryable });
  });

  it('no result at all is transient, and keeps the SDK error as cause', () => {
    const cause = new Error('Claude Code process exited with code 1');
    const error = noResultError(cause);
    expect(error).toMatchObject({ failure: 'no_result', cause });
    expect(classify(error)).toMatchObject({ kind: 'transient', retryable: true });
    expect(classify(noResultError())).toMatchObject({ kind: 'transient' });
  });

  it('AgentResultError no longer poses as HTTP 400: max turns is logical with no status', () => {
    const maxTurns = agentResultError(errorResult('error_max_turns', ['max turns']));
    expect(maxTurns?.status).toBeUndefined();
    expect(maxTurns?.type).toBeUndefined();
    expect(classify(maxTurns)).toEqual({
      kind: 'logical',
      retryable: false,
      countsForBreaker: false,
      reason: 'max_turns',
    });
    const budget = agentResultError(errorResult('error_max_budget_usd'));
    expect(classify(budget)).toEqual({
      kind: 'persistent',
      retryable: false,
      countsForBreaker: true,
      reason: 'max_budget_usd',
    });
  });
});

describe('agentEnv, agentOptions, subagentPath', () => {
  it('agentEnv builds an explicit environment and inherits nothing it was not asked for', () => {
    process.env.HTTPS_PROXY_RECOURSE_TEST = 'http://proxy.invalid';
    const env = agentEnv({
      baseUrl: 'http://127.0.0.1:1234',
      home: '/tmp/h',
      inherit: ['HTTPS_PROXY_RECOURSE_TEST'],
      extra: { LANG: 'C' },
    });
    expect(env).toEqual({
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:1234',
      ANTHROPIC_API_KEY: expect.any(String),
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      CLAUDE_CODE_MAX_RETRIES: '0',
      HOME: '/tmp/h',
      NO_PROXY: '127.0.0.1,localhost',
      PATH: process.env.PATH,
      HTTPS_PROXY_RECOURSE_TEST: 'http://proxy.invalid',
      LANG: 'C',
    });
    delete process.env.HTTPS_PROXY_RECOURSE_TEST;
    expect(agentEnv({ maxRetries: 4, apiKey: 'k' })).toMatchObject({
      CLAUDE_CODE_MAX_RETRIES: '4',
      ANTHROPIC_API_KEY: 'k',
    });
    expect(() => agentEnv({ maxRetries: -1 })).toThrow(
      /maxRetries must be an integer >= 0, got -1/,
    );
  });

  it('agentOptions runs the definition as the main thread and keeps the base options', () => {
    const def = { description: 'd', prompt: 'p', model: 'claude-x' };
    const other = { description: 'o', prompt: 'q' };
    expect(agentOptions('researcher', def, { cwd: '/w', agents: { other } })).toEqual({
      cwd: '/w',
      agents: { other, researcher: def },
      agent: 'researcher',
    });
    expect(() => agentOptions('', def)).toThrow(TypeError);
  });

  it('subagentPath builds a fallback path named after the agent', () => {
    const path = subagentPath({
      name: 'quick',
      agent: { description: 'd', prompt: 'p' },
      prompt: 'task',
      idleMs: 1000,
    });
    expect(path.name).toBe('quick');
    expect(typeof path.run).toBe('function');
    expect(path.policy).toBeUndefined();
    expect(() =>
      subagentPath({
        name: 'x',
        agent: { description: 'd', prompt: 'p' },
        prompt: 42 as unknown as string,
      }),
    ).toThrow(TypeError);
  });
});
