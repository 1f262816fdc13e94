import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type CallContext,
  constant,
  instrument,
  pipeline,
  type RecourseEvent,
  retry,
  subscribe,
  TimeoutError,
  timeout,
  watch,
} from '../../src/index.js';
import { VirtualClock } from '../../src/testing/index.js';
import { never } from './helpers.js';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Collects every event published while it is attached. */
function collect(): { events: RecourseEvent[]; stop: () => void } {
  const events: RecourseEvent[] = [];
  const stop = subscribe((e) => events.push(e));
  return { events, stop };
}

let stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops) stop();
  stops = [];
});
function sink(): RecourseEvent[] {
  const { events, stop } = collect();
  stops.push(stop);
  return events;
}

describe('one carrier of per-call context', () => {
  it('src/ has exactly one AsyncLocalStorage (the Scope)', () => {
    const hits = sourceFiles(join(import.meta.dirname, '../../src')).flatMap((file) =>
      readFileSync(file, 'utf8').includes('new AsyncLocalStorage')
        ? [file.replace(/^.*\/src\//, 'src/')]
        : [],
    );
    expect(hits).toEqual(['src/context/scope.ts']);
  });

  it('a named pipeline names the events of its unnamed layers', async () => {
    const events = sink();
    const clock = new VirtualClock();
    let calls = 0;
    const search = pipeline(
      { name: 'search' },
      retry({ maxAttempts: 2, clock, backoff: constant(10) }),
      timeout(100, { clock }),
    );
    const p = search.execute(() => (++calls === 1 ? never<string>() : 'ok'));
    await clock.advance(200);
    await expect(p).resolves.toBe('ok');
    expect(events.map((e) => [e.type, e.policy, e.name])).toEqual([
      ['timeout', 'timeout', 'search'],
      ['retry', 'retry', 'search'],
    ]);
  });

  it("a layer's own name wins; a pipeline nested in another keeps its own name for its part", async () => {
    const events = sink();
    const clock = new VirtualClock();
    const inner = pipeline(
      { name: 'inner' },
      timeout(50, { clock }),
      retry({ name: 'own', maxAttempts: 2, clock, backoff: constant(10) }),
    );
    const hung = pipeline({ name: 'outer' }, timeout(30, { clock }), inner)
      .execute(() => never())
      .catch((e: unknown) => e);
    await clock.advance(100);
    expect(await hung).toBeInstanceOf(TimeoutError);
    const slow = pipeline({ name: 'outer' }, timeout(80, { clock }), inner)
      .execute(() => never())
      .catch((e: unknown) => e);
    await clock.advance(100);
    expect(await slow).toBeInstanceOf(TimeoutError);
    const failing = pipeline({ name: 'outer' }, inner)
      .execute(() => Promise.reject(new Error('down')))
      .catch((e: unknown) => e);
    await clock.advance(100);
    expect(await failing).toMatchObject({ name: 'RetriesExhaustedError' });
    expect(events.map((e) => [e.type, e.name])).toEqual([
      ['timeout', 'outer'],
      ['timeout', 'inner'],
      ['retry', 'own'],
      ['giveup', 'own'],
    ]);
  });

  it('instrument({ name }) names the call for the layers inside it and measures it', async () => {
    const events = sink();
    const clock = new VirtualClock();
    const p = pipeline(
      instrument({ name: 'llm', clock }),
      retry({ maxAttempts: 2, clock, backoff: constant(5) }),
      instrument({ per: 'attempt', clock }),
    ).execute((ctx: CallContext) =>
      ctx.attempt === 1 ? Promise.reject(new Error('flaky')) : 'fine',
    );
    await clock.advance(10);
    await expect(p).resolves.toBe('fine');
    expect(events.map((e) => [e.type, e.name, e.outcome ?? null])).toEqual([
      ['attempt', 'llm', 'failure'],
      ['retry', 'llm', null],
      ['attempt', 'llm', 'success'],
      ['call', 'llm', 'success'],
    ]);
  });

  it('code running inside a named call (watch) emits under its name', async () => {
    const events = sink();
    const clock = new VirtualClock();
    async function* silent(): AsyncGenerator<string> {
      yield 'one';
      await never();
    }
    const p = pipeline({ name: 'stream' }, timeout(10_000, { clock })).execute(async () => {
      for await (const _ of watch(silent(), { idleMs: 50, clock })) {
        // consume
      }
    });
    const settled = p.catch((e: unknown) => e);
    await clock.advance(60);
    expect(await settled).toMatchObject({ name: 'StallError' });
    expect(events.filter((e) => e.type === 'stall').map((e) => e.name)).toEqual(['stream']);
  });

  it('events fired by the shared deadline timer carry their own call, not the caller of whoever armed it', async () => {
    const events = sink();
    const clock = new VirtualClock();
    const a = pipeline(instrument({ name: 'a', clock }), timeout(100, { clock })).execute(() =>
      never(),
    );
    const b = pipeline(instrument({ name: 'b', clock }), timeout(200, { clock })).execute(() =>
      never(),
    );
    const c = pipeline(instrument({ name: 'c', clock }), timeout(150, { clock })).execute(() =>
      never(),
    );
    for (const p of [a, b, c]) p.catch(() => {});
    await clock.advance(300);
    expect(events.filter((e) => e.type === 'timeout').map((e) => e.name)).toEqual(['a', 'c', 'b']);
  });

  it("an expiry runs in its own call's scope, even when the timer was armed inside another, live call", async () => {
    // The queue's one timer is armed by the first call that needs it, inside `outer`'s call. When
    // it later fires for `late`, code reacting to late's abort must see late's (aborted) scope: a
    // policy called from its abort listener is refused, instead of running in `outer`'s live scope.
    const shortLived = timeout(30);
    let ranInListener = false;
    let release!: () => void;
    const outer = timeout(5_000).execute(async () => {
      await shortLived.execute(() => 'quick'); // arms the shared timer for +30 ms, inside outer
      await new Promise<void>((r) => {
        release = r;
      });
    });
    await new Promise((r) => setTimeout(r, 5));
    const late = timeout(45).execute((ctx) => {
      ctx.signal.addEventListener('abort', () => {
        retry({ maxAttempts: 1 })
          .execute(() => {
            ranInListener = true;
          })
          .catch(() => {});
      });
      return never();
    });
    await expect(late).rejects.toBeInstanceOf(TimeoutError);
    await new Promise((r) => setTimeout(r, 5));
    expect(ranInListener).toBe(false);
    release();
    await outer;
  });
});

describe('no fn starts in an aborted call (issue 9.6)', () => {
  it("a policy called inside a call whose deadline passed is refused with that deadline's error", async () => {
    const clock = new VirtualClock();
    let innerStarted = false;
    const p = timeout(100, { clock }).execute(async () => {
      await clock.sleep(150); // ignores its signal and carries on past the deadline
      return retry({ maxAttempts: 1 }).execute(() => {
        innerStarted = true;
        return 'late';
      });
    });
    const outcome = p.catch((e: unknown) => e);
    await clock.advance(200);
    expect(await outcome).toBeInstanceOf(TimeoutError);
    expect(innerStarted).toBe(false);
  });

  it('a policy called after the caller aborted never runs fn', async () => {
    const controller = new AbortController();
    let started = 0;
    const clock = new VirtualClock();
    const p = pipeline(retry({ maxAttempts: 1 })).execute(
      async () => {
        await clock.sleep(10);
        return retry().execute(() => {
          started++;
        });
      },
      { signal: controller.signal },
    );
    controller.abort();
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    await clock.advance(20);
    expect(started).toBe(0);
  });
});

describe('deadlines on different clocks (issue 9.9)', () => {
  it('a retry on one clock under a timeout on another compares time left, not raw times', async () => {
    const timeoutClock = new VirtualClock(5); // a monotonic scale near zero, like performance.now()
    const wall = new VirtualClock(1_700_000_000_000); // a wall-clock scale
    let calls = 0;
    const p = pipeline(
      timeout(1_000, { clock: timeoutClock }),
      retry({ maxAttempts: 3, clock: wall, backoff: constant(10) }),
    ).execute(() => {
      calls++;
      if (calls < 3) throw new Error('transient');
      return 'third';
    });
    await wall.advance(10);
    await wall.advance(10);
    await expect(p).resolves.toBe('third');
    expect(calls).toBe(3);
  });

  it('the earliest deadline wins across clocks, measured by the time left on each', async () => {
    const a = new VirtualClock(0);
    const b = new VirtualClock(1_000_000);
    const seen = await timeout(500, { clock: a }).execute(() =>
      timeout(100, { clock: b }).execute((ctx) => ctx.deadline),
    );
    expect(seen).toBe(1_000_100);
    const outer = await timeout(100, { clock: a }).execute(() =>
      timeout(500, { clock: b }).execute((ctx) => ctx.deadline),
    );
    expect(outer).toBe(100);
  });
});
