import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryStore } from '../../src/index.js';
import { breakerStoreConformance } from '../../src/testing/index.js';
import { mapBreakerStore } from './fixtures/map-breaker-store.js';

const api = { describe, it, expect, beforeEach, afterEach };

breakerStoreConformance('memoryStore', () => memoryStore(), api);
breakerStoreConformance('docs/circuit-breaker.md example', () => mapBreakerStore(), api);

describe('the example store in docs/circuit-breaker.md', () => {
  it('is the fixture tested above, character for character', () => {
    const doc = readFileSync(new URL('../../docs/circuit-breaker.md', import.meta.url), 'utf8');
    const fixture = readFileSync(
      new URL('./fixtures/map-breaker-store.ts', import.meta.url),
      'utf8',
    );
    const body = fixture
      .slice(fixture.indexOf('\n') + 1)
      .replace("from '../../../src/index.js'", "from 'agent-recourse'");
    expect(doc).toContain(body);
  });
});
