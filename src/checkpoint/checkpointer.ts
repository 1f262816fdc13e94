import { canonicalJson } from '../canonical/canonical-json.js';
import { sha256Hex } from '../canonical/sha256.js';
import type { Clock } from '../clock/clock.js';
import { checkKey } from '../idempotency/check-key.js';
import { checkInteger, checkOptions, type OptionKeys , checkClock } from '../options/validate-options.js';
import type { CheckpointRecord, CheckpointStore } from '../store/checkpoint-store.js';
import { wallClock } from '../clock/wall-clock.js';

/** Options of {@link Checkpointer}. */
export interface CheckpointerOptions {
  /** Stamps `savedAt`. Default `wallClock`. */
  clock?: Clock;
}

const CHECKPOINTER_KEYS: OptionKeys<CheckpointerOptions> = { clock: true };

/** What {@link Checkpointer.recover} found. */
export type Recovery =
  | { recovered: true; stepIndex: number; state: unknown; resumeFromStep: number }
  | { recovered: false; reason: 'no_checkpoint_found' | 'checkpoint_corrupted' };

/** @internal A recovery that also says which check a corrupted record failed. */
export type DetailedRecovery = Recovery | { recovered: false; reason: 'checkpoint_corrupted'; detail: string };

/** @internal `runSteps` reads the detail for its error; `recover()` keeps to the contract's shape. */
export const RECOVER_DETAILED: unique symbol = Symbol('recourse.checkpoint.recoverDetailed');

const HEX64 = /^[0-9a-f]{64}$/;

/** Why a record must not be trusted, or undefined when it passes every check. */
function defect(record: CheckpointRecord, taskId: string): string | undefined {
  if (typeof record !== 'object' || record === null) return 'the record is not an object';
  if (record.taskId !== taskId) return `the record belongs to task ${JSON.stringify(record.taskId)}`;
  if (!Number.isInteger(record.stepIndex) || record.stepIndex < 0) return `stepIndex ${String(record.stepIndex)} is not an integer >= 0`;
  if (typeof record.state !== 'string') return 'state is not a string';
  if (typeof record.checksum !== 'string' || !HEX64.test(record.checksum)) return 'checksum is not a sha256 hex digest';
  if (sha256Hex(record.state) !== record.checksum) return 'checksum mismatch: the state was changed after it was saved';
  return undefined;
}

/**
 * Saves a task's state after each completed step and finds it again after a crash. The state is
 * written as canonical JSON with its sha256, at the moment `save` is called (mutating the object
 * afterwards changes nothing saved); `recover` returns a fresh copy, or reports
 * `checkpoint_corrupted` when the checksum does not match or the record cannot be read, so a
 * damaged record is never resumed from. Defaults: clock wallClock.
 *
 * @example
 * const checkpointer = new Checkpointer(sqliteStore({ path: 'state.db' }))
 * await checkpointer.save('import-42', 0, { rows: 1200 })
 * const r = await checkpointer.recover('import-42') // { recovered: true, stepIndex: 0, state: { rows: 1200 }, resumeFromStep: 1 }
 */
export class Checkpointer {
  readonly #store: CheckpointStore;
  readonly #clock: Clock;

  constructor(store: CheckpointStore, options?: CheckpointerOptions) {
    if (typeof (store as Partial<CheckpointStore> | undefined)?.saveCheckpoint !== 'function') {
      throw new TypeError('store must be a CheckpointStore, e.g. memoryStore() or sqliteStore({ path })');
    }
    this.#store = store;
    this.#clock = checkClock<Clock>('clock', checkOptions('Checkpointer', options, CHECKPOINTER_KEYS).clock ?? wallClock);
  }

  /**
   * Records that step `stepIndex` (0-based) completed with `state`. Throws `NotSerializableError`
   * naming the path (`state.items[2]`) before anything is written when `state` is not JSON.
   */
  async save(taskId: string, stepIndex: number, state: unknown): Promise<void> {
    checkKey('taskId', taskId);
    checkInteger('stepIndex', stepIndex, 0);
    // Serialised now, before any await: later mutation by the caller cannot reach the store.
    const text = canonicalJson(state, 'state');
    await this.#store.saveCheckpoint({ taskId, stepIndex, state: text, checksum: sha256Hex(text), savedAt: this.#clock.now() });
  }

  /** The last good checkpoint of `taskId`, or why there is none to resume from. */
  async recover(taskId: string): Promise<Recovery> {
    const found = await this[RECOVER_DETAILED](taskId);
    return found.recovered || found.reason === 'no_checkpoint_found' ? found : { recovered: false, reason: found.reason };
  }

  /** @internal */
  async [RECOVER_DETAILED](taskId: string): Promise<DetailedRecovery> {
    checkKey('taskId', taskId);
    let record: CheckpointRecord | undefined;
    try {
      record = await this.#store.loadCheckpoint(taskId);
    } catch (error) {
      // A row the store cannot even decode is damage, not an outage: report it like a bad checksum.
      if (error instanceof SyntaxError) return { recovered: false, reason: 'checkpoint_corrupted', detail: `unreadable record: ${error.message}` };
      throw error;
    }
    if (record === undefined) return { recovered: false, reason: 'no_checkpoint_found' };
    const problem = defect(record, taskId);
    if (problem !== undefined) return { recovered: false, reason: 'checkpoint_corrupted', detail: problem };
    let state: unknown;
    try {
      state = JSON.parse(record.state);
    } catch (error) {
      return { recovered: false, reason: 'checkpoint_corrupted', detail: `state is not JSON: ${(error as Error).message}` };
    }
    return { recovered: true, stepIndex: record.stepIndex, state, resumeFromStep: record.stepIndex + 1 };
  }
}
