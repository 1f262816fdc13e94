import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { driverCases } from '../../src/state/engine/driver-conformance.js';
import { openDatabase } from '../../src/sqlite/open-database.js';
import { sqliteDriver } from '../../src/sqlite/sqlite-driver.js';

const dir = mkdtempSync(join(tmpdir(), 'recourse-sqlite-driver-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

describe('sqliteDriver meets the driver contract', () => {
  for (const c of driverCases)
    it(c.name, async () => {
      const db = openDatabase(join(dir, `d-${files++}.db`), 5000);
      try {
        await c.run(sqliteDriver(db), 's:');
      } finally {
        db.close();
      }
    });
});
