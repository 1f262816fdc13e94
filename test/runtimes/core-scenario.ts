// The core's runtime test: one run of the root entry and agent-recourse/testing through what an
// agent loop leans on, written once and run on every runtime (test/runtimes/runtimes.test.ts runs it
// on Node, Bun, Deno and workerd). Real timers where the runtime's own must work (backoff sleeps, a
// timeout aborting its signal, a stream stall); VirtualClock where the point is the sequence (the
// breaker's cooldown). Nothing here runs at load: workerd allows timers and random numbers only
// inside a request. Each check is a name and `true`, or the text of what went wrong.
import {
  CircuitOpenError,
  type CallContext,
  circuitBreaker,
  exponential,
  explain,
  fallback,
  IdempotencyLedger,
  idempotencyKey,
  isStallError,
  isTimeoutError,
  jsonLogger,
  memoryStore,
  pipeline,
  type RecourseEvent,
  retry,
  sha256Hex,
  subscribe,
  timeout,
  validate,
  watch,
} from '../../src/index.js';
import { VirtualClock } from '../../src/testing/index.js';

export type Checks = Record<string, true | string>;

const overloaded = (): Error => Object.assign(new Error('overloaded'), { status: 529 });

function expectEqual(actual: unknown, expected: unknown, what: string): void {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${what}: expected ${e}, got ${a}`);
}

async function retryWithBackoff(events: RecourseEvent[]): Promise<void> {
  let calls = 0;
  const attempts: number[] = [];
  const value = await retry({
    maxAttempts: 4,
    backoff: exponential({ baseMs: 5, maxMs: 20 }),
  }).execute(async (ctx: CallContext) => {
    calls++;
    attempts.push(ctx.attempt);
    if (ctx.attempt < 3) throw overloaded();
    return 'answer';
  });
  expectEqual(
    { value, calls, attempts },
    { value: 'answer', calls: 3, attempts: [1, 2, 3] },
    'retry',
  );
  const retries = events.filter((e) => e.type === 'retry');
  expectEqual(retries.length, 2, 'retry events');
}

async function breakerOpenProbeClosed(): Promise<void> {
  const clock = new VirtualClock();
  const breaker = circuitBreaker({ failureThreshold: 2, cooldownMs: 1_000, clock });
  const states: string[] = [];
  breaker.on('state', (e) => states.push(e.to));
  const fail = async (): Promise<never> => {
    throw overloaded();
  };
  for (let i = 0; i < 2; i++) await breaker.execute(fail).catch(() => {});
  expectEqual(breaker.state, 'open', 'after two failures');
  let ran = false;
  const rejected = await breaker.execute(async () => (ran = true)).catch((e: unknown) => e);
  if (!(rejected instanceof CircuitOpenError) || ran)
    throw new Error('open breaker let a call run');
  await clock.advance(1_000);
  const probe = await breaker.execute(async () => 'probe ok');
  expectEqual(probe, 'probe ok', 'probe');
  expectEqual(breaker.state, 'closed', 'after the probe');
  expectEqual(states, ['open', 'half-open', 'closed'], 'state events');
}

async function timeoutAbortsItsSignal(): Promise<void> {
  let seen: AbortSignal | undefined;
  const error = await timeout(30)
    .execute(
      (ctx) =>
        new Promise<never>((_, reject) => {
          seen = ctx.signal;
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
        }),
    )
    .catch((e: unknown) => e);
  if (!isTimeoutError(error)) throw new Error(`expected a TimeoutError, got ${String(error)}`);
  if (seen?.aborted !== true) throw new Error("the call's signal was not aborted");
}

async function watchCatchesAStall(): Promise<void> {
  const controller = new AbortController();
  async function* stream(): AsyncGenerator<string> {
    yield 'first';
    // Then nothing, until the consumer gives up: a stream that hangs.
    await new Promise((resolve) => controller.signal.addEventListener('abort', resolve));
  }
  const seen: string[] = [];
  try {
    for await (const item of watch(stream(), { idleMs: 30, name: 'model' })) seen.push(item);
    throw new Error('the stream ended instead of stalling');
  } catch (error) {
    if (!isStallError(error)) throw error;
    expectEqual(seen, ['first'], 'items before the stall');
  } finally {
    controller.abort();
  }
}

async function fallbackServedBy(): Promise<void> {
  const served = await fallback([
    {
      name: 'primary',
      policy: retry({ maxAttempts: 2, backoff: exponential({ baseMs: 1, maxMs: 1 }) }),
      run: async (): Promise<string> => {
        throw overloaded();
      },
    },
    { name: 'backup', run: async () => 'from backup' },
  ]).execute();
  expectEqual(
    { value: served.value, servedBy: served.servedBy, degraded: served.degraded },
    { value: 'from backup', servedBy: 'backup', degraded: true },
    'fallback',
  );
}

async function validatedPipeline(): Promise<void> {
  let calls = 0;
  const nonEmpty = validate((r: { text: string }) => r.text.trim() !== '' || 'empty answer');
  const policy = pipeline(
    retry({ maxAttempts: 3, backoff: exponential({ baseMs: 1, maxMs: 1 }) }),
    timeout(5_000),
    nonEmpty,
  );
  const result = await policy.execute(async () => ({ text: ++calls === 1 ? '  ' : 'three facts' }));
  expectEqual({ result, calls }, { result: { text: 'three facts' }, calls: 2 }, 'validate');
}

async function explainAndLogs(lines: string[]): Promise<void> {
  const error = await retry({ maxAttempts: 2, backoff: exponential({ baseMs: 1, maxMs: 1 }) })
    .execute(async () => {
      throw overloaded();
    })
    .catch((e: unknown) => e);
  const text = explain(error);
  if (!text.includes('RetriesExhaustedError') || !text.includes('overloaded'))
    throw new Error(`explain: ${text}`);
  const logged = lines.map((line) => JSON.parse(line) as { event?: string; timestamp?: string });
  const retried = logged.find((l) => l.event === 'retry');
  if (retried === undefined) throw new Error(`no retry line among ${lines.length} JSON lines`);
  if (Number.isNaN(Date.parse(retried.timestamp ?? '')))
    throw new Error(`no timestamp: ${lines[0]}`);
}

async function ledgerOnMemoryStore(): Promise<void> {
  const ledger = new IdempotencyLedger(memoryStore());
  const key = idempotencyKey('send', { to: 'ops@example.com' });
  let runs = 0;
  const first = await ledger.run(key, async () => `sent ${++runs}`);
  const again = await ledger.run(key, async () => `sent ${++runs}`);
  expectEqual({ first, again, runs }, { first: 'sent 1', again: 'sent 1', runs: 1 }, 'ledger');
  // The same key on every runtime: sha256 of canonical JSON, computed in plain code.
  expectEqual(
    sha256Hex('[]'),
    '4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945',
    'sha256',
  );
  expectEqual(idempotencyKey('a', 1), idempotencyKey('a', 1), 'idempotencyKey');
}

/** Runs every check; never throws. */
export async function coreScenario(): Promise<Checks> {
  const checks: Checks = {};
  const events: RecourseEvent[] = [];
  const lines: string[] = [];
  const stopEvents = subscribe((e) => events.push(e));
  const stopLog = subscribe(jsonLogger({ write: (line: string) => lines.push(line) }));
  const steps: Array<[string, () => Promise<void>]> = [
    ['retry with backoff', () => retryWithBackoff(events)],
    ['breaker open, probe, closed', breakerOpenProbeClosed],
    ['timeout aborts its signal', timeoutAbortsItsSignal],
    ['watch catches a stall', watchCatchesAStall],
    ['fallback with servedBy', fallbackServedBy],
    ['validate in a pipeline', validatedPipeline],
    ['explain and JSON logs', () => explainAndLogs(lines)],
    ['ledger on memoryStore', ledgerOnMemoryStore],
  ];
  try {
    for (const [name, step] of steps) {
      try {
        await step();
        checks[name] = true;
      } catch (error) {
        checks[name] = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      }
    }
    checks['events reach subscribe'] = events.some((e) => e.type === 'retry')
      ? true
      : `no retry event among ${events.length}`;
  } finally {
    stopEvents();
    stopLog();
  }
  return checks;
}
