import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { circuitBreaker } from '../../src/circuit-breaker/circuit-breaker.js';
import { sqliteStore } from '../../src/sqlite/index.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';

const dir = mkdtempSync(join(tmpdir(), 'recourse-breaker-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('circuitBreaker on a shared SQLite store', () => {
  it('opens for every handle at once and admits one probe among all of them', async () => {
    const path = join(dir, 'breaker.db');
    const clock = new VirtualClock(1_000_000);
    const stores = [sqliteStore({ path }), sqliteStore({ path }), sqliteStore({ path })];
    const breakers = stores.map((store) => circuitBreaker({ name: 'search', store, clock, failureThreshold: 2, cooldownMs: 1000 }));
    const down = async (): Promise<never> => {
      throw Object.assign(new Error('503'), { status: 503 });
    };
    await expect(breakers[0]!.execute(down)).rejects.toThrow('503');
    await expect(breakers[1]!.execute(down)).rejects.toThrow('503');
    let ran = 0;
    const counted = async (): Promise<string> => {
      ran++;
      return 'ok';
    };
    await expect(breakers[2]!.execute(counted)).rejects.toMatchObject({ name: 'CircuitOpenError' });
    expect(ran).toBe(0);

    await clock.advance(1000);
    const outcomes = await Promise.allSettled(breakers.flatMap((b) => [b.execute(counted), b.execute(counted)]));
    expect(ran).toBe(1);
    expect(outcomes.filter((o) => o.status === 'fulfilled').length).toBe(1);
    expect((await stores[0]!.breakerGet('search'))?.state).toBe('closed');
    for (const s of stores) await s.close();
  });
});
