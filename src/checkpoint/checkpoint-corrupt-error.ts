import {
  hasErrorName,
  RecourseError,
  type RecourseErrorOptions,
} from '../errors/recourse-error.js';

/**
 * A task's checkpoint failed its checks (checksum mismatch, unparsable state, malformed record),
 * so `runSteps` refuses to resume from it, and equally refuses to start over, which would repeat
 * the side effects of the steps already done. Inspect or delete the record, then run again.
 *
 * @example
 * try { await runSteps('import-42', steps, o) } catch (e) { if (isCheckpointCorruptError(e)) alert(e.taskId, e.detail) }
 */
export class CheckpointCorruptError extends RecourseError {
  override name = 'CheckpointCorruptError' as const;
  readonly taskId: string;
  /** What check failed. */
  readonly detail: string;
  constructor(taskId: string, detail: string, options?: RecourseErrorOptions) {
    super(
      `checkpoint of task ${JSON.stringify(taskId)} is corrupted (${detail}); refusing to resume from it or to start over`,
      options,
    );
    this.taskId = taskId;
    this.detail = detail;
  }
}

/** Cross-realm guard for {@link CheckpointCorruptError}. @example if (isCheckpointCorruptError(e)) console.log(e.detail) */
export function isCheckpointCorruptError(error: unknown): error is CheckpointCorruptError {
  return hasErrorName(error, 'CheckpointCorruptError');
}
