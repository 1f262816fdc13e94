export {
  type ApplyOptions,
  applyToSlot,
  applyTransition,
  type Decision,
  driverSlot,
  type RecordSlot,
  type Transition,
} from './apply-transition.js';
export type {
  Collection,
  PurgeOptions,
  ScannedRecord,
  ScanOptions,
  StateDriver,
  Unwatch,
  Versioned,
  WriteOptions,
} from './driver.js';
export { type DriverCase, driverCases } from './driver-conformance.js';
export { type MemoryDriverOptions, memoryDriver } from './memory-driver.js';
export type { SqlLayout } from './sql-layout.js';
