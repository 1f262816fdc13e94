import { redisScript } from './script.js';

/** @internal A checkpoint save, as one script (one `SET`: the record replaces the task's previous one whole). */
export const CHECKPOINT_SAVE = redisScript(
  'checkpoint-save',
  1,
  `-- checkpoint-save: replaces a task's checkpoint record, atomically.
-- KEYS[1]  the task's checkpoint (a string: JSON of {stepIndex, state, checksum, savedAt}, verbatim)
-- ARGV[1]  the record's JSON
-- Returns  1
redis.call('SET', KEYS[1], ARGV[1])
return 1
`,
);
