import { isStoreError } from '../store/store-error.js';
import { canonicalJson } from '../canonical/canonical-json.js';
import { sha256Hex } from '../canonical/sha256.js';
import type { Clock } from '../clock/clock.js';
import { checkKey } from '../idempotency/check-key.js';
import {
  checkClock,
  checkInteger,
  checkOneOf,
  checkOptions,
  type OptionKeys,
  showValue,
} from '../options/validate-options.js';
import type { CheckpointRecord, CheckpointStore } from '../store/checkpoint-store.js';
import { wallClock } from '../clock/wall-clock.js';

/** Options of {@link Checkpointer}. */
export interface CheckpointerOptions {
  /** Stamps `savedAt`. Default `wallClock`. */
  clock?: Clock;
  /**
   * Records written by recourse 0.1 carry a checksum of the state only, so a changed `stepIndex`
   * (a skipped step) goes unnoticed. `'reject'` (the default) reports them as corrupted, naming
   * why; `'accept'` resumes from them (checking the state alone) while tasks started under 0.1
   * finish: the next save rewrites the record with a checksum of the whole record.
   */
  legacyChecksums?: 'reject' | 'accept';
}

const CHECKPOINTER_KEYS: OptionKeys<CheckpointerOptions> = { clock: true, legacyChecksums: true };

/** What {@link Checkpointer.recover} found. */
export type Recovery =
  | { recovered: true; stepIndex: number; state: unknown; resumeFromStep: number }
  | { recovered: false; reason: 'no_checkpoint_found' | 'checkpoint_corrupted' };

/** @internal A recovery that also says which check a corrupted record failed. */
export type DetailedRecovery =
  | Recovery
  | { recovered: false; reason: 'checkpoint_corrupted'; detail: string };

/** @internal `runSteps` reads the detail for its error; `recover()` keeps to the contract's shape. */
export const RECOVER_DETAILED: unique symbol = Symbol('recourse.checkpoint.recoverDetailed');

const HEX64 = /^[0-9a-f]{64}$/;
/** Tags what the checksum covers, so no other hash of the same fields (a 0.1 record's) can equal it. */
const CHECKSUM_FORMAT = 'recourse.checkpoint/2';

/**
 * The checksum of a record: the sha256 (hex) of the canonical JSON of every other field (and a
 * format tag), so a changed `stepIndex`, task, time or state is caught, not only a changed state.
 *
 * @example
 * const checksum = checkpointChecksum({ taskId: 't', stepIndex: 0, state: '{}', savedAt: 1 })
 */
export function checkpointChecksum(record: Omit<CheckpointRecord, 'checksum'>): string {
  return sha256Hex(
    canonicalJson(
      [CHECKSUM_FORMAT, record.taskId, record.stepIndex, record.savedAt, record.state],
      'record',
    ),
  );
}

/** Why a record must not be trusted, or undefined when it passes every check. */
function defect(
  record: CheckpointRecord,
  taskId: string,
  legacy: 'reject' | 'accept',
): string | undefined {
  if (typeof record !== 'object' || record === null) return 'the record is not an object';
  if (record.taskId !== taskId) return `the record belongs to task ${showValue(record.taskId)}`;
  if (!Number.isInteger(record.stepIndex) || record.stepIndex < 0)
    return `stepIndex ${showValue(record.stepIndex)} is not an integer >= 0`;
  if (typeof record.state !== 'string') return 'state is not a string';
  if (typeof record.savedAt !== 'number' || !Number.isFinite(record.savedAt))
    return `savedAt ${showValue(record.savedAt)} is not a finite number`;
  if (typeof record.checksum !== 'string' || !HEX64.test(record.checksum))
    return 'checksum is not a sha256 hex digest';
  if (checkpointChecksum(record) === record.checksum) return undefined;
  if (sha256Hex(record.state) === record.checksum) {
    if (legacy === 'accept') return undefined;
    return (
      'its checksum covers the state only (a record written by recourse 0.1), so its stepIndex cannot be verified; ' +
      "to resume tasks started under 0.1, use new Checkpointer(store, { legacyChecksums: 'accept' })"
    );
  }
  return 'checksum mismatch: the record (its state, stepIndex or savedAt) was changed after it was saved';
}

/**
 * Saves a task's state after each completed step and finds it again after a crash. The state is
 * written as canonical JSON, at the moment `save` is called (mutating the object afterwards
 * changes nothing saved), with a sha256 over the whole record (task, step index, time and state);
 * `recover` returns a fresh copy, or reports `checkpoint_corrupted` when the checksum does not
 * match or the record cannot be read, so a damaged record is never resumed from (nor one whose
 * step index was changed, which would skip or repeat steps). Defaults: clock wallClock,
 * legacyChecksums 'reject'.
 *
 * @example
 * const checkpointer = new Checkpointer(sqliteStore({ path: 'state.db' }))
 * await checkpointer.save('import-42', 0, { rows: 1200 })
 * const r = await checkpointer.recover('import-42') // { recovered: true, stepIndex: 0, state: { rows: 1200 }, resumeFromStep: 1 }
 */
export class Checkpointer {
  readonly #store: CheckpointStore;
  readonly #clock: Clock;
  readonly #legacy: 'reject' | 'accept';

  constructor(store: CheckpointStore, options?: CheckpointerOptions) {
    if (typeof (store as Partial<CheckpointStore> | undefined)?.saveCheckpoint !== 'function') {
      throw new TypeError(
        'store must be a CheckpointStore, e.g. memoryStore() or sqliteStore({ path })',
      );
    }
    const o = checkOptions('Checkpointer', options, CHECKPOINTER_KEYS);
    this.#store = store;
    this.#clock = checkClock<Clock>('clock', o.clock ?? wallClock);
    this.#legacy =
      o.legacyChecksums === undefined
        ? 'reject'
        : checkOneOf('legacyChecksums', o.legacyChecksums, ['reject', 'accept'] as const);
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
    const record = { taskId, stepIndex, state: text, savedAt: this.#clock.now() };
    await this.#store.saveCheckpoint({ ...record, checksum: checkpointChecksum(record) });
  }

  /** The last good checkpoint of `taskId`, or why there is none to resume from. */
  async recover(taskId: string): Promise<Recovery> {
    const found = await this[RECOVER_DETAILED](taskId);
    return found.recovered || found.reason === 'no_checkpoint_found'
      ? found
      : { recovered: false, reason: found.reason };
  }

  /** @internal */
  async [RECOVER_DETAILED](taskId: string): Promise<DetailedRecovery> {
    checkKey('taskId', taskId);
    let record: CheckpointRecord | undefined;
    try {
      record = await this.#store.loadCheckpoint(taskId);
    } catch (error) {
      // A row the store cannot even decode is damage, not an outage: report it like a bad checksum.
      if (error instanceof SyntaxError || (isStoreError(error) && error.code === 'corrupt_record'))
        return {
          recovered: false,
          reason: 'checkpoint_corrupted',
          detail: `unreadable record: ${error.message}`,
        };
      throw error;
    }
    if (record === undefined) return { recovered: false, reason: 'no_checkpoint_found' };
    const problem = defect(record, taskId, this.#legacy);
    if (problem !== undefined)
      return { recovered: false, reason: 'checkpoint_corrupted', detail: problem };
    let state: unknown;
    try {
      state = JSON.parse(record.state);
    } catch (error) {
      return {
        recovered: false,
        reason: 'checkpoint_corrupted',
        detail: `state is not JSON: ${(error as Error).message}`,
      };
    }
    return {
      recovered: true,
      stepIndex: record.stepIndex,
      state,
      resumeFromStep: record.stepIndex + 1,
    };
  }
}
