import type { StoreError } from '../store/store-error.js';
import type { Clock } from '../clock/clock.js';
import { wallClock } from '../clock/wall-clock.js';
import { abortReason } from '../errors/abort-error.js';
import { EscalationDecisionError } from '../errors/escalation-decision-error.js';
import type { Emitter } from '../events/emitter.js';
import {
  checkClock,
  checkFunction,
  checkInteger,
  checkMs,
  checkName,
  checkOptions,
  checkSignal,
  checkString,
  type OptionKeys,
  showValue,
} from '../options/validate-options.js';
import type {
  EscalationDecision,
  EscalationRecord,
  EscalationState,
  EscalationStore,
} from '../store/escalation-store.js';
import { escalationKept, escalationView } from '../transitions/escalation.js';

/** Options of {@link escalations}. */
export interface EscalationsOptions {
  /** How often `wait` looks at the store, ms. Default 1000. */
  pollMs?: number;
  /** Default `wallClock`: every process sharing the store must use one time scale. */
  clock?: Clock;
}

const ESCALATIONS_KEYS: OptionKeys<EscalationsOptions> = { pollMs: true, clock: true };

/** Who decides, and why. */
export interface DecideOptions {
  /** Recorded with the decision; must be one of the escalation's deciders when it names any. */
  by: string;
  note?: string;
}

const DECIDE_KEYS: OptionKeys<DecideOptions> = { by: true, note: true };

/** Options of {@link Escalations.list}. */
export interface ListOptions {
  /** Only these states, as seen now. Default: every state. */
  states?: readonly EscalationState[];
  /** At most this many, oldest first. Default 100. */
  limit?: number;
  /**
   * Called with the `StoreError` (`corrupt_record`, naming the record in `key`) of each kept
   * record the store cannot decode, which is then left out of the list. Default: none, so such a
   * record rejects the whole list.
   */
  onCorrupt?: (error: StoreError) => void;
}

const LIST_KEYS: OptionKeys<ListOptions> = { states: true, limit: true, onCorrupt: true };
const STATES: readonly EscalationState[] = ['pending', 'approved', 'denied', 'expired'];

/**
 * The escalations kept in a store, for the people who decide them and the agents that wait: read,
 * list, approve, deny, wait. Every answer is as seen now (an undecided escalation past its
 * deadline reads `expired`).
 */
export interface Escalations {
  /** The escalation as seen now, or undefined. */
  get(id: string): Promise<EscalationRecord | undefined>;
  list(options?: ListOptions): Promise<EscalationRecord[]>;
  /** Records the approval; rejects with `EscalationDecisionError` for an unknown id, a decided or expired one, or a `by` that may not decide it. */
  approve(id: string, options: DecideOptions): Promise<EscalationRecord>;
  /** Records the denial (see `approve`). */
  deny(id: string, options: DecideOptions): Promise<EscalationRecord>;
  /**
   * Resolves once a person decided: `approved`, or `denied` (also when it expires undecided — at
   * its deadline, whatever `pollMs` is). The decision is read from the store, so it may come from
   * another machine. Rejects with `EscalationDecisionError` (`unknown`) for an id the store does
   * not have, with the signal's reason on abort.
   */
  wait(id: string, options?: { signal?: AbortSignal }): Promise<'approved' | 'denied'>;
}

function when(at: number): string {
  return Number.isFinite(at) ? new Date(at).toISOString() : String(at);
}

/** @internal The desk over one store; `escalate` shares it. */
export class EscalationDesk implements Escalations {
  readonly #store: EscalationStore;
  readonly #clock: Clock;
  readonly #pollMs: number;
  readonly #events: Emitter | undefined;

  constructor(store: EscalationStore, options: EscalationsOptions | undefined, events?: Emitter) {
    const o = checkOptions('escalations', options, ESCALATIONS_KEYS);
    if (
      typeof store !== 'object' ||
      store === null ||
      typeof (store as EscalationStore).escalationDecide !== 'function'
    ) {
      throw new TypeError(
        `store must be a Store with escalations (memoryStore(), sqliteStore(…), …), got ${showValue(store)}`,
      );
    }
    this.#store = store;
    this.#clock = checkClock<Clock>('clock', o.clock ?? wallClock);
    this.#pollMs = o.pollMs === undefined ? 1_000 : checkMs('pollMs', o.pollMs, 1);
    this.#events = events;
  }

  async get(id: string): Promise<EscalationRecord | undefined> {
    checkString('id', id);
    const now = this.#clock.now();
    const r = await this.#store.escalationGet(id);
    return escalationKept(r, now) ? escalationView(r, now) : undefined;
  }

  async list(options?: ListOptions): Promise<EscalationRecord[]> {
    const o = checkOptions('list', options, LIST_KEYS);
    if (o.states !== undefined && !Array.isArray(o.states))
      throw new TypeError(
        `states must be an array of escalation states, got ${showValue(o.states)}`,
      );
    const states = o.states?.map((s, i) => {
      if (!STATES.includes(s))
        throw new RangeError(
          `states[${i}] must be one of ${STATES.join(', ')}, got ${showValue(s)}`,
        );
      return s;
    });
    const limit = o.limit === undefined ? 100 : checkInteger('limit', o.limit, 1);
    const onCorrupt =
      o.onCorrupt === undefined
        ? undefined
        : checkFunction<(error: StoreError) => void>('onCorrupt', o.onCorrupt);
    return this.#store.escalationList({
      ...(states === undefined ? {} : { states }),
      ...(onCorrupt === undefined ? {} : { onCorrupt }),
      limit,
      now: this.#clock.now(),
    });
  }

  approve(id: string, options: DecideOptions): Promise<EscalationRecord> {
    return this.#decide(id, 'approved', options);
  }

  deny(id: string, options: DecideOptions): Promise<EscalationRecord> {
    return this.#decide(id, 'denied', options);
  }

  async #decide(
    id: string,
    state: 'approved' | 'denied',
    options: DecideOptions,
  ): Promise<EscalationRecord> {
    checkString('id', id);
    const o = checkOptions(state === 'approved' ? 'approve' : 'deny', options, DECIDE_KEYS);
    const by = checkName('by', o.by);
    const decision: EscalationDecision = { state, by };
    if (o.note !== undefined) decision.note = checkString('note', o.note, true);
    const result = await this.#store.escalationDecide(id, decision, this.#clock.now());
    switch (result.kind) {
      case 'decided':
        this.#events?.emit('escalation', {
          id,
          action: result.record.action,
          state,
          round: result.record.round,
          decidedBy: by,
        });
        return result.record;
      case 'unknown':
        throw new EscalationDecisionError(
          id,
          'unknown',
          `no escalation with id ${JSON.stringify(id)} (it never existed, or it was removed after its keep time)`,
        );
      case 'not_allowed':
        throw new EscalationDecisionError(
          id,
          'not_allowed',
          `${JSON.stringify(by)} may not decide escalation ${id}; its deciders are: ${result.record.deciders.join(', ')}`,
          result.record,
        );
      default: {
        const r = result.record;
        const was =
          r.state === 'expired'
            ? `expired undecided at ${when(r.expiresAt)}`
            : `was already ${r.state} by ${r.decidedBy ?? 'somebody'} at ${when(r.decidedAt ?? Number.NaN)}`;
        throw new EscalationDecisionError(
          id,
          'final',
          `escalation ${id} ${was}; a decision is final`,
          r,
        );
      }
    }
  }

  async wait(id: string, options?: { signal?: AbortSignal }): Promise<'approved' | 'denied'> {
    checkString('id', id);
    const signal = checkSignal('signal', checkOptions('wait', options, { signal: true }).signal);
    for (;;) {
      if (signal?.aborted) throw abortReason(signal);
      const now = this.#clock.now();
      const stored = await this.#store.escalationGet(id);
      if (!escalationKept(stored, now)) {
        throw new EscalationDecisionError(
          id,
          'unknown',
          `no escalation with id ${JSON.stringify(id)} (it never existed, or it was removed after its keep time)`,
        );
      }
      const r = escalationView(stored, now);
      if (r.state === 'approved') return 'approved';
      if (r.state !== 'pending') return 'denied';
      // Wake at the deadline at the latest: an escalation nobody decides is denied then.
      await this.#clock.sleep(Math.max(0, Math.min(this.#pollMs, r.expiresAt - now)), signal);
    }
  }
}

/**
 * The escalations of a store, for the people who decide them and the agents that wait on them
 * (the CLI `recourse escalations` uses it). Defaults: pollMs 1000, clock `wallClock`.
 *
 * @example
 * const desk = escalations(sqliteStore({ path: 'agent.db' }))
 * for (const e of await desk.list({ states: ['pending'] })) console.log(e.id, e.action, e.args)
 * await desk.approve('esc_4f1c2a9be03d77a1c2e5', { by: 'alice', note: 'invoice checked' })
 */
export function escalations(store: EscalationStore, options?: EscalationsOptions): Escalations {
  return new EscalationDesk(store, options);
}
