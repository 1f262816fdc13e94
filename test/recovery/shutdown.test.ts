import { describe, expect, it } from 'vitest';
import { isRunStoppedError, pipeline, retry, shutdown, constant } from '../../src/index.js';
import { AlertThrottle } from '../../src/recovery/alert-throttle.js';
import { VirtualClock } from '../../src/testing/index.js';

const rejection = async (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

describe('shutdown', () => {
  it('as a policy: lets calls through, counts them in flight, refuses every call after stop()', async () => {
    const clock = new VirtualClock();
    const run = shutdown({ clock, drainMs: 1_000 });
    const policy = pipeline(run, retry({ clock, backoff: constant(10) }));
    expect(await policy.execute(() => 'ok')).toBe('ok');
    const slow = policy.execute(() => clock.sleep(300).then(() => 'late but fine'));
    await clock.advance(0);
    expect(run.inFlight).toBe(1);
    const report = run.stop(new Error('SIGTERM'));
    expect(run.stopped).toBe(true);
    let ran = false;
    const refused = await rejection(policy.execute(() => (ran = true)));
    expect(ran).toBe(false);
    expect(isRunStoppedError(refused) && refused.phase).toBe('refused');
    expect(isRunStoppedError(refused) && (refused.cause as Error).message).toBe('SIGTERM');
    await clock.advance(300);
    expect(await slow).toBe('late but fine');
    expect(await report).toEqual({
      reason: new Error('SIGTERM'),
      inFlight: 1,
      aborted: 0,
      steps: [],
      durationMs: 300,
    });
  });

  it('with nothing in flight the steps run at once; stop() twice is one stop', async () => {
    const clock = new VirtualClock();
    const run = shutdown({ clock });
    const order: string[] = [];
    run.step('a', () => void order.push('a'));
    const first = run.stop();
    const second = run.stop(new Error('other'));
    expect(second).toBe(first);
    await clock.advance(0);
    const report = await first;
    expect(order).toEqual(['a']);
    expect(report.durationMs).toBe(0);
    expect((report.reason as Error).message).toBe('stopped');
  });

  it('a failing step and a step past stepMs do not keep the others from running; a late step sees its signal aborted', async () => {
    const clock = new VirtualClock();
    const run = shutdown({ clock, stepMs: 100 });
    const order: string[] = [];
    let lateSignal: AbortSignal | undefined;
    run.step('throws', () => {
      throw new Error('disk full');
    });
    run.step('hangs', (signal) => {
      lateSignal = signal;
      return new Promise(() => {});
    });
    const off = run.step('unregistered', () => void order.push('never'));
    run.step('rejects', async () => {
      order.push('rejects');
      throw new Error('no network');
    });
    run.step('fine', () => void order.push('fine'));
    off();
    const events: Array<{ failedSteps: string[] }> = [];
    run.on('stop', (e) => events.push(e));
    const report = run.stop();
    await clock.advance(100);
    const r = await report;
    expect(r.steps.map((s) => [s.name, s.outcome])).toEqual([
      ['throws', 'failed'],
      ['hangs', 'timed-out'],
      ['rejects', 'failed'],
      ['fine', 'done'],
    ]);
    expect((r.steps[0]!.error as Error).message).toBe('disk full');
    expect((r.steps[1]!.error as Error).message).toBe(
      'shutdown step "hangs" did not finish within 100 ms',
    );
    expect(r.steps[1]!.durationMs).toBe(100);
    expect(lateSignal?.aborted).toBe(true);
    expect(order).toEqual(['rejects', 'fine']);
    expect(events).toEqual([
      expect.objectContaining({
        failedSteps: ['throws', 'hangs', 'rejects'],
        inFlight: 0,
        aborted: 0,
      }),
    ]);
  });

  it('refuses bad options and bad steps, naming them', () => {
    expect(() => shutdown({ drainMs: -1 })).toThrow(/^drainMs must be/);
    expect(() => shutdown({ stepMs: Number.NaN })).toThrow(/^stepMs must be/);
    expect(() => shutdown({ clock: {} as never })).toThrow(/^clock must be a Clock/);
    expect(() => shutdown({ drain: 1 } as never)).toThrow(/^shutdown: unknown option "drain"/);
    expect(() => shutdown().step('', () => {})).toThrow(/^name must be/);
    expect(() => shutdown().step('x', 5 as never)).toThrow(/^run must be a function/);
  });
});

describe('alert cool-down bookkeeping', () => {
  it('remembers at most 1,000 dependencies, forgetting the one alerted longest ago', () => {
    const throttle = new AlertThrottle(60_000);
    for (let i = 0; i < 1_500; i++) expect(throttle.admit(`dep-${i}`, 0).fire).toBe(true);
    expect(throttle.size).toBe(1_000);
    expect(throttle.admit('dep-1499', 1).fire).toBe(false);
    expect(throttle.admit('dep-0', 1).fire).toBe(true); // forgotten, so it alerts again
  });
});
