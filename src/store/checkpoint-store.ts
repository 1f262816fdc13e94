/**
 * One saved checkpoint: the state after step `stepIndex` (the last completed step), as canonical
 * JSON, with the sha256 (hex) of that text so a damaged or tampered record is recognised.
 */
export interface CheckpointRecord {
  taskId: string;
  /** The last completed step (0-based); a resumed run starts at `stepIndex + 1`. */
  stepIndex: number;
  /** Canonical JSON of the state. */
  state: string;
  /** sha256 hex of `state`. */
  checksum: string;
  /** Clock time of the save. */
  savedAt: number;
}

/**
 * Where a `Checkpointer` keeps the latest checkpoint of each task. A store keeps records verbatim
 * (it does not check them: the `Checkpointer` does, on `recover`); a save replaces the task's
 * previous record atomically.
 *
 * @example
 * await store.saveCheckpoint({ taskId: 't', stepIndex: 0, state: '{}', checksum: sha256Hex('{}'), savedAt: Date.now() })
 * const last = await store.loadCheckpoint('t')
 */
export interface CheckpointStore {
  saveCheckpoint(record: CheckpointRecord): Promise<void>;
  /** The latest record of `taskId`, or undefined when none was saved. */
  loadCheckpoint(taskId: string): Promise<CheckpointRecord | undefined>;
}
