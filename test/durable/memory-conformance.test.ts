import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { storeConformance } from '../../src/store/conformance.js';
import { memoryStore } from '../../src/store/memory-store.js';

storeConformance('memory', () => memoryStore(), { describe, it, expect, beforeEach, afterEach });
