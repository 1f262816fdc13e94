import { applyTransition } from '../engine/apply-transition.js';
import type { Collection, StateDriver } from '../engine/driver.js';
import {
  decodeEach,
  isObject,
  isStringArray,
  parseStored,
  storedShape,
} from '../engine/parse-stored.js';
import type { EscalationRecord, EscalationStore } from './escalation-record.js';
import {
  copyEscalation,
  escalationDecideTransition,
  escalationListTransition,
  escalationOpenTransition,
  escalationReopenTransition,
} from './escalation-transitions.js';

/** Records past `keepUntil` are also replaced when their id is opened again; this sweep bounds the rest. */
const SWEEP_EVERY = 256;

/**
 * The escalations: one {@link EscalationRecord} per id.
 *
 * @example
 * const kept = await driver.read(escalations, 'esc_4f1c2a9be03d77a1c2e5')
 */
const whole = storedShape<EscalationRecord>('escalation', isObject, 'an escalation record');
export const escalations: Collection<EscalationRecord> = {
  name: 'escalations',
  // A driver with typed columns hands `deciders` back as the JSON text it stored.
  parse: (stored, key) => {
    const r = whole(stored, key);
    if (typeof r.deciders !== 'string') return r;
    const at = { what: 'escalation deciders', key };
    return { ...r, deciders: parseStored(r.deciders, at, isStringArray, 'an array of names') };
  },
  sql: {
    table: 'escalations',
    key: 'id',
    keyField: 'id',
    columns: [
      ['action', 'action'],
      ['args', 'args'],
      ['reason', 'reason'],
      ['deciders', 'deciders', 'json'],
      ['state', 'state'],
      ['round', 'round'],
      ['createdAt', 'created_at'],
      ['expiresAt', 'expires_at'],
      ['decidedAt', 'decided_at', 'optional'],
      ['decidedBy', 'decided_by', 'optional'],
      ['note', 'note', 'optional'],
      ['keepUntil', 'keep_until'],
    ],
  },
};

/**
 * The escalation store methods over any {@link StateDriver} (ARCHITECTURE.md §state.drivers): each
 * is the pure escalation transition applied through the engine, so of two people deciding at once
 * exactly one decision is kept. Records past `keepUntil` are swept after every 256 opens; a list
 * reads every record and leaves out (or, without `onCorrupt`, rejects on) one that cannot be decoded.
 *
 * @example
 * const port = escalationPort(memoryDriver())
 * const { created } = await port.escalationOpen(proposed, Date.now())
 */
export function escalationPort(
  driver: StateDriver,
  collection: Collection<EscalationRecord> = escalations,
): EscalationStore {
  // The list decodes each record itself, so one damaged record can be set aside (`onCorrupt`).
  const raw: Collection<unknown> = { ...collection, parse: (stored) => stored };
  let opensSinceSweep = 0;
  const sweep = async (now: number): Promise<void> => {
    if (driver.purge !== undefined) {
      const purge = { field: 'keepUntil' as const, atMost: now, limit: 1000 };
      return void driver.purge(collection, purge).catch(() => {});
    }
    for (const { key, record } of await driver.scan(raw)) {
      const keepUntil = (record.value as { keepUntil?: unknown } | null)?.keepUntil;
      if (typeof keepUntil === 'number' && keepUntil <= now)
        await driver.remove(raw, key, record.version);
    }
  };
  return {
    async escalationOpen(record, now) {
      if (++opensSinceSweep >= SWEEP_EVERY) {
        opensSinceSweep = 0;
        await sweep(now);
      }
      return applyTransition(driver, collection, record.id, (current) => {
        const { created, record: answer, write } = escalationOpenTransition(current, record, now);
        return { result: { created, record: answer }, write: write ?? 'keep' };
      });
    },
    async escalationGet(id) {
      const read = await driver.read(collection, id);
      return read === undefined ? undefined : copyEscalation(read.value);
    },
    escalationDecide: (id, decision, now) =>
      applyTransition(driver, collection, id, (current) => {
        const { result, write } = escalationDecideTransition(current, decision, now);
        return { result, write: write ?? 'keep' };
      }),
    escalationReopen: (id, round, reason, now, expiresAt, keepUntil) =>
      applyTransition(driver, collection, id, (current) => {
        const { record, write } = escalationReopenTransition(
          current,
          round,
          reason,
          now,
          expiresAt,
          keepUntil,
        );
        return { result: record, write: write ?? 'keep' };
      }),
    async escalationList(query) {
      const found = await driver.scan(raw);
      const records = decodeEach(
        found,
        ({ key, record }) => collection.parse(record.value, key),
        query.onCorrupt,
      );
      return escalationListTransition(records, query);
    },
  };
}
