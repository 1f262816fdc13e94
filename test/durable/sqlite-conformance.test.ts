import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sqliteStore } from '../../src/sqlite/index.js';
import { storeConformance } from '../../src/store/conformance.js';

const dir = mkdtempSync(join(tmpdir(), 'recourse-sqlite-'));
let n = 0;
let path = '';
afterAll(() => rmSync(dir, { recursive: true, force: true }));

storeConformance(
  'sqlite',
  () => {
    path = join(dir, `store-${n++}.db`);
    return sqliteStore({ path });
  },
  { describe, it, expect, beforeEach, afterEach },
  { openAnother: () => sqliteStore({ path }) },
);
