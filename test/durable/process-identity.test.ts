import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { holderIsDead, processOwner } from '../../src/lease/process-identity.js';

describe('lease holder liveness', () => {
  it('knows a holder in this process, and one on another machine, as alive', () => {
    const mine = processOwner();
    expect(holderIsDead(mine)).toBe(false);
    const [, pid, nonce] = mine.split('|');
    expect(holderIsDead(`elsewhere#1|${pid}|${nonce}`)).toBe(false);
    expect(holderIsDead('dead')).toBe(false);
    expect(holderIsDead('')).toBe(false);
  });

  it('knows a holder whose process exited as dead, and a running one as alive', async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
      stdio: 'ignore',
    });
    await once(child, 'spawn');
    const [machine, , nonce] = processOwner().split('|');
    const owner = `${machine}|${child.pid}|${nonce}`;
    expect(holderIsDead(owner)).toBe(false);
    child.kill('SIGKILL');
    await once(child, 'exit');
    expect(holderIsDead(owner)).toBe(true);
  });
});
