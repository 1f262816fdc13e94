import { applyTransition } from '../engine/apply-transition.js';
import type { Collection, StateDriver } from '../engine/driver.js';
import { isObject, storedShape } from '../engine/parse-stored.js';
import type { LedgerClaim, LedgerEntry, LedgerStore } from './ledger-record.js';
import {
  ledgerClaimTransition,
  ledgerCompleteTransition,
  ledgerReleaseTransition,
  ledgerRenewTransition,
  type LedgerWrite,
} from './ledger-transitions.js';

/** Expired results are also replaced when their key is claimed again; this sweep bounds the rest (§state.bounded). */
const SWEEP_EVERY = 256;

/**
 * The ledger's records: one {@link LedgerEntry} per key. A driver keeping JSON text hands the
 * parsed value to `parse`, which refuses anything but an object as `StoreError` `corrupt_record`.
 *
 * @example
 * const entry = await driver.read(ledgerEntries, 'send-invoice-17')
 */
export const ledgerEntries: Collection<LedgerEntry> = {
  name: 'ledger',
  parse: storedShape('ledger entry', isObject, 'a ledger entry'),
  sql: {
    table: 'ledger',
    key: 'key',
    keyField: 'key',
    columns: [
      ['state', 'state'],
      ['owner', 'owner'],
      ['leaseUntil', 'lease_until'],
      ['claims', 'claims'],
      ['result', 'result', 'optional'],
      ['expiresAt', 'expires_at'],
    ],
  },
};

/** Options of {@link ledgerPort}. */
export interface LedgerPortOptions {
  /** The collection the entries live in. Default {@link ledgerEntries}. */
  collection?: Collection<LedgerEntry>;
}

function held(owner: string): Partial<LedgerEntry> {
  return { state: 'pending', owner };
}

function decision<R>(result: R, write: LedgerWrite) {
  return { result, write };
}

/**
 * The idempotency ledger's store methods, written once over any {@link StateDriver}
 * (ARCHITECTURE.md §state.drivers): each is the pure ledger transition applied through the engine.
 * A fresh key is claimed by one insert (the common case costs one statement), any other by the
 * compare-and-swap path. Expired results are swept after every 256 claims.
 *
 * @example
 * const ledger = ledgerPort(memoryDriver())
 * const claim = await ledger.ledgerClaim('k', 'run-1', Date.now(), 30_000) // { kind: 'claimed', takeover: false }
 */
export function ledgerPort(driver: StateDriver, options: LedgerPortOptions = {}): LedgerStore {
  const entries = options.collection ?? ledgerEntries;
  let claimsSinceSweep = 0;
  const sweep = async (now: number): Promise<void> => {
    if (driver.purge !== undefined) {
      // In the background, at most 1000 at a time: a claim does not wait for the sweep (the next tries again).
      const where: Partial<LedgerEntry> = { state: 'completed' };
      const purge = { field: 'expiresAt' as const, atMost: now, where, limit: 1000 };
      return void driver.purge(entries, purge).catch(() => {});
    }
    for (const { key, record } of await driver.scan(entries)) {
      const e = record.value;
      if (e.state === 'completed' && e.expiresAt <= now)
        await driver.remove(entries, key, record.version);
    }
  };
  return {
    async ledgerClaim(key, owner, now, leaseMs): Promise<LedgerClaim> {
      if (++claimsSinceSweep >= SWEEP_EVERY) {
        claimsSinceSweep = 0;
        await sweep(now);
      }
      const fresh = ledgerClaimTransition(undefined, key, owner, now, leaseMs);
      if (await driver.insert(entries, key, fresh.write as LedgerEntry)) return fresh.claim;
      return applyTransition(driver, entries, key, (current) => {
        const { claim, write } = ledgerClaimTransition(current, key, owner, now, leaseMs);
        return decision(claim, write);
      });
    },
    // With `update`, renew, complete and release are each one conditional statement on the
    // fields that decide them ("held" is `state = 'pending' AND owner = owner`), the same
    // condition and change as the transitions below.
    ledgerRenew: (key, owner, now, leaseMs) =>
      driver.update?.(entries, key, held(owner), { leaseUntil: now + leaseMs }) ??
      applyTransition(driver, entries, key, (current) => {
        const { ok, write } = ledgerRenewTransition(current, owner, now, leaseMs);
        return decision(ok, write);
      }),
    ledgerComplete: (key, owner, result, now, expiresAt) =>
      driver.update?.(entries, key, held(owner), {
        state: 'completed',
        leaseUntil: now,
        result,
        expiresAt,
      }) ??
      applyTransition(driver, entries, key, (current) => {
        const { ok, write } = ledgerCompleteTransition(current, owner, result, now, expiresAt);
        return decision(ok, write);
      }),
    ledgerRelease: async (key, owner) => {
      if (driver.update !== undefined)
        return void (await driver.update(entries, key, held(owner), undefined));
      return applyTransition(driver, entries, key, (current) =>
        decision(undefined, ledgerReleaseTransition(current, owner).write),
      );
    },
    async ledgerGet(key) {
      const read = await driver.read(entries, key);
      return read === undefined ? undefined : { ...read.value, key };
    },
  };
}
