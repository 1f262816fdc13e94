import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { storeConformance } from './conformance.js';
import { memoryStore } from './memory-store.js';

storeConformance('memory', () => memoryStore(), { describe, it, expect, beforeEach, afterEach });
