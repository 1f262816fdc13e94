import type { Classification } from '../classify/classification.js';
import { classify } from '../classify/classify.js';
import type { Clock } from '../clock/clock.js';
import { wallClock } from '../clock/wall-clock.js';
import type { Work } from '../context/call-context.js';
import type { Scope } from '../context/scope.js';
import { IdempotencyLedger, type Reconciliation } from '../idempotency/idempotency-ledger.js';
import {
  checkClock,
  checkFunction,
  checkMs,
  checkName,
  checkOptions,
  checkSignal,
  checkString,
  type OptionKeys,
  showValue,
} from '../options/validate-options.js';
import { BaseLayer, COMPOSE, type Invoke, start, terminal } from '../policy/layer.js';
import type { EventedPolicy } from '../policy/policy.js';
import type { EscalationRecord, EscalationStore } from '../store/escalation-store.js';
import type { LedgerStore } from '../store/ledger-store.js';
import { escalationKept, escalationView } from '../transitions/escalation.js';
import {
  actionKey,
  deniedError,
  escalationIdOf,
  refusalMessage,
  requiredError,
  storedArgs,
  storedReason,
  useKey,
} from './escalation-record.js';
import { EscalationDesk, type Escalations } from './escalations.js';
import { checkPredicate, predicateAnswer } from '../options/predicate.js';

/** Options of {@link escalate}. */
export interface EscalateOptions {
  /** Where escalations, decisions and the action's result live (a `Store`: memory, SQLite, Redis, PostgreSQL). */
  store: EscalationStore & LedgerStore;
  /** Which failures go to a person. Default: every failure except a cancelled call. */
  when?: (error: unknown, c: Classification) => boolean;
  /** Undecided this long, an escalation expires and counts as denied, ms. Default 3600000 (1 h). */
  ttlMs?: number;
  /** How long a decided escalation is kept (and read by later runs), ms. Default 604800000 (7 days). */
  keepMs?: number;
  /** How long the action's result is returned instead of running it again (the same key), ms. Default 86400000 (24 h). */
  resultTtlMs?: number;
  /** Who may decide (names given with `--by`); empty or omitted: anybody who can reach the store. */
  deciders?: readonly string[];
  /** The action's name in records when `run` does not give one. Default: the call's name, else `action`. */
  action?: string;
  /** Reported in events. */
  name?: string;
  /** How often `wait` looks at the store, ms. Default 1000. */
  pollMs?: number;
  /** Default `wallClock`: every process sharing the store must use one time scale. */
  clock?: Clock;
}

const ESCALATE_KEYS: OptionKeys<EscalateOptions> = {
  store: true,
  when: true,
  ttlMs: true,
  keepMs: true,
  resultTtlMs: true,
  deciders: true,
  action: true,
  name: true,
  pollMs: true,
  clock: true,
};

/** One high-risk action, as `run` and `ask` take it. */
export interface EscalationRequest {
  /** What runs: a tool's or an operation's name (shown to the person). */
  action: string;
  /** Its arguments: stored redacted for the person; with `action`, they make the default key. */
  args?: unknown;
  /** Names this action uniquely (the same key is the same action: it runs once). Default: from `action` and `args`. */
  key?: string;
}

const REQUEST_KEYS: OptionKeys<EscalationRequest> = { action: true, args: true, key: true };

/** Per-call options of {@link Escalate.run}. */
export interface EscalateRunOptions<T> {
  signal?: AbortSignal;
  /** Asked when this run takes over the action from a process that died while running it (see `IdempotencyLedger.run`). */
  reconcile?: (key: string) => Promise<Reconciliation<T>>;
}

const RUN_KEYS: OptionKeys<EscalateRunOptions<unknown>> = { signal: true, reconcile: true };

/** What `ask` decided about running an action now. */
export type EscalationVerdict =
  | { decision: 'approved'; record: EscalationRecord }
  | { decision: 'denied'; record: EscalationRecord; message: string }
  | { decision: 'pending'; record: EscalationRecord; message: string };

/** Per-call options of {@link Escalate.ask}. */
export interface AskOptions {
  /** Wait for the decision (until the escalation expires) instead of answering `pending`. Default false. */
  wait?: boolean;
  signal?: AbortSignal;
  /** Why a person is asked (shown with the escalation). Default: "approval required before running". */
  reason?: string;
}

const ASK_KEYS: OptionKeys<AskOptions> = { wait: true, signal: true, reason: true };

/** A policy that sends a failing high-risk action to a person; see {@link escalate}. */
export interface Escalate
  extends EventedPolicy<'escalation' | 'ledger_takeover' | 'ledger_unrecorded'>,
    Escalations {
  /**
   * Runs a high-risk action: once (its result is kept for `resultTtlMs` under its key); when it
   * fails, it is escalated (`EscalationRequiredError`); once approved it runs once more, exactly
   * once across processes; denied or expired, it never runs (`EscalationDeniedError`).
   */
  run<T>(request: EscalationRequest, fn: Work<T>, options?: EscalateRunOptions<T>): Promise<T>;
  /**
   * Asks before running an action at all (a tool call): opens an escalation (or finds the one for
   * the same action), and answers `approved` once per approval (a later identical call asks again),
   * `denied`, or `pending` (unless `wait`). Used by the Claude Agent SDK's `canUseTool` and the AI
   * SDK's `toolApproval` adapters.
   */
  ask(request: EscalationRequest, options?: AskOptions): Promise<EscalationVerdict>;
}

/** What the ledger records for one run of the action. */
type Outcome = { ok: true; value: unknown } | { ok: false; id: string };

interface Prepared {
  readonly action: string;
  readonly args: string;
  readonly id: string;
}

class EscalatePolicy extends BaseLayer implements Escalate {
  readonly #store: EscalationStore & LedgerStore;
  readonly #when: (error: unknown, c: Classification) => boolean;
  readonly #ttlMs: number;
  readonly #keepMs: number;
  readonly #resultTtlMs: number;
  readonly #deciders: readonly string[];
  readonly #action: string | undefined;
  readonly #clock: Clock;
  readonly #ledger: IdempotencyLedger;
  readonly #desk: EscalationDesk;

  constructor(options: EscalateOptions) {
    if (typeof options !== 'object' || options === null)
      throw new TypeError(
        `escalate options must be an object with a store, got ${showValue(options)}`,
      );
    const o = checkOptions('escalate', options, ESCALATE_KEYS);
    super('escalate', o.name === undefined ? undefined : checkName('name', o.name));
    const store = o.store;
    if (
      typeof store !== 'object' ||
      store === null ||
      typeof store.escalationOpen !== 'function' ||
      typeof store.ledgerClaim !== 'function'
    ) {
      throw new TypeError(
        `store must be a Store (memoryStore(), sqliteStore(…), redisStore(…), postgresStore(…)), got ${showValue(store)}`,
      );
    }
    this.#store = store;
    this.#when =
      o.when === undefined ? (_e, c) => c.kind !== 'cancelled' : checkPredicate('when', o.when);
    this.#ttlMs = o.ttlMs === undefined ? 3_600_000 : checkMs('ttlMs', o.ttlMs, 1);
    this.#keepMs = o.keepMs === undefined ? 7 * 86_400_000 : checkMs('keepMs', o.keepMs, 1);
    this.#resultTtlMs =
      o.resultTtlMs === undefined ? 86_400_000 : checkMs('resultTtlMs', o.resultTtlMs, 1);
    if (o.deciders !== undefined && !Array.isArray(o.deciders))
      throw new TypeError(`deciders must be an array of names, got ${showValue(o.deciders)}`);
    this.#deciders = (o.deciders ?? []).map((d, i) => checkName(`deciders[${i}]`, d));
    this.#action = o.action === undefined ? undefined : checkName('action', o.action);
    this.#clock = checkClock<Clock>('clock', o.clock ?? wallClock);
    this.#ledger = new IdempotencyLedger(store, { clock: this.#clock, ttlMs: this.#resultTtlMs });
    this.#desk = new EscalationDesk(
      store,
      { clock: this.#clock, ...(o.pollMs === undefined ? {} : { pollMs: o.pollMs }) },
      this.events,
    );
  }

  override on(event: string, listener: (e: object) => void): () => void {
    if (event === 'ledger_takeover' || event === 'ledger_unrecorded')
      return this.#ledger.on(event, listener);
    return super.on(event, listener);
  }

  [COMPOSE](next: Invoke): Invoke {
    return (fn: Work<unknown>, scope: Scope) => {
      const action = this.#action ?? scope.name ?? 'action';
      // Without a key the escalation cannot be found again after a restart: it is one call's own.
      const key = scope.idempotencyKey ?? `random:${globalThis.crypto.randomUUID()}`;
      const prepared: Prepared = { action, args: 'null', id: escalationIdOf(key) };
      return this.#guarded(
        prepared,
        () => next(fn, scope),
        scope.canAbort ? scope.signal : undefined,
        undefined,
      );
    };
  }

  run<T>(request: EscalationRequest, fn: Work<T>, options?: EscalateRunOptions<T>): Promise<T> {
    let prepared: Prepared;
    let key: string;
    let signal: AbortSignal | undefined;
    let reconcile: ((key: string) => Promise<Reconciliation<unknown>>) | undefined;
    try {
      ({ prepared, key } = this.#prepare(request));
      checkFunction('fn', fn);
      const o = checkOptions('run', options, RUN_KEYS);
      signal = checkSignal('signal', o.signal);
      reconcile = o.reconcile === undefined ? undefined : checkFunction('reconcile', o.reconcile);
    } catch (error) {
      return Promise.reject(error);
    }
    const invoke: Invoke = (work, scope) =>
      this.#guarded(prepared, () => terminal(work, scope), signal, reconcile);
    return start(invoke, fn, {
      idempotencyKey: key,
      ...(signal === undefined ? {} : { signal }),
    }) as Promise<T>;
  }

  #prepare(request: EscalationRequest): { prepared: Prepared; key: string } {
    const r = checkOptions('request', request, REQUEST_KEYS);
    if (typeof request !== 'object' || request === null)
      throw new TypeError(
        `request must be an object { action, args?, key? }, got ${showValue(request)}`,
      );
    const action = checkName('action', r.action);
    const key = r.key === undefined ? actionKey(action, r.args) : checkString('key', r.key);
    return { prepared: { action, args: storedArgs(r.args), id: escalationIdOf(key) }, key };
  }

  /** The record as seen now, when one is kept. */
  async #current(id: string): Promise<EscalationRecord | undefined> {
    const now = this.#clock.now();
    const stored = await this.#store.escalationGet(id);
    return escalationKept(stored, now) ? escalationView(stored, now) : undefined;
  }

  async #guarded(
    prepared: Prepared,
    invokeOnce: () => unknown,
    signal: AbortSignal | undefined,
    reconcile: ((key: string) => Promise<Reconciliation<unknown>>) | undefined,
  ): Promise<unknown> {
    // Each turn either runs the action once, or answers why not; a decision that lands while this
    // call looks (approved between two reads) is taken at the next turn.
    for (let turn = 0; turn < 3; turn++) {
      const current = await this.#current(prepared.id);
      if (current?.state === 'pending') throw requiredError(current);
      if (current?.state === 'denied' || current?.state === 'expired') throw deniedError(current);
      const round = current?.round ?? 0;
      let mine: unknown;
      // An approved round's outcome is kept as long as its escalation is: replayed any time the
      // record says "approved", the action must find it ran.
      const ttlMs = this.#markerTtl(current, this.#clock.now());
      const outcome = await this.#ledger.run<Outcome>(
        useKey(prepared.id, round),
        async () => {
          try {
            return { ok: true, value: await invokeOnce() };
          } catch (error) {
            if (!predicateAnswer('when', this.#when(error, classify(error)))) throw error;
            // Recorded while this run still holds the action's claim: another process waiting on
            // it reads "escalated", never runs it blind after this failure.
            mine = error;
            const record =
              current === undefined
                ? await this.#open(prepared, storedReason(error))
                : await this.#reopen(current, storedReason(error));
            return { ok: false, id: record.id };
          }
        },
        {
          ttlMs,
          ...(signal === undefined ? {} : { signal }),
          ...(reconcile === undefined
            ? {}
            : { reconcile: reconcile as (key: string) => Promise<Reconciliation<Outcome>> }),
        },
      );
      if (outcome.ok) return outcome.value;
      const now = await this.#current(prepared.id);
      // The ledger still says "escalated", but the escalation was removed (keepMs shorter than
      // resultTtlMs): a person is asked again rather than the action run blind.
      if (now === undefined)
        throw requiredError(
          await this.#open(
            prepared,
            'an earlier failure was escalated, but that escalation was removed before anybody used it',
          ),
          mine,
        );
      if (now.state === 'pending') throw requiredError(now, mine);
      if (now.state !== 'approved') throw deniedError(now);
    }
    // Approved, run, failed, re-opened and approved again, three times while this call looked.
    throw new Error(`escalation ${prepared.id} kept changing while this call ran it; run it again`);
  }

  async #open(prepared: Prepared, reason: string): Promise<EscalationRecord> {
    const now = this.#clock.now();
    const proposed: EscalationRecord = {
      id: prepared.id,
      action: prepared.action,
      args: prepared.args,
      reason,
      deciders: [...this.#deciders],
      state: 'pending',
      round: 1,
      createdAt: now,
      expiresAt: now + this.#ttlMs,
      keepUntil: now + this.#ttlMs + this.#keepMs,
    };
    const { created, record } = await this.#store.escalationOpen(proposed, now);
    if (created && this.wants('escalation'))
      this.events.emit('escalation', {
        id: record.id,
        action: record.action,
        state: 'pending',
        round: record.round,
      });
    return record;
  }

  async #reopen(current: EscalationRecord, reason: string): Promise<EscalationRecord> {
    const now = this.#clock.now();
    const record = await this.#store.escalationReopen(
      current.id,
      current.round,
      reason,
      now,
      now + this.#ttlMs,
      now + this.#ttlMs + this.#keepMs,
    );
    if (record === undefined)
      return this.#open({ action: current.action, args: current.args, id: current.id }, reason);
    if (record.round === current.round + 1 && this.wants('escalation')) {
      this.events.emit('escalation', {
        id: record.id,
        action: record.action,
        state: 'pending',
        round: record.round,
      });
    }
    return record;
  }

  async ask(request: EscalationRequest, options?: AskOptions): Promise<EscalationVerdict> {
    const { prepared } = this.#prepare(request);
    const o = checkOptions('ask', options, ASK_KEYS);
    const signal = checkSignal('signal', o.signal);
    const reason =
      o.reason === undefined
        ? `approval is required before ${JSON.stringify(prepared.action)} runs`
        : checkString('reason', o.reason);
    for (;;) {
      let record = await this.#open(prepared, reason);
      if (record.state === 'approved') {
        // An approval is used once: the first call claims its round; an identical call after it asks again.
        if (await this.#use(record)) return { decision: 'approved', record };
        record = await this.#reopen(
          record,
          `asked again: the approval of round ${record.round} was used`,
        );
      }
      if (record.state === 'pending') {
        if (o.wait !== true)
          return { decision: 'pending', record, message: refusalMessage(record) };
        await this.#desk.wait(record.id, signal === undefined ? undefined : { signal });
        continue;
      }
      if (record.state !== 'approved')
        return { decision: 'denied', record, message: refusalMessage(record) };
    }
  }

  /**
   * How long the mark of a round's use (and a run's outcome) is kept: `resultTtlMs`, and for a
   * round of a kept escalation at least as long as the record, so that an approval is used at
   * most once and an approved action runs at most once for as long as anyone can read "approved".
   */
  #markerTtl(record: EscalationRecord | undefined, now: number): number {
    const kept = record === undefined ? 0 : record.keepUntil - now;
    return Math.max(this.#resultTtlMs, kept);
  }

  /** Marks the approval of `record.round` used; false when another call used it first. */
  async #use(record: EscalationRecord): Promise<boolean> {
    const key = useKey(record.id, record.round);
    const owner = `ask:${globalThis.crypto.randomUUID()}`;
    const now = this.#clock.now();
    const claim = await this.#store.ledgerClaim(key, owner, now, 30_000);
    if (claim.kind !== 'claimed') return false;
    await this.#store.ledgerComplete(
      key,
      owner,
      '{"ok":true,"value":"approved"}',
      now,
      now + this.#markerTtl(record, now),
    );
    return true;
  }

  get(id: string): Promise<EscalationRecord | undefined> {
    return this.#desk.get(id);
  }

  list(options?: Parameters<Escalations['list']>[0]): Promise<EscalationRecord[]> {
    return this.#desk.list(options);
  }

  approve(id: string, options: Parameters<Escalations['approve']>[1]): Promise<EscalationRecord> {
    return this.#desk.approve(id, options);
  }

  deny(id: string, options: Parameters<Escalations['deny']>[1]): Promise<EscalationRecord> {
    return this.#desk.deny(id, options);
  }

  wait(id: string, options?: { signal?: AbortSignal }): Promise<'approved' | 'denied'> {
    return this.#desk.wait(id, options);
  }
}

/**
 * Escalation to a person, for high-risk actions where a blind retry or fallback is unsafe
 * (payments, deletions, messages to customers). Instead of retrying, a failure (every one but a
 * cancelled call, or those `when` picks) is recorded in the store as an escalation — the action,
 * its arguments (redacted), the failure, who may decide — and the call rejects with
 * `EscalationRequiredError` {id}. A person decides with `recourse escalations approve ID` /
 * `deny ID` (or `approve`/`deny` here). The agent waits with `wait(id)`, or simply runs the action
 * again, now or after a restart, on any machine sharing the store: approved, it runs once more —
 * exactly once, through an idempotency ledger keyed by the action —; denied, or undecided for
 * `ttlMs`, it never runs (`EscalationDeniedError`). `run({ action, args }, fn)` keys the action by
 * its name and arguments; as a plain policy, `execute(fn, { idempotencyKey })` keys it by the call's
 * idempotency key (without one it cannot be found again after a restart). Results must be JSON
 * (they are recorded). `ask` asks before running at all (tool approval). Defaults: ttlMs 1 h,
 * keepMs 7 days, resultTtlMs 24 h, pollMs 1000, clock `wallClock`.
 *
 * @example
 * const risky = escalate({ store: sqliteStore({ path: 'agent.db' }), deciders: ['alice'], ttlMs: 30 * 60_000 })
 * try {
 *   await risky.run({ action: 'refund', args: { order: 'A-17', amount: 120 } }, () => payments.refund('A-17', 120))
 * } catch (e) {
 *   if (isEscalationRequiredError(e) && (await risky.wait(e.id)) === 'approved') {
 *     await risky.run({ action: 'refund', args: { order: 'A-17', amount: 120 } }, () => payments.refund('A-17', 120))
 *   }
 * }
 */
export function escalate(options: EscalateOptions): Escalate {
  return new EscalatePolicy(options);
}
