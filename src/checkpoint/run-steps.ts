import { canonicalJson } from '../canonical/canonical-json.js';
import { checkKey } from '../idempotency/check-key.js';
import { checkOptions, type OptionKeys, showValue } from '../options/validate-options.js';
import { CheckpointCorruptError } from './checkpoint-corrupt-error.js';
import { type Checkpointer, type DetailedRecovery, RECOVER_DETAILED } from './checkpointer.js';

/**
 * One step of {@link runSteps}: takes the state after the previous step (`In`), returns the next
 * (`Out`, by default the same type). Steps whose output type differs from their input let the
 * state grow step by step.
 */
export type Step<In, Out = In> = (state: In, ctx: { stepIndex: number }) => Promise<Out>;

/** Options of {@link runSteps}. */
export interface RunStepsOptions<S> {
  checkpointer: Checkpointer;
  /** The state step 0 receives when the task has no checkpoint yet. */
  initialState: S;
}

const RUN_STEPS_KEYS: OptionKeys<RunStepsOptions<unknown>> = {
  checkpointer: true,
  initialState: true,
};

/**
 * Runs `steps` in order, saving a checkpoint after each, and resumes after the last good step when
 * the task ran before (a crash, a failed step): step `i` receives the state step `i - 1` returned
 * (typed: with up to 8 steps written inline, each step's input type is the previous step's output,
 * so the state can grow step by step; longer lists use one state type),
 * as its JSON round trip (the same whether it ran in this process or came from the checkpoint). A
 * finished task returns its final state without running anything. A corrupted checkpoint rejects
 * with `CheckpointCorruptError`: it neither resumes from it nor silently starts over. A step's
 * failure propagates; the next run resumes at that step. States must be JSON (`NotSerializableError`
 * names the path, and nothing is saved for that step).
 *
 * @example
 * const report = await runSteps('report-7', [fetchSources, summarise, publish], {
 *   checkpointer: new Checkpointer(sqliteStore({ path: 'state.db' })),
 *   initialState: { topic: 'tides' },
 * })
 */
export function runSteps<S0, S1>(
  taskId: string,
  steps: [Step<S0, S1>],
  options: RunStepsOptions<S0>,
): Promise<S1>;
export function runSteps<S0, S1, S2>(
  taskId: string,
  steps: [Step<S0, S1>, Step<S1, S2>],
  options: RunStepsOptions<S0>,
): Promise<S2>;
export function runSteps<S0, S1, S2, S3>(
  taskId: string,
  steps: [Step<S0, S1>, Step<S1, S2>, Step<S2, S3>],
  options: RunStepsOptions<S0>,
): Promise<S3>;
export function runSteps<S0, S1, S2, S3, S4>(
  taskId: string,
  steps: [Step<S0, S1>, Step<S1, S2>, Step<S2, S3>, Step<S3, S4>],
  options: RunStepsOptions<S0>,
): Promise<S4>;
export function runSteps<S0, S1, S2, S3, S4, S5>(
  taskId: string,
  steps: [Step<S0, S1>, Step<S1, S2>, Step<S2, S3>, Step<S3, S4>, Step<S4, S5>],
  options: RunStepsOptions<S0>,
): Promise<S5>;
export function runSteps<S0, S1, S2, S3, S4, S5, S6>(
  taskId: string,
  steps: [Step<S0, S1>, Step<S1, S2>, Step<S2, S3>, Step<S3, S4>, Step<S4, S5>, Step<S5, S6>],
  options: RunStepsOptions<S0>,
): Promise<S6>;
export function runSteps<S0, S1, S2, S3, S4, S5, S6, S7>(
  taskId: string,
  steps: [
    Step<S0, S1>,
    Step<S1, S2>,
    Step<S2, S3>,
    Step<S3, S4>,
    Step<S4, S5>,
    Step<S5, S6>,
    Step<S6, S7>,
  ],
  options: RunStepsOptions<S0>,
): Promise<S7>;
export function runSteps<S0, S1, S2, S3, S4, S5, S6, S7, S8>(
  taskId: string,
  steps: [
    Step<S0, S1>,
    Step<S1, S2>,
    Step<S2, S3>,
    Step<S3, S4>,
    Step<S4, S5>,
    Step<S5, S6>,
    Step<S6, S7>,
    Step<S7, S8>,
  ],
  options: RunStepsOptions<S0>,
): Promise<S8>;
export function runSteps<S>(
  taskId: string,
  steps: ReadonlyArray<Step<S>>,
  options: RunStepsOptions<S>,
): Promise<S>;
export async function runSteps(
  taskId: string,
  steps: ReadonlyArray<Step<unknown>>,
  options: RunStepsOptions<unknown>,
): Promise<unknown> {
  checkKey('taskId', taskId);
  if (!Array.isArray(steps) || steps.some((s) => typeof s !== 'function'))
    throw new TypeError(`steps must be an array of functions, got ${showValue(steps)}`);
  const o = checkOptions('runSteps', options, RUN_STEPS_KEYS);
  const checkpointer = o.checkpointer as Partial<Checkpointer> | undefined;
  if (typeof checkpointer?.save !== 'function' || typeof checkpointer.recover !== 'function') {
    throw new TypeError(
      `checkpointer must be a Checkpointer, e.g. new Checkpointer(store), got ${showValue(o.checkpointer)}`,
    );
  }
  // Refuse a bad initial state before any step's side effect happens.
  const initialText = canonicalJson(o.initialState, 'initialState');

  // A Checkpointer from another copy of recourse has no detailed form: its plain recover() will do.
  const found: DetailedRecovery =
    typeof checkpointer[RECOVER_DETAILED] === 'function'
      ? await checkpointer[RECOVER_DETAILED](taskId)
      : await checkpointer.recover(taskId);
  let state: unknown;
  let next: number;
  if (found.recovered) {
    if (found.resumeFromStep > steps.length) {
      throw new RangeError(
        `task ${JSON.stringify(taskId)} has a checkpoint at step ${found.stepIndex}, but only ${steps.length} step(s) were given`,
      );
    }
    state = found.state;
    next = found.resumeFromStep;
  } else if (found.reason === 'checkpoint_corrupted') {
    throw new CheckpointCorruptError(
      taskId,
      (found as { detail?: string }).detail ?? 'failed its checks',
    );
  } else {
    state = JSON.parse(initialText);
    next = 0;
  }
  for (let i = next; i < steps.length; i++) {
    const after = await steps[i]!(state, { stepIndex: i });
    // Continue with the round trip, so a resumed run and an uninterrupted one see the same values.
    const text = canonicalJson(after, 'state');
    await checkpointer.save!(taskId, i, JSON.parse(text));
    state = JSON.parse(text);
  }
  return state;
}
