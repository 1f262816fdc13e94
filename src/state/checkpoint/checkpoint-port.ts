import { applyTransition } from '../engine/apply-transition.js';
import type { Collection, StateDriver } from '../engine/driver.js';
import { isObject, storedShape } from '../engine/parse-stored.js';
import type { CheckpointRecord, CheckpointStore } from './checkpoint-record.js';

/**
 * The checkpoints: the latest {@link CheckpointRecord} per task id, kept verbatim.
 *
 * @example
 * const last = await driver.read(checkpoints, 'import-42')
 */
export const checkpoints: Collection<CheckpointRecord> = {
  name: 'checkpoints',
  parse: storedShape('checkpoint', isObject, 'a checkpoint record'),
  sql: {
    table: 'checkpoints',
    key: 'task_id',
    keyField: 'taskId',
    versioned: false,
    columns: [
      ['stepIndex', 'step_index'],
      ['state', 'state'],
      ['checksum', 'checksum'],
      ['savedAt', 'saved_at'],
    ],
  },
};

function copy(r: CheckpointRecord): CheckpointRecord {
  const { taskId, stepIndex, state, checksum, savedAt } = r;
  return { taskId, stepIndex, state, checksum, savedAt };
}

/**
 * A `Checkpointer`'s store methods over any {@link StateDriver} (ARCHITECTURE.md §state.drivers):
 * a save replaces the task's record through the engine, so it is atomic on every driver.
 *
 * @example
 * const port = checkpointPort(memoryDriver())
 * await port.saveCheckpoint({ taskId: 't', stepIndex: 0, state: '{}', checksum, savedAt: Date.now() })
 */
export function checkpointPort(
  driver: StateDriver,
  collection: Collection<CheckpointRecord> = checkpoints,
): CheckpointStore {
  return {
    saveCheckpoint: (record) =>
      driver.put?.(collection, record.taskId, copy(record)) ??
      applyTransition(driver, collection, record.taskId, () => ({
        result: undefined,
        write: copy(record),
      })),
    async loadCheckpoint(taskId) {
      const read = await driver.read(collection, taskId);
      return read === undefined ? undefined : { ...copy(read.value), taskId };
    },
  };
}
