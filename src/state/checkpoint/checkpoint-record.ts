/**
 * One saved checkpoint: the state after step `stepIndex` (the last completed step), as canonical
 * JSON, with a sha256 (hex) over the whole record (`checkpointChecksum`) so a damaged or changed
 * record — its state, or its step index, which would skip a step — is recognised.
 */
export interface CheckpointRecord {
  taskId: string;
  /** The last completed step (0-based); a resumed run starts at `stepIndex + 1`. */
  stepIndex: number;
  /** Canonical JSON of the state. */
  state: string;
  /** sha256 hex over taskId, stepIndex, savedAt and state (`checkpointChecksum`); recourse 0.1 covered `state` only. */
  checksum: string;
  /** Clock time of the save. */
  savedAt: number;
}

/**
 * Where a `Checkpointer` keeps the latest checkpoint of each task. A store keeps records verbatim,
 * every field exactly as given (numbers included: `savedAt` may have a fraction, and the checksum
 * covers it); it does not check them (the `Checkpointer` does, on `recover`). A save replaces the
 * task's previous record atomically. A backend that cannot reach its storage rejects with
 * `StoreError`.
 *
 * @example
 * await store.saveCheckpoint({ taskId: 't', stepIndex: 0, state: '{}', checksum: sha256Hex('{}'), savedAt: Date.now() })
 * const last = await store.loadCheckpoint('t')
 */
export interface CheckpointStore {
  /** Atomically replaces `record.taskId`'s record with this one. */
  saveCheckpoint(record: CheckpointRecord): Promise<void>;
  /** The latest record of `taskId`, or undefined when none was saved. */
  loadCheckpoint(taskId: string): Promise<CheckpointRecord | undefined>;
}
