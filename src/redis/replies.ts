import { isStringArray, parseStored } from '../store/parse-stored.js';
import type { BreakerState } from '../transitions/breaker-record.js';
import type { EscalationRecord, EscalationState } from '../store/escalation-store.js';
import type { BreakerRecord } from '../transitions/breaker-record.js';

/** @internal A reply as an array (a script's table); anything else is a protocol surprise. */
export function list(reply: unknown): unknown[] {
  if (!Array.isArray(reply))
    throw new Error(`redisStore: expected an array reply, got ${typeof reply}`);
  return reply;
}

/** @internal One reply item as text (ioredis and node-redis answer bulk strings as strings; Buffers when asked). */
export function text(item: unknown): string {
  if (typeof item === 'string') return item;
  if (typeof item === 'number') return String(item);
  if (item instanceof Uint8Array) return Buffer.from(item).toString('utf8');
  throw new Error(`redisStore: expected a text reply, got ${item === null ? 'null' : typeof item}`);
}

/** @internal A number a script or `HGET` answered as text (17 significant digits: the same double). */
export function num(item: unknown): number {
  const n = Number(text(item));
  if (Number.isNaN(n))
    throw new Error(`redisStore: expected a number, got ${JSON.stringify(text(item))}`);
  return n;
}

/** @internal `[state, epoch, failures, openedAt, probeUntil]` as texts, from `at` on. */
export function breakerFrom(items: unknown[], at: number): BreakerRecord {
  return {
    state: text(items[at]) as BreakerState,
    epoch: num(items[at + 1]),
    failures: num(items[at + 2]),
    openedAt: num(items[at + 3]),
    probeUntil: num(items[at + 4]),
  };
}

/** @internal A flat `[field, value, …]` reply (`HGETALL`) as a map. */
export function fields(items: unknown[], from = 0): Map<string, string> {
  const map = new Map<string, string>();
  for (let i = from; i + 1 < items.length; i += 2) map.set(text(items[i]), text(items[i + 1]));
  return map;
}

const ESCALATION_NUMBERS = ['round', 'createdAt', 'expiresAt', 'keepUntil'] as const;

/** @internal An escalation's hash fields, as stored by escalation-open (every value a text). */
export function escalationFields(r: EscalationRecord): string[] {
  const out = [
    'id',
    r.id,
    'action',
    r.action,
    'args',
    r.args,
    'reason',
    r.reason,
    'deciders',
    JSON.stringify(r.deciders),
    'state',
    r.state,
  ];
  for (const f of ESCALATION_NUMBERS) out.push(f, String(r[f]));
  if (r.decidedAt !== undefined) out.push('decidedAt', String(r.decidedAt));
  if (r.decidedBy !== undefined) out.push('decidedBy', r.decidedBy);
  if (r.note !== undefined) out.push('note', r.note);
  return out;
}

/** @internal An escalation read back from its hash fields. */
export function escalationFrom(f: Map<string, string>): EscalationRecord {
  const field = (name: string): string => {
    const v = f.get(name);
    if (v === undefined) throw new Error(`redisStore: an escalation record lacks its ${name}`);
    return v;
  };
  const r: EscalationRecord = {
    id: field('id'),
    action: field('action'),
    args: field('args'),
    reason: field('reason'),
    deciders: parseStored<string[]>(
      field('deciders'),
      { what: 'redisStore: escalation deciders', key: field('id') },
      isStringArray,
      'an array of names',
    ),
    state: field('state') as EscalationState,
    round: Number(field('round')),
    createdAt: Number(field('createdAt')),
    expiresAt: Number(field('expiresAt')),
    keepUntil: Number(field('keepUntil')),
  };
  const decidedAt = f.get('decidedAt');
  if (decidedAt !== undefined) r.decidedAt = Number(decidedAt);
  const decidedBy = f.get('decidedBy');
  if (decidedBy !== undefined) r.decidedBy = decidedBy;
  const note = f.get('note');
  if (note !== undefined) r.note = note;
  return r;
}
