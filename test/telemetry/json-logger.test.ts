import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { circuitBreaker, constant, pipeline, retry, subscribe, validate } from '../../src/index.js';
import { instrument } from '../../src/telemetry/instrument.js';
import { jsonLogger } from '../../src/telemetry/json-logger.js';
import { VirtualClock } from '../../src/testing/index.js';
import { httpError } from '../helpers/http-error.js';
import { lines } from './helpers.js';

describe('jsonLogger', () => {
  it('validates its arguments', () => {
    expect(() => jsonLogger({} as never)).toThrow(
      /^out must be an object with a write\(line\) method, e.g. process.stderr, got {}$/,
    );
    expect(() => jsonLogger(lines(), { level: 'loud' as never })).toThrow(/level must be one of/);
  });

  it('writes one JSON line per event in the seeds’ shape', async () => {
    const clock = new VirtualClock();
    const out = lines();
    const seen: string[] = [];
    const stopCount = subscribe((e) => seen.push(e.type));
    const stop = subscribe(jsonLogger(out));
    const policy = pipeline(
      instrument({ name: 'search', clock }),
      retry({ name: 'search', maxAttempts: 3, clock, backoff: constant(250) }),
    );
    let attempt = 0;
    const p = policy.execute(async () => {
      await clock.sleep(100);
      if (++attempt < 2) throw httpError(529, { message: 'overloaded' });
      return 'ok';
    });
    await clock.advance(1_000);
    await expect(p).resolves.toBe('ok');
    stop();
    stopCount();

    expect(out.lines.every((l) => l.endsWith('\n') && !l.slice(0, -1).includes('\n'))).toBe(true);
    expect(seen).toEqual(['retry', 'call']);
    const [retryLine, callLine] = out.parsed();
    expect(retryLine).toEqual({
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      level: 'warn',
      event: 'retry',
      operation: 'retry',
      dependency: 'search',
      call_id: expect.stringMatching(/^\d+\.\d+$/),
      msg: 'retry search: attempt 1 of 3 failed, next in 250 ms: Error: overloaded',
      error: {
        type: 'Error',
        message: 'overloaded',
        kind: 'transient',
        reason: 'overloaded',
        retryable: true,
        status: 529,
        attempt: 1,
        maxAttempts: 3,
      },
      delay_ms: 250,
    });
    expect(callLine).toEqual({
      timestamp: expect.any(String),
      level: 'debug',
      event: 'call',
      operation: 'instrument',
      dependency: 'search',
      call_id: retryLine!.call_id,
      msg: 'call search success in 450 ms',
      attempt: 1,
      duration_ms: 450,
      outcome: 'success',
    });
  });

  it('logs breaker transitions, rejections, give-ups and invalid results, with their levels', async () => {
    const clock = new VirtualClock();
    const out = lines();
    const stop = subscribe(jsonLogger(out, { fields: { service: 'orchestrator' } }));
    const breaker = circuitBreaker({ name: 'tools', failureThreshold: 1, clock });
    const policy = pipeline(
      breaker,
      retry({ name: 'tools', maxAttempts: 1, clock }),
      validate((v: string) => v.length > 0 || 'empty answer'),
    );
    await policy.execute(() => '').catch(() => {});
    await policy.execute(() => 'x').catch(() => {});
    stop();
    const parsed = out.parsed();
    expect(parsed.map((l) => `${String(l.level)} ${String(l.event)}`)).toEqual([
      'warn invalid',
      'error giveup',
      'error state',
      'warn reject',
    ]);
    expect(parsed[0]).toMatchObject({
      operation: 'validate',
      reason: 'empty answer',
      value: '',
      service: 'orchestrator',
    });
    expect(parsed[1]).toMatchObject({
      operation: 'retry',
      dependency: 'tools',
      reason: 'attempts',
      error: {
        type: 'InvalidResultError',
        message: 'invalid result: empty answer',
        kind: 'logical',
        reason: 'invalid_result',
        attempt: 1,
        maxAttempts: 1,
      },
    });
    expect(parsed[2]).toMatchObject({
      operation: 'circuit-breaker',
      dependency: 'tools',
      from: 'closed',
      to: 'open',
      msg: 'circuit tools closed → open',
    });
    expect(parsed[3]).toMatchObject({ dependency: 'tools', retry_after_ms: 30_000 });
  });

  it('drops lines below its level, and writes to a real stream', async () => {
    const stream = new PassThrough();
    const chunks: string[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c.toString()));
    const stop = subscribe(jsonLogger(stream, { level: 'warn' }));
    const policy = instrument({ name: 'quiet' });
    await policy.execute(() => 1);
    await policy.execute(() => Promise.reject(httpError(500))).catch(() => {});
    stop();
    await new Promise((r) => setImmediate(r));
    const parsed = chunks
      .join('')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parsed).toHaveLength(1);
    expect(parsed[0]).toMatchObject({
      level: 'error',
      event: 'call',
      outcome: 'failure',
      error: { status: 500, reason: 'server_error' },
    });
  });
});
