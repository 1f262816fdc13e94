import { describe, expect, it } from 'vitest';
import { constant } from '../../src/backoff/constant.js';
import { nextDelay } from '../../src/backoff/next-delay.js';
import {
  awaitLease,
  type LeasePort,
  type LeaseSettings,
  type LeaseTry,
  tryLease,
} from '../../src/lease/lease.js';
import {
  leaseAcquireTransition,
  type LeaseRecord,
  leaseRenewTransition,
} from '../../src/transitions/lease.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';

const LEASE = 900;

/** One lease row shared by any number of ports, as a store keeps it; every call is logged. */
class Row {
  lease: LeaseRecord | undefined;
  done: string | undefined;
  calls: string[] = [];
  renewFailures = 0;

  port(owner: string): LeasePort<string> {
    return {
      tryAcquire: async (now, leaseMs): Promise<LeaseTry<string>> => {
        this.calls.push(`acquire ${owner} @${now}`);
        if (this.done !== undefined) return { kind: 'done', value: this.done };
        const r = leaseAcquireTransition(this.lease, owner, now, leaseMs);
        if (r.write !== undefined) this.lease = r.write;
        if (!r.acquired) return { kind: 'held', leaseUntil: r.leaseUntil, holder: r.holder };
        return r.previousOwner === undefined
          ? { kind: 'acquired' }
          : { kind: 'acquired', previousOwner: r.previousOwner };
      },
      renew: async (now, leaseMs) => {
        this.calls.push(`renew ${owner} @${now}`);
        if (this.renewFailures > 0) {
          this.renewFailures--;
          throw new Error('store busy');
        }
        const r = leaseRenewTransition(this.lease, owner, now, leaseMs);
        if (r.write !== undefined) this.lease = r.write;
        return r.ok;
      },
      release: async () => {
        this.calls.push(`release ${owner}`);
        if (this.lease?.owner === owner) this.lease = undefined;
      },
    };
  }
}

function settings(clock: VirtualClock): LeaseSettings {
  return { clock, leaseMs: LEASE, poll: constant(100), random: () => 0.5 };
}

describe('the lease helper', () => {
  it('renews a held lease every leaseMs / 3 until stopped', async () => {
    const clock = new VirtualClock(0);
    const row = new Row();
    const taken = await tryLease(row.port('a'), settings(clock));
    if (taken.kind !== 'acquired') throw new Error('expected the lease');
    await clock.advance(1000);
    expect(row.calls).toEqual(['acquire a @0', 'renew a @300', 'renew a @600', 'renew a @900']);
    expect(row.lease).toEqual({ owner: 'a', leaseUntil: 1800 });
    taken.lease.stop();
    await clock.advance(5000);
    expect(row.calls.length).toBe(4);
    expect(clock.pending).toBe(0);
  });

  it('tries a failed renewal again at the next tick, so one failure does not lose the lease', async () => {
    const clock = new VirtualClock(0);
    const row = new Row();
    row.renewFailures = 1;
    const taken = await tryLease(row.port('a'), settings(clock));
    await clock.advance(700);
    expect(row.calls).toEqual(['acquire a @0', 'renew a @300', 'renew a @600']);
    expect(row.lease?.leaseUntil).toBe(1500);
    if (taken.kind === 'acquired') expect(taken.lease.held).toBe(true);
  });

  it('stops renewing, and says so, once another owner took the lease over', async () => {
    const clock = new VirtualClock(0);
    const row = new Row();
    const taken = await tryLease(row.port('a'), settings(clock));
    if (taken.kind !== 'acquired') throw new Error('expected the lease');
    row.lease = { owner: 'b', leaseUntil: 10_000 }; // a took too long; b took over
    await clock.advance(400);
    expect(taken.lease.held).toBe(false);
    await clock.advance(5000);
    expect(row.calls).toEqual(['acquire a @0', 'renew a @300']);
    expect(row.lease).toEqual({ owner: 'b', leaseUntil: 10_000 });
  });

  it('release stops renewing and gives the lease up', async () => {
    const clock = new VirtualClock(0);
    const row = new Row();
    const taken = await tryLease(row.port('a'), settings(clock));
    if (taken.kind !== 'acquired') throw new Error('expected the lease');
    await taken.lease.release();
    await clock.advance(5000);
    expect(row.calls).toEqual(['acquire a @0', 'release a']);
    expect(row.lease).toBeUndefined();
  });

  it('waits for a held lease with the poll backoff, never past the holder lease end, and names the previous owner', async () => {
    const clock = new VirtualClock(0);
    const row = new Row();
    row.lease = { owner: 'dead', leaseUntil: 250 };
    const p = awaitLease(row.port('b'), { ...settings(clock), poll: constant(100) });
    await clock.advance(300);
    const taken = await p;
    expect(row.calls).toEqual([
      'acquire b @0',
      'acquire b @100',
      'acquire b @200',
      'acquire b @250',
    ]);
    expect(taken).toMatchObject({ kind: 'acquired', previousOwner: 'dead' });
    if (taken.kind === 'acquired') taken.lease.stop();
  });

  it('returns the outcome when the work is done instead of a lease', async () => {
    const clock = new VirtualClock(0);
    const row = new Row();
    row.lease = { owner: 'other', leaseUntil: 10_000 };
    const p = awaitLease(row.port('b'), settings(clock));
    await clock.advance(150);
    row.done = '"result"';
    await clock.advance(100);
    expect(await p).toEqual({ kind: 'done', value: '"result"' });
  });

  it('stops waiting promptly on abort, with the signal reason, and asks the store nothing more', async () => {
    const clock = new VirtualClock(0);
    const row = new Row();
    row.lease = { owner: 'other', leaseUntil: 10_000 };
    const controller = new AbortController();
    const p = awaitLease(row.port('b'), settings(clock), controller.signal).then(
      () => 'resolved',
      (e: Error) => e.name,
    );
    await clock.advance(250);
    controller.abort();
    expect(await p).toBe('AbortError');
    const seen = row.calls.length;
    await clock.advance(5000);
    expect(row.calls.length).toBe(seen);
  });

  it('gives back a lease obtained just as the wait was aborted', async () => {
    const clock = new VirtualClock(0);
    const row = new Row();
    const controller = new AbortController();
    const port = row.port('b');
    const aborting: LeasePort<string> = {
      ...port,
      tryAcquire: async (now, ms) => {
        const r = await port.tryAcquire(now, ms);
        controller.abort();
        return r;
      },
    };
    await expect(awaitLease(aborting, settings(clock), controller.signal)).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(row.calls).toEqual(['acquire b @0', 'release b']);
    expect(row.lease).toBeUndefined();
  });

  it('nextDelay turns a broken backoff answer into 0 and passes good ones through', () => {
    const answers = [Number.NaN, -5, 'x' as unknown as number, 250];
    const backoff = { delay: (attempt: number) => answers[attempt - 1]! };
    expect([1, 2, 3, 4].map((a) => nextDelay(backoff, a, 0, Math.random))).toEqual([0, 0, 0, 250]);
  });
});
