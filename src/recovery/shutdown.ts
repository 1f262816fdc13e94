import { type Clock, systemClock } from '../clock/clock.js';
import type { Work } from '../context/call-context.js';
import { Scope } from '../context/scope.js';
import { RunStoppedError } from '../errors/run-stopped-error.js';
import {
  checkClock,
  checkFunction,
  checkMs,
  checkName,
  checkOptions,
  type OptionKeys,
} from '../options/validate-options.js';
import { asPromise, BaseLayer, COMPOSE, type Invoke, isThenable } from '../policy/layer.js';
import type { EventedPolicy } from '../policy/policy.js';
import { textOf } from '../text/safe-text.js';

/** Options of {@link shutdown}. */
export interface ShutdownOptions {
  /** Reported in events. */
  name?: string;
  /** How long a stop waits for calls in flight to finish before it aborts them, ms. Default 10000. */
  drainMs?: number;
  /** How long one shutdown step may take before the stop goes on without it, ms. Default 5000. */
  stepMs?: number;
  clock?: Clock;
}

const SHUTDOWN_KEYS: OptionKeys<ShutdownOptions> = {
  name: true,
  drainMs: true,
  stepMs: true,
  clock: true,
};

/** How one shutdown step went. */
export interface StopStepResult {
  name: string;
  outcome: 'done' | 'failed' | 'timed-out';
  error?: unknown;
  durationMs: number;
}

/** What a stop did: why, how many calls it drained or aborted, and each step's outcome. */
export interface StopReport {
  /** What stopped the run (the fatal error, or the reason given to `stop`). */
  reason: unknown;
  /** Calls in flight when the stop began (the failing call itself not counted). */
  inFlight: number;
  /** Of those, still running at the drain deadline: aborted with `RunStoppedError`. */
  aborted: number;
  steps: StopStepResult[];
  durationMs: number;
}

/**
 * A gate for a run's calls that can stop it once, gracefully: after `stop()` no call starts any
 * more (each is refused with `RunStoppedError`, before its work runs, and so is every further
 * attempt of a retry running inside it), calls in flight get `drainMs` to finish and are then
 * aborted, and the registered steps run once, in order (flush sinks, save checkpoints, close
 * clients). `byClass` stops it on a fatal failure. Event: `stop` {error, inFlight, aborted,
 * failedSteps, durationMs}.
 */
export interface Shutdown extends EventedPolicy<'stop'> {
  /** True once `stop` was called. */
  readonly stopped: boolean;
  /** Calls running through this gate now. */
  readonly inFlight: number;
  /**
   * Registers a step run once by the stop, after the drain, in registration order; each gets
   * `stepMs` (its signal is aborted then) and a step that fails does not keep the others from
   * running. Returns a function that unregisters it.
   */
  step(name: string, run: (signal: AbortSignal) => unknown): () => void;
  /**
   * Stops the run once: refuses new calls at once, drains the calls in flight, runs the steps.
   * Every later call returns the same report.
   */
  stop(reason?: unknown): Promise<StopReport>;
}

/** A call's scope that the gate can abort at the drain deadline (its signal reaches the work). */
class StoppableScope extends Scope {
  constructor(parent: Scope) {
    super(
      parent,
      parent.attempt,
      parent.deadline,
      parent.clockOfDeadline,
      parent.callInfo,
      undefined,
      true,
    );
  }
}

interface Entry {
  readonly scope: StoppableScope;
  reject: ((error: unknown) => void) | undefined;
}

/** @internal A registered step. */
interface Step {
  readonly name: string;
  readonly run: (signal: AbortSignal) => unknown;
}

/** @internal The gate; `byClass` uses its `track` and `guard` directly. */
export class ShutdownGate extends BaseLayer implements Shutdown {
  readonly #drainMs: number;
  readonly #stepMs: number;
  readonly #clock: Clock;
  readonly #entries = new Set<Entry>();
  readonly #steps: Step[] = [];
  #report: Promise<StopReport> | undefined;
  #reason: unknown;
  #idle: (() => void) | undefined;

  constructor(options: ShutdownOptions | undefined) {
    const o = checkOptions('shutdown', options, SHUTDOWN_KEYS);
    super('shutdown', o.name === undefined ? undefined : checkName('name', o.name));
    this.#drainMs = o.drainMs === undefined ? 10_000 : checkMs('drainMs', o.drainMs);
    this.#stepMs = o.stepMs === undefined ? 5_000 : checkMs('stepMs', o.stepMs);
    this.#clock = checkClock<Clock>('clock', o.clock ?? systemClock);
  }

  get stopped(): boolean {
    return this.#report !== undefined;
  }

  get inFlight(): number {
    return this.#entries.size;
  }

  /** @internal The refusal of a call (or of a further attempt) after the stop began. */
  refusal(): RunStoppedError {
    return new RunStoppedError('refused', this.#reason);
  }

  /** @internal `fn` refusing to start once the stop began (a retry's later attempts included). */
  guard(fn: Work<unknown>): Work<unknown> {
    return (ctx) => {
      if (this.#report !== undefined) throw this.refusal();
      return fn(ctx);
    };
  }

  /**
   * @internal Runs `body` as one call in flight, in a child scope the drain deadline can abort;
   * `leave` takes it out of the drain early (a call that is about to stop the run must not wait
   * for itself). The caller gets control back at once when the call is aborted.
   */
  track<T>(
    scope: Scope,
    body: (child: Scope, leave: () => void) => T | PromiseLike<T>,
  ): Promise<T> {
    if (this.#report !== undefined) return Promise.reject(this.refusal());
    const entry: Entry = { scope: new StoppableScope(scope), reject: undefined };
    this.#entries.add(entry);
    const leave = (): void => this.#leave(entry);
    let result: T | PromiseLike<T>;
    try {
      result = body(entry.scope, leave);
    } catch (error) {
      leave();
      return Promise.reject(error);
    }
    if (!isThenable(result)) {
      leave();
      return Promise.resolve(result);
    }
    return new Promise<T>((resolve, reject) => {
      entry.reject = reject;
      asPromise(result).then(
        (value) => {
          leave();
          resolve(value as T);
        },
        (error: unknown) => {
          leave();
          reject(error);
        },
      );
    });
  }

  #leave(entry: Entry): void {
    if (!this.#entries.delete(entry)) return;
    entry.scope.dispose();
    if (this.#entries.size === 0) this.#idle?.();
  }

  [COMPOSE](next: Invoke): Invoke {
    return (fn: Work<unknown>, scope: Scope) =>
      this.track(scope, (child) => next(this.guard(fn), child));
  }

  step(name: string, run: (signal: AbortSignal) => unknown): () => void {
    const step: Step = { name: checkName('name', name), run: checkFunction('run', run) };
    this.#steps.push(step);
    return () => {
      const i = this.#steps.indexOf(step);
      if (i >= 0) this.#steps.splice(i, 1);
    };
  }

  stop(reason: unknown = new Error('stopped')): Promise<StopReport> {
    if (this.#report === undefined) {
      this.#reason = reason;
      this.#report = this.#run(reason);
    }
    return this.#report;
  }

  async #run(reason: unknown): Promise<StopReport> {
    const started = this.#clock.now();
    const inFlight = this.#entries.size;
    if (inFlight > 0) {
      const idle = new Promise<void>((resolve) => {
        this.#idle = resolve;
      });
      const timer = new AbortController();
      await Promise.race([idle, this.#clock.sleep(this.#drainMs, timer.signal).catch(() => {})]);
      timer.abort();
      this.#idle = undefined;
    }
    const aborted = this.#entries.size;
    for (const entry of [...this.#entries]) {
      const error = new RunStoppedError('drain', reason);
      this.#leave(entry);
      entry.scope.abort(error);
      entry.reject?.(error);
    }
    const steps: StopStepResult[] = [];
    for (const step of [...this.#steps]) steps.push(await this.#runStep(step));
    const report: StopReport = {
      reason,
      inFlight,
      aborted,
      steps,
      durationMs: this.#clock.now() - started,
    };
    if (this.wants('stop')) {
      this.events.emit('stop', {
        error: reason,
        inFlight,
        aborted,
        failedSteps: steps.filter((s) => s.outcome !== 'done').map((s) => s.name),
        durationMs: report.durationMs,
      });
    }
    return report;
  }

  async #runStep(step: Step): Promise<StopStepResult> {
    const started = this.#clock.now();
    const deadline = new AbortController();
    const done = (outcome: StopStepResult['outcome'], error?: unknown): StopStepResult => ({
      name: step.name,
      outcome,
      ...(outcome === 'done' ? {} : { error }),
      durationMs: this.#clock.now() - started,
    });
    const timer = new AbortController();
    try {
      const ran = Promise.resolve().then(() => step.run(deadline.signal));
      const late = this.#clock.sleep(this.#stepMs, timer.signal).then(
        () => 'late' as const,
        () => 'cancelled' as const,
      );
      const first = await Promise.race([ran.then(() => 'done' as const), late]);
      if (first === 'late') {
        const error = new Error(
          `shutdown step ${JSON.stringify(step.name)} did not finish within ${this.#stepMs} ms`,
        );
        deadline.abort(error);
        ran.catch(() => {});
        return done('timed-out', error);
      }
      return done('done');
    } catch (error) {
      return done('failed', error);
    } finally {
      timer.abort();
    }
  }

  override toString(): string {
    return `shutdown(${this.stopped ? `stopped: ${textOf(this.#reason)}` : `${this.#entries.size} in flight`})`;
  }
}

/**
 * A graceful stop for a run: a policy that lets calls through until `stop()`, then refuses every
 * new call (and every further retry attempt) with `RunStoppedError`, gives the calls in flight
 * `drainMs` to finish, aborts the rest (their `ctx.signal`), and runs the registered steps once,
 * in order. Give it to `byClass({ shutdown })` so a fatal failure stops the whole run (several
 * `byClass` policies may share one); call `stop()` yourself on SIGTERM. Defaults: drainMs 10000,
 * stepMs 5000.
 *
 * @example
 * const run = shutdown({ drainMs: 5_000 })
 * run.step('flush log', () => new Promise((done) => log.end(done)))
 * run.step('save checkpoint', () => checkpointer.save(taskId, step, state))
 * const claude = byClass({ name: 'claude', shutdown: run })
 * process.once('SIGTERM', () => void run.stop(new Error('SIGTERM')))
 */
export function shutdown(options?: ShutdownOptions): Shutdown {
  return new ShutdownGate(options);
}
