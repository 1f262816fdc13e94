export {
  applyToSlot,
  applyTransition,
  type Decision,
  driverSlot,
  type RecordSlot,
  type Transition,
} from './apply-transition.js';
export type {
  Collection,
  ScannedRecord,
  ScanOptions,
  StateDriver,
  Unwatch,
  Versioned,
  WriteOptions,
} from './driver.js';
export { type DriverCase, driverCases } from './driver-conformance.js';
export { type MemoryDriverOptions, memoryDriver } from './memory-driver.js';
