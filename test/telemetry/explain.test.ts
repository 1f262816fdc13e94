import { describe, expect, it } from 'vitest';
import {
  AllPathsFailedError,
  CircuitOpenError,
  InvalidResultError,
  RecourseError,
  RetriesExhaustedError,
  StallError,
  TimeoutError,
} from '../../src/index.js';
import { explain, explainJSON } from '../../src/telemetry/explain.js';
import { httpError } from '../helpers/http-error.js';

/** Shaped like the saga module's error; explain must know it by name and fields alone. */
class SagaFailedLookalike extends RecourseError {
  override name = 'SagaFailedError';
  constructor(
    readonly sagaId: string,
    readonly failedStep: string,
    cause: unknown,
    readonly compensated: string[],
    readonly compensationErrors: Array<{ step: string; error: unknown }>,
  ) {
    super(`saga "${sagaId}" failed at step "${failedStep}"`, { cause });
  }
}

describe('explain', () => {
  it('a RetriesExhaustedError lists each attempt’s error once (its cause is the last attempt)', () => {
    const errors = [
      httpError(529, { message: 'overloaded' }),
      new TimeoutError(30_000),
      httpError(529, { message: 'overloaded' }),
    ];
    const text = explain(new RetriesExhaustedError(3, errors, 'attempts'));
    expect(text).toBe(
      [
        'RetriesExhaustedError: gave up after 3 attempt(s): overloaded  [attempts 3, reason attempts]',
        '├─ attempt 1: Error: overloaded  [transient: overloaded, status 529]',
        '├─ attempt 2: TimeoutError: timed out after 30000 ms  [timeoutMs 30000]',
        '└─ attempt 3: Error: overloaded  [transient: overloaded, status 529]',
      ].join('\n'),
    );
  });

  it('an AllPathsFailedError explains every path, down through nested retries and causes', () => {
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const wrapped = new Error('fetch failed', { cause: reset });
    const deep = new RetriesExhaustedError(
      2,
      [wrapped, new StallError('idle', 20_000, 3)],
      'attempts',
    );
    const quick = new CircuitOpenError('quick-search', 12_000, 'open');
    const text = explain(
      new AllPathsFailedError([
        { path: 'deep-research', error: deep },
        { path: 'quick-search', error: quick },
      ]),
    );
    expect(text.split('\n')).toEqual([
      expect.stringMatching(/^AllPathsFailedError: all 2 path\(s\) failed/),
      expect.stringMatching(
        /^├─ path "deep-research": RetriesExhaustedError: gave up after 2 attempt\(s\).*\[attempts 2, reason attempts\]$/,
      ),
      '│  ├─ attempt 1: Error: fetch failed  [transient: network, code ECONNRESET]',
      '│  │  └─ cause: Error: socket hang up  [transient: network, code ECONNRESET]',
      '│  └─ attempt 2: StallError: stream stalled: no progress for 20000 ms after 3 item(s)  [phase idle, limitMs 20000, items 3]',
      '└─ path "quick-search": CircuitOpenError: circuit "quick-search" is open; next probe in 12000 ms  [breaker quick-search, state open, retryAfterMs 12000]',
    ]);
  });

  it('a SagaFailedError shows the failed step, what was compensated and each compensation failure', () => {
    const error = new SagaFailedLookalike(
      'order-7',
      'charge',
      httpError(402, { message: 'card declined' }),
      ['reserve'],
      [{ step: 'release-hold', error: new Error('hold not found') }],
    );
    expect(explain(error).split('\n')).toEqual([
      'SagaFailedError: saga "order-7" failed at step "charge"  [sagaId order-7, failedStep charge, compensated [reserve]]',
      '├─ compensation "release-hold": Error: hold not found  [transient: unclassified]',
      '└─ failed step: Error: card declined  [logical: client_error, status 402]',
    ]);
    const json = explainJSON(error);
    expect(json.details).toEqual({
      sagaId: 'order-7',
      failedStep: 'charge',
      compensated: ['reserve'],
    });
    expect(json.children.map((c) => c.label)).toEqual([
      'compensation "release-hold"',
      'failed step',
    ]);
  });

  it('lists the issues of an invalid result, and the errors of an AggregateError', () => {
    const invalid = new InvalidResultError({}, [
      { message: 'Required', path: ['answer', { key: 'text' }] },
      { message: 'empty' },
    ]);
    expect(explain(invalid).split('\n')).toEqual([
      'InvalidResultError: invalid result: Required; empty',
      '├─ issue: Required (at answer.text)',
      '└─ issue: empty',
    ]);
    const aggregate = new AggregateError([new Error('a'), 'b'], 'two failed');
    expect(explainJSON(aggregate).children.map((c) => `${c.label} ${c.type} ${c.message}`)).toEqual(
      ['error 1 Error a', 'error 2 string b'],
    );
  });

  it('survives cycles, non-errors and hostile getters, and redacts secrets in messages', () => {
    const a = new Error('a') as Error & { cause?: unknown };
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect(explain(a)).toBe(
      [
        'Error: a  [transient: unclassified]',
        '└─ cause: Error: b  [transient: unclassified]',
        '   └─ cause: Error: (circular reference) a',
      ].join('\n'),
    );
    expect(explain('plain string')).toBe('string: plain string');
    expect(explain(undefined)).toBe('undefined: undefined');
    const hostile = Object.defineProperty(new Error('hostile'), 'cause', {
      get() {
        throw new Error('nope');
      },
    });
    expect(explain(hostile)).toBe('Error: hostile  [transient: unclassified]');
    const leaky = Object.assign(
      new Error('401: Authorization: Bearer sk-ant-api03-xxxxxxxxxxxx rejected'),
      { status: 401, headers: { 'x-api-key': 'sk-ant-api03-xxxxxxxxxxxx' } },
    );
    const text = explain(new RetriesExhaustedError(1, [leaky], 'attempts'));
    expect(text).not.toContain('sk-ant');
    expect(text).toContain('Authorization: [REDACTED] rejected');
  });

  it('explainJSON carries the same tree as data', () => {
    const json = explainJSON(
      new RetriesExhaustedError(1, [httpError(503, { message: 'down' })], 'budget'),
    );
    expect(json).toEqual({
      type: 'RetriesExhaustedError',
      message: 'gave up after 1 attempt(s): the retry budget is exhausted: down',
      details: { attempts: 1, reason: 'budget' },
      children: [
        {
          label: 'attempt 1',
          type: 'Error',
          message: 'down',
          kind: 'transient',
          reason: 'overloaded',
          status: 503,
          children: [],
        },
      ],
    });
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
  });
});
