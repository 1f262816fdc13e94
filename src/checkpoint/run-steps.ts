import { canonicalJson } from '../canonical/canonical-json.js';
import { checkKey } from '../idempotency/check-key.js';
import { checkOptions, type OptionKeys, showValue } from '../options/validate-options.js';
import { CheckpointCorruptError } from './checkpoint-corrupt-error.js';
import { type Checkpointer, type DetailedRecovery, RECOVER_DETAILED } from './checkpointer.js';

/** One step of {@link runSteps}: takes the state after the previous step, returns the next. */
export type Step<S> = (state: S, ctx: { stepIndex: number }) => Promise<S>;

/** Options of {@link runSteps}. */
export interface RunStepsOptions<S> {
  checkpointer: Checkpointer;
  /** The state step 0 receives when the task has no checkpoint yet. */
  initialState: S;
}

const RUN_STEPS_KEYS: OptionKeys<RunStepsOptions<unknown>> = { checkpointer: true, initialState: true };

/**
 * Runs `steps` in order, saving a checkpoint after each, and resumes after the last good step when
 * the task ran before (a crash, a failed step): step `i` receives the state step `i - 1` returned,
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
export async function runSteps<S>(taskId: string, steps: Array<Step<S>>, options: RunStepsOptions<S>): Promise<S> {
  checkKey('taskId', taskId);
  if (!Array.isArray(steps) || steps.some((s) => typeof s !== 'function')) throw new TypeError(`steps must be an array of functions, got ${showValue(steps)}`);
  const o = checkOptions('runSteps', options, RUN_STEPS_KEYS);
  const checkpointer = o.checkpointer as Partial<Checkpointer> | undefined;
  if (typeof checkpointer?.save !== 'function' || typeof checkpointer.recover !== 'function') {
    throw new TypeError(`checkpointer must be a Checkpointer, e.g. new Checkpointer(store), got ${showValue(o.checkpointer)}`);
  }
  // Refuse a bad initial state before any step's side effect happens.
  const initialText = canonicalJson(o.initialState, 'initialState');

  // A Checkpointer from another copy of recourse has no detailed form: its plain recover() will do.
  const found: DetailedRecovery =
    typeof checkpointer[RECOVER_DETAILED] === 'function' ? await checkpointer[RECOVER_DETAILED](taskId) : await checkpointer.recover(taskId);
  let state: S;
  let next: number;
  if (found.recovered) {
    if (found.resumeFromStep > steps.length) {
      throw new RangeError(`task ${JSON.stringify(taskId)} has a checkpoint at step ${found.stepIndex}, but only ${steps.length} step(s) were given`);
    }
    state = found.state as S;
    next = found.resumeFromStep;
  } else if (found.reason === 'checkpoint_corrupted') {
    throw new CheckpointCorruptError(taskId, (found as { detail?: string }).detail ?? 'failed its checks');
  } else {
    state = JSON.parse(initialText) as S;
    next = 0;
  }
  for (let i = next; i < steps.length; i++) {
    const after = await steps[i]!(state, { stepIndex: i });
    // Continue with the round trip, so a resumed run and an uninterrupted one see the same values.
    const text = canonicalJson(after, 'state');
    await checkpointer.save!(taskId, i, JSON.parse(text));
    state = JSON.parse(text) as S;
  }
  return state;
}
