import { isStringArray, parseStored } from '../store/parse-stored.js';
import type { Backoff } from '../backoff/backoff.js';
import { exponential } from '../backoff/exponential.js';
import { canonicalJson } from '../canonical/canonical-json.js';
import {
  isNotSerializableError,
  NotSerializableError,
} from '../canonical/not-serializable-error.js';
import type { Clock } from '../clock/clock.js';
import { checkKey } from '../idempotency/check-key.js';
import { nextDelay } from '../backoff/next-delay.js';
import {
  checkClock,
  checkFunction,
  checkInteger,
  checkMs,
  checkOptions,
  checkSignal,
  type OptionKeys,
} from '../options/validate-options.js';
import type { SagaLogEntry, SagaLogStore } from '../store/saga-log-store.js';
import { isStoreError, type StoreError } from '../store/store-error.js';
import { wallClock } from '../clock/wall-clock.js';
import { textOf } from '../text/safe-text.js';
import { defaultSagaStore } from './default-saga-store.js';
import { type CompensationFailure, SagaFailedError } from './saga-failed-error.js';
import { SagaStateError } from './saga-state-error.js';
import { SagaWriter, type WriterSettings } from './saga-writer.js';

/** Options of {@link Saga}. */
export interface SagaOptions {
  /** Where the log lives. Default: one in-memory log per process (lost on exit: use `sqliteStore` to survive crashes). */
  store?: SagaLogStore;
  /** Default `wallClock`: processes sharing a store must share a time scale. */
  clock?: Clock;
  /** The saga's lease, renewed every `leaseMs / 3` by its live holder; a holder that stopped renewing loses it after this long. Default 30000. */
  leaseMs?: number;
  /** Attempts per compensation, the first included. Default 3. */
  compensationAttempts?: number;
  /** Delay between attempts of a failing compensation. Default exponential, 200 ms → 5 s, full jitter. */
  compensationBackoff?: Backoff;
  /** Source of jitter in [0, 1). Default `Math.random`. */
  random?: () => number;
}

const SAGA_KEYS: OptionKeys<SagaOptions> = {
  store: true,
  clock: true,
  leaseMs: true,
  compensationAttempts: true,
  compensationBackoff: true,
  random: true,
};

/** Per-call options of {@link Saga.recover}. */
export interface SagaRecoverOptions {
  /** Stops waiting for another process's lease on the saga. */
  signal?: AbortSignal;
}

const SAGA_RECOVER_KEYS: OptionKeys<SagaRecoverOptions> = { signal: true };

interface StepDef {
  name: string;
  action: () => Promise<unknown>;
  compensate: (result: never) => Promise<void>;
}

/** A completed step awaiting (possible) compensation. */
interface Done {
  index: number;
  name: string;
  /** What the compensation receives: the logged result's round trip. */
  value: unknown;
}

const parse = (text: string | undefined): unknown =>
  text === undefined ? undefined : JSON.parse(text);

/**
 * A multi-step change that is undone when it fails half way. Each step is an action and its
 * compensation; `run()` logs every completed step with its result (which must be JSON), and when
 * a step fails it compensates the completed ones in reverse, each exactly once (a failing
 * compensation is retried with backoff, then reported while the others still run), and rejects
 * with `SagaFailedError`. After a crash, a new process builds the same saga (same id, same steps)
 * and calls `recover()`: it takes the saga's lease and compensates, from the log, the steps that
 * completed. A live holder is waited for; a holder whose process is gone is replaced at once when
 * it ran on this machine, otherwise when its lease lapses (`leaseMs` after its last renewal). A step interrupted by the crash has no logged result and
 * is not compensated. A compensation interrupted by a crash runs again on recovery, so make
 * compensations idempotent. Defaults: leaseMs 30000, compensationAttempts 3, clock wallClock.
 *
 * @example
 * const saga = new Saga(`order-${id}`, { store })
 *   .step('reserve', () => inventory.reserve(sku), (r) => inventory.release(r.reservationId))
 *   .step('charge', () => payments.charge(card, total), (c) => payments.refund(c.chargeId))
 *   .step('ship', () => shipping.create(address), (s) => shipping.cancel(s.labelId))
 * await saga.run()   // at start-up after a crash: await saga.recover()
 */
export class Saga<R extends unknown[] = []> {
  readonly id: string;
  readonly #steps: StepDef[] = [];
  readonly #s: WriterSettings;
  readonly #attempts: number;
  readonly #backoff: Backoff;

  constructor(id: string, options?: SagaOptions) {
    this.id = checkKey('id', id);
    const o = checkOptions('Saga', options, SAGA_KEYS);
    if (
      o.store !== undefined &&
      typeof (o.store as Partial<SagaLogStore>)?.sagaAppend !== 'function'
    ) {
      throw new TypeError(
        'store must be a SagaLogStore, e.g. memoryStore() or sqliteStore({ path })',
      );
    }
    if (
      o.compensationBackoff !== undefined &&
      typeof (o.compensationBackoff as Partial<Backoff>)?.delay !== 'function'
    ) {
      throw new TypeError(
        'compensationBackoff must be a Backoff (an object with a delay() function), e.g. exponential()',
      );
    }
    this.#s = {
      store: o.store ?? defaultSagaStore(),
      clock: checkClock<Clock>('clock', o.clock ?? wallClock),
      leaseMs: o.leaseMs === undefined ? 30_000 : checkMs('leaseMs', o.leaseMs, 1),
      poll: exponential({ baseMs: 50, maxMs: 1000, jitter: 'equal' }),
      random: o.random === undefined ? Math.random : checkFunction('random', o.random),
    };
    this.#attempts =
      o.compensationAttempts === undefined
        ? 3
        : checkInteger('compensationAttempts', o.compensationAttempts, 1);
    this.#backoff = o.compensationBackoff ?? exponential({ baseMs: 200, maxMs: 5000 });
  }

  /**
   * Adds a step. `action`'s result is logged (it must be JSON: canonical JSON rules) and handed,
   * as its JSON round trip, to `compensate` if a later step fails. Names must be unique. Returns
   * this saga, typed with one more result: chain the calls, so `run()` resolves with a typed tuple.
   */
  step<T>(
    name: string,
    action: () => Promise<T>,
    compensate: (result: T) => Promise<void>,
  ): Saga<[...R, T]> {
    checkKey('name', name);
    if (this.#steps.some((s) => s.name === name))
      throw new TypeError(`step names must be unique; ${JSON.stringify(name)} is used twice`);
    this.#steps.push({
      name,
      action: checkFunction<() => Promise<unknown>>('action', action),
      compensate: checkFunction<(result: never) => Promise<void>>('compensate', compensate),
    });
    // The same object, its type now knowing one more result.
    return this as unknown as Saga<[...R, T]>;
  }

  /**
   * Runs the steps in order and resolves with their results, a tuple typed by the chained
   * `step()` calls. On a failure, compensates the completed steps in reverse and rejects with
   * `SagaFailedError`. Fails closed on the store: when the saga's lease or its `begin` line cannot
   * be written it rejects with `StoreError` before any step runs; when a later line cannot be
   * written, the steps done so far (the unlogged one included, with the value in hand) are
   * compensated and it rejects with `SagaFailedError` whose cause is the `StoreError` — no effect is
   * left in place without its record. Rejects with `SagaStateError` when another process holds the
   * saga (`in_progress`) or an earlier run was interrupted (`needs_recovery`: call `recover()`
   * first). A finished earlier run's log is replaced.
   */
  async run(): Promise<R> {
    const writer = await SagaWriter.take(this.id, this.#s);
    try {
      const log = await writer.read();
      if (log.length > 0) {
        if (!log.some((e) => e.type === 'end')) {
          throw new SagaStateError(
            this.id,
            'needs_recovery',
            'an earlier run was interrupted before it finished; call recover() first',
          );
        }
        await writer.reset();
      }
      await writer.append({
        type: 'begin',
        step: -1,
        name: '',
        data: JSON.stringify(this.#steps.map((s) => s.name)),
      });
      const done: Done[] = [];
      const results: unknown[] = [];
      for (let i = 0; i < this.#steps.length; i++) {
        const step = this.#steps[i]!;
        let result: unknown;
        try {
          result = await step.action();
        } catch (error) {
          throw await this.#undo(writer, done, step.name, error, {
            type: 'step_failed',
            step: i,
            name: step.name,
            data: textOf(error),
          });
        }
        let text: string | undefined;
        try {
          text = result === undefined ? undefined : canonicalJson(result, 'result');
        } catch (error) {
          // The action did happen: undo it too, with the value in hand, then the ones before it.
          const cause = unloggable(this.id, step.name, error);
          done.push({ index: i, name: step.name, value: result });
          throw await this.#undo(writer, done, step.name, cause, {
            type: 'step_failed',
            step: i,
            name: step.name,
            data: textOf(cause),
          });
        }
        try {
          await writer.append(
            text === undefined
              ? { type: 'step', step: i, name: step.name }
              : { type: 'step', step: i, name: step.name, data: text },
          );
        } catch (error) {
          // Unlogged, nobody else would ever undo this step: undo it here, with the value in hand.
          done.push({ index: i, name: step.name, value: result });
          if (!isStoreError(error)) throw await this.#undoAlone(done.at(-1)!, error);
          throw await this.#undo(writer, done, step.name, error);
        }
        done.push({ index: i, name: step.name, value: parse(text) });
        results.push(result);
      }
      try {
        await writer.append({ type: 'end', step: -1, name: '', data: 'completed' });
      } catch (error) {
        // Without its end line a later recover() would undo the saga anyway: undo it now, and say so.
        if (!isStoreError(error)) throw error;
        throw await this.#undo(writer, done, '(end)', error);
      }
      return results as R;
    } finally {
      await writer.close().catch(() => {});
    }
  }

  /**
   * After a crash: compensates, from the log, the steps an unfinished run completed (in reverse,
   * each once) and resolves `'compensated'`; `'completed'` when the log shows the saga finished;
   * `'nothing_to_do'` when there is no log or no step had completed. Waits (abortable) while
   * another process holds the saga. Rejects with `SagaFailedError` when a compensation still
   * fails (a later `recover()` retries only those), or `SagaStateError` (`definition_mismatch`)
   * when these steps are not the ones logged.
   */
  async recover(
    options?: SagaRecoverOptions,
  ): Promise<'compensated' | 'completed' | 'nothing_to_do'> {
    const signal = checkSignal(
      'signal',
      checkOptions('recover', options, SAGA_RECOVER_KEYS).signal,
    );
    const writer = await SagaWriter.await(this.id, this.#s, signal);
    try {
      const log = await writer.read();
      if (log.length === 0) return 'nothing_to_do';
      this.#checkDefinition(log);
      const end = log.findLast((e) => e.type === 'end')?.data;
      if (end === 'completed') return 'completed';
      if (end === 'compensated') return 'compensated';
      const undone = new Set(log.filter((e) => e.type === 'compensated').map((e) => e.step));
      const done: Done[] = log
        .filter((e) => e.type === 'step' && !undone.has(e.step))
        .map((e) => ({
          index: e.step,
          name: e.name,
          value:
            e.data === undefined
              ? undefined
              : parseStored(e.data, {
                  what: `saga log, step ${JSON.stringify(e.name)}`,
                  key: this.id,
                }),
        }));
      const failed = log.find((e) => e.type === 'step_failed');
      if (end === undefined && done.length === 0 && undone.size === 0) {
        await writer.append({ type: 'end', step: -1, name: '', data: 'compensated' });
        return 'nothing_to_do';
      }
      const cause =
        failed !== undefined
          ? new Error(failed.data ?? 'step failed')
          : new Error('interrupted: the process running the saga stopped during this step');
      const failedStep = failed?.name ?? this.#interruptedStep(log);
      const error = await this.#undo(writer, done, failedStep, cause);
      if (error.compensationErrors.length > 0 || error.logError !== undefined) throw error;
      return 'compensated';
    } finally {
      await writer.close().catch(() => {});
    }
  }

  #checkDefinition(log: SagaLogEntry[]): void {
    const begin = log.find((e) => e.type === 'begin');
    const names = this.#steps.map((s) => s.name);
    const logged =
      begin?.data === undefined
        ? []
        : parseStored<string[]>(
            begin.data,
            { what: 'saga log, begin', key: this.id },
            isStringArray,
            'a list of step names',
          );
    if (JSON.stringify(logged) !== JSON.stringify(names)) {
      throw new SagaStateError(
        this.id,
        'definition_mismatch',
        `the log was written by steps [${logged.join(', ')}], these are [${names.join(', ')}]`,
      );
    }
  }

  #interruptedStep(log: SagaLogEntry[]): string {
    const last = log.reduce((max, e) => (e.type === 'step' ? Math.max(max, e.step) : max), -1);
    return this.#steps[last + 1]?.name ?? '(after the last step)';
  }

  /**
   * Logs `first` (the failed step), compensates `done` in reverse, logging each outcome, then the
   * end line. A log line that cannot be written (`StoreError`) does not stop the compensations:
   * effects are undone even when the store is down, and the error says the log is behind. A lost
   * lease does stop them: the process that took the saga over compensates from the log.
   */
  async #undo(
    writer: SagaWriter,
    done: Done[],
    failedStep: string,
    cause: unknown,
    first?: Omit<SagaLogEntry, 'at'>,
  ): Promise<SagaFailedError> {
    let logError: StoreError | undefined = isStoreError(cause) ? cause : undefined;
    const log = async (entry: Omit<SagaLogEntry, 'at'>): Promise<void> => {
      if (logError !== undefined) return;
      try {
        await writer.append(entry);
      } catch (error) {
        if (!isStoreError(error)) throw error;
        logError = error;
      }
    };
    if (first !== undefined) await log(first);
    const compensated: string[] = [];
    const errors: CompensationFailure[] = [];
    for (const d of [...done].sort((a, b) => b.index - a.index)) {
      const step = this.#steps[d.index];
      if (step === undefined) continue;
      const failure = await this.#compensate(step, d.value).then(
        () => undefined,
        (error: unknown) => ({ error }),
      );
      if (failure === undefined) {
        compensated.push(d.name);
        await log({ type: 'compensated', step: d.index, name: d.name });
      } else {
        errors.push({ step: d.name, error: failure.error });
        await log({
          type: 'compensation_failed',
          step: d.index,
          name: d.name,
          data: textOf(failure.error),
        });
      }
    }
    await log({
      type: 'end',
      step: -1,
      name: '',
      data: errors.length > 0 ? 'compensation_failed' : 'compensated',
    });
    return new SagaFailedError(this.id, failedStep, cause, compensated, errors, logError);
  }

  /** Undoes one unlogged step after the saga's lease was lost, then returns `lost` to throw. */
  async #undoAlone(d: Done, lost: unknown): Promise<unknown> {
    const step = this.#steps[d.index];
    if (step !== undefined) await this.#compensate(step, d.value).catch(() => {});
    return lost;
  }

  async #compensate(step: StepDef, value: unknown): Promise<void> {
    let previous = 0;
    for (let attempt = 1; ; attempt++) {
      try {
        await (step.compensate as (result: unknown) => Promise<void>)(value);
        return;
      } catch (error) {
        if (attempt >= this.#attempts) throw error;
        previous = nextDelay(this.#backoff, attempt, previous, this.#s.random);
        await this.#s.clock.sleep(previous);
      }
    }
  }
}

function unloggable(id: string, step: string, error: unknown): unknown {
  if (!isNotSerializableError(error)) return error;
  return new NotSerializableError(
    error.path,
    error.reason,
    `saga ${JSON.stringify(id)}: the result of step ${JSON.stringify(step)} cannot be logged: ${error.message}`,
    {
      cause: error,
    },
  );
}
