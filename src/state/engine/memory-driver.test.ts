import { describe, expect, it } from 'vitest';
import { isStoreError } from './store-error.js';
import { driverCases } from './driver-conformance.js';
import { memoryDriver } from './memory-driver.js';

describe('memoryDriver meets the driver contract', () => {
  for (const c of driverCases) it(c.name, () => c.run(memoryDriver(), 'm:'));

  it('rejects every call with StoreError closed after close', async () => {
    const driver = memoryDriver();
    await driver.close();
    const rejected = await driver.read({ name: 'x', parse: (v) => v }, 'k').catch((e) => e);
    expect(isStoreError(rejected) && rejected.code).toBe('closed');
  });

  it('notifies a watcher of changes until unwatched', async () => {
    const driver = memoryDriver();
    const rows = { name: 'rows', parse: (v: unknown) => v as number };
    const seen: string[] = [];
    const unwatch = await driver.watch?.(rows, (key) => seen.push(key));
    await driver.insert(rows, 'a', 1);
    await unwatch?.();
    await driver.insert(rows, 'b', 1);
    expect(seen).toEqual(['a']);
  });
});
