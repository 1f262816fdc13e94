import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryStore } from '../../src/store/memory-store.js';
import { rateLimitStoreConformance } from '../../src/testing/index.js';

rateLimitStoreConformance('memory', () => memoryStore(), {
  describe,
  it,
  expect,
  beforeEach,
  afterEach,
});
