import { storeClosed } from '../store/store-close-hooks.js';
import { decodeEach, isObject, parseStored } from '../store/parse-stored.js';
import {
  checkMs,
  checkOptions,
  checkString,
  type OptionKeys,
  showValue,
} from '../options/validate-options.js';
import type { BreakerChangeListener, StoredAdmission } from '../store/breaker-store.js';
import type { CheckpointRecord } from '../store/checkpoint-store.js';
import type {
  EscalationDecideResult,
  EscalationDecision,
  EscalationQuery,
  EscalationRecord,
} from '../store/escalation-store.js';
import type { LedgerClaim, LedgerEntry } from '../store/ledger-store.js';
import type { SagaLease, SagaLogEntry } from '../store/saga-log-store.js';
import { type RateLimitBatchResult, RateLimitBatches } from '../store/rate-limit-batches.js';
import { rateLimitFromJson, rateLimitToJson } from '../store/rate-limit-json.js';
import type { RateLimitStore } from '../store/rate-limit-store.js';
import type { Store } from '../store/store.js';
import { asStoreError, StoreError } from '../store/store-error.js';
import type {
  RateLimitAnswer,
  RateLimitRecord,
  RateLimitUpdate,
} from '../transitions/rate-limit.js';
import type {
  Admission,
  BreakerLimits,
  BreakerOutcome,
  BreakerRecord,
} from '../transitions/breaker-record.js';
import {
  BUDGET_BUCKETS,
  type RetryBudgetGrant,
  type RetryBudgetLimits,
  type RetryBudgetRecord,
  type RetryBudgetTake,
  retryBudgetFloorCapacity,
} from '../transitions/retry-budget.js';
import { escalationListTransition, escalationView } from '../transitions/escalation.js';
import { BreakerChannel } from './breaker-channel.js';
import { RedisCalls } from './redis-calls.js';
import { isClusterClient, isRedisLike, Subscriber, sender } from './redis-connection.js';
import { RedisKeys } from './redis-keys.js';
import type { RedisLike } from './redis-like.js';
import {
  breakerFrom,
  escalationFields,
  escalationFrom,
  fields,
  list,
  num,
  text,
} from './replies.js';
import { BREAKER_ADMIT } from './scripts/breaker-admit.js';
import { BREAKER_FORCE } from './scripts/breaker-force.js';
import { BREAKER_RECORD } from './scripts/breaker-record.js';
import { RETRY_BUDGET_TAKE } from './scripts/retry-budget-take.js';
import { CHECKPOINT_SAVE } from './scripts/checkpoint-save.js';
import { ESCALATION_DECIDE } from './scripts/escalation-decide.js';
import { ESCALATION_LIST } from './scripts/escalation-list.js';
import { ESCALATION_OPEN } from './scripts/escalation-open.js';
import { ESCALATION_REOPEN } from './scripts/escalation-reopen.js';
import { LEDGER_CLAIM } from './scripts/ledger-claim.js';
import { LEDGER_COMPLETE } from './scripts/ledger-complete.js';
import { LEDGER_RELEASE } from './scripts/ledger-release.js';
import { BULKHEAD_ACQUIRE } from './scripts/bulkhead-acquire.js';
import { BULKHEAD_RELEASE } from './scripts/bulkhead-release.js';
import { BULKHEAD_RENEW } from './scripts/bulkhead-renew.js';
import type { BulkheadStore } from '../store/bulkhead-store.js';
import { LEDGER_RENEW } from './scripts/ledger-renew.js';
import { RATE_LIMIT_SWAP } from './scripts/rate-limit-swap.js';
import { SAGA_ACQUIRE } from './scripts/saga-acquire.js';
import { SAGA_APPEND } from './scripts/saga-append.js';
import { SAGA_RELEASE } from './scripts/saga-release.js';
import { SAGA_RENEW } from './scripts/saga-renew.js';
import { SAGA_RESET } from './scripts/saga-reset.js';

/** Options of {@link redisStore}. */
export interface RedisStoreOptions {
  /** A connected client: ioredis 5 (`new Redis(…)`) or node-redis 5 (`await createClient(…).connect()`). It stays yours: `close()` does not end it. */
  client: RedisLike;
  /** The connection breaker changes are heard on (`SUBSCRIBE`); it stays yours. Default: `client.duplicate()`, made on the first breaker subscription and ended by `close()`. */
  subscriber?: RedisLike;
  /** Put before every key and the change channel, so several stores (or apps) share one server. Default `'recourse:'`. */
  prefix?: string;
  /** Limit of a ledger, saga, checkpoint or escalation call, ms; slower calls reject with `StoreError` `timeout`. Default 5000. */
  timeoutMs?: number;
  /** Limit of a retry-budget, rate-limiter or bulkhead call, ms: the same name and meaning as `retryBudget({ storeTimeoutMs })`, and the shorter of the two applies. Default 250. */
  storeTimeoutMs?: number;
  /** Limit of a breaker call, ms: the same name and meaning as `circuitBreaker({ probeStoreTimeoutMs })`, and the shorter of the two applies. A breaker stops waiting sooner on its own (its `storeTimeoutMs`, for writes and re-reads); the store lets such a call run on up to this limit, so a write to a slow server still lands. Default 2000. */
  probeStoreTimeoutMs?: number;
}

const REDIS_STORE_KEYS: OptionKeys<RedisStoreOptions> = {
  client: true,
  subscriber: true,
  prefix: true,
  timeoutMs: true,
  storeTimeoutMs: true,
  probeStoreTimeoutMs: true,
};

/**
 * A pending ledger claim outlives its lease by this long before Redis forgets it (PX): a process
 * taking the key over within that time learns that the holder died mid-operation (`takeover`);
 * later, the key is free again as if never claimed.
 */
export const PENDING_GRACE_MS = 86_400_000;

/** An escalation record stays this long past its keepUntil before Redis deletes it. */
const ESCALATION_SLACK_MS = 86_400_000;

/** At most this many breaker names are read again after the subscriber reconnected (the most recently used). */
const CATCH_UP_NAMES = 10_000;
/** Reads of a catch-up in flight at once. */
const CATCH_UP_PARALLEL = 32;

/** An idle retry budget is kept this much longer than its window and the floor's refill time. */
const BUDGET_IDLE_MARGIN_MS = 60_000;

/**
 * A rate limiter's record is kept this long after the latest time it refers to (its last send
 * time, a Retry-After pause, a probe), then Redis deletes it: by then every bucket is full again,
 * and only the learned limits are forgotten (the next call learns them again, or uses the guess).
 */
const RATE_LIMIT_IDLE_MS = 3_600_000;

/** A rate-limit write that lost this many compare-and-swaps in a row gives up (`StoreError` `busy`). */
const RATE_LIMIT_SWAP_ATTEMPTS = 20;

/**
 * Every transition is one Lua script that reads the record, applies the transition recourse
 * exports (ported line by line; the scripts name the function they mirror) and writes the result,
 * atomically on the server. Times are the callers' (`now` as given, one wall-clock scale for every
 * process); the server's clock only runs the expiry of ledger results (PX), so a key is never
 * judged by two clocks. Numbers travel as texts both ways, so fractions come back as the same
 * doubles. A breaker change is published by the script that made it, so it goes out exactly when
 * the change is written.
 */
class RedisStore implements Store, RateLimitStore, BulkheadStore {
  readonly #calls: RedisCalls;
  readonly #timeoutMs: number;
  readonly #storeTimeoutMs: number;
  readonly #breakerTimeoutMs: number;
  readonly #prefix: string;
  readonly #keys: RedisKeys;
  readonly #channelName: string;
  readonly #channel: BreakerChannel;
  /** Breaker names this process used lately, oldest first: what a catch-up reads. */
  readonly #seen = new Set<string>();
  readonly #rateLimits = new RateLimitBatches((name, batch) => this.#rateLimitWrite(name, batch));

  constructor(
    client: RedisLike,
    subscriber: RedisLike | undefined,
    prefix: string,
    timeoutMs: number,
    storeTimeoutMs: number,
    breakerTimeoutMs: number,
  ) {
    this.#calls = new RedisCalls(client, sender(client), prefix);
    this.#prefix = prefix;
    this.#keys = new RedisKeys(prefix, isClusterClient(client));
    this.#timeoutMs = timeoutMs;
    this.#storeTimeoutMs = storeTimeoutMs;
    this.#breakerTimeoutMs = breakerTimeoutMs;
    this.#channelName = `${prefix}breakers`;
    this.#channel = new BreakerChannel(
      this.#channelName,
      () =>
        subscriber === undefined
          ? Subscriber.duplicateOf(client)
          : new Subscriber(subscriber, false),
      (deliver) => this.#catchUp(deliver),
    );
  }

  #see(name: string): void {
    if (this.#seen.delete(name)) {
      this.#seen.add(name);
      return;
    }
    this.#seen.add(name);
    if (this.#seen.size > CATCH_UP_NAMES)
      this.#seen.delete(this.#seen.values().next().value as string);
  }

  /** Reads the records of the breakers this process used lately and delivers them as changes. */
  async #catchUp(deliver: BreakerChangeListener): Promise<void> {
    const names = [...this.#seen];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < names.length && !this.#calls.closed) {
        const name = names[next++] as string;
        const record = await this.breakerGet(name);
        if (record !== undefined) deliver(name, record);
      }
    };
    await Promise.all(Array.from({ length: CATCH_UP_PARALLEL }, worker));
  }

  #key(kind: string, name: string): string {
    return this.#keys.key(kind, name);
  }

  // ── breakers ────────────────────────────────────────────────────────────────────────────────

  async #breakerScript(
    operation: string,
    name: string,
    script: typeof BREAKER_ADMIT,
    args: string[],
  ): Promise<unknown[]> {
    if (this.#calls.closed) throw this.#calls.closedError(operation);
    this.#see(name);
    await BreakerChannel.ready();
    return list(
      await this.#calls.script(
        operation,
        undefined,
        this.#breakerTimeoutMs,
        script,
        [this.#key('breaker', name)],
        args,
        // A breaker tells a server that is down (answered at once) from a slow one; and a write
        // held for a reconnect would land long after the outage it belongs to.
        true,
      ),
    );
  }

  async breakerAdmit(name: string, now: number, limits: BreakerLimits): Promise<StoredAdmission> {
    const reply = await this.#breakerScript('breakerAdmit', name, BREAKER_ADMIT, [
      String(now),
      String(now + limits.probeTimeoutMs),
      String(limits.cooldownMs),
      this.#channelName,
      name,
    ]);
    const record = breakerFrom(reply, 1);
    const kind = text(reply[0]);
    let admission: Admission;
    if (kind === 'call' || kind === 'probe') admission = { kind, epoch: record.epoch };
    else if (record.state === 'open')
      admission = {
        kind: 'reject',
        retryAfterMs: record.openedAt + limits.cooldownMs - now,
        state: 'open',
      };
    else if (record.state === 'half-open')
      admission = { kind: 'reject', retryAfterMs: record.probeUntil - now, state: 'half-open' };
    else admission = { kind: 'reject', retryAfterMs: Number.POSITIVE_INFINITY, state: 'isolated' };
    return { admission, record };
  }

  async breakerRecord(
    name: string,
    epoch: number,
    outcome: BreakerOutcome,
    now: number,
    limits: BreakerLimits,
  ): Promise<BreakerRecord> {
    const reply = await this.#breakerScript('breakerRecord', name, BREAKER_RECORD, [
      String(now),
      String(epoch),
      outcome,
      String(limits.failureThreshold),
      this.#channelName,
      name,
    ]);
    return breakerFrom(reply, 0);
  }

  async breakerForce(name: string, state: 'closed' | 'isolated'): Promise<BreakerRecord> {
    return breakerFrom(
      await this.#breakerScript('breakerForce', name, BREAKER_FORCE, [
        state,
        this.#channelName,
        name,
      ]),
      0,
    );
  }

  async breakerGet(name: string): Promise<BreakerRecord | undefined> {
    // A breaker reads its record right after it subscribed: once that read resolved, changes are heard.
    this.#see(name);
    await BreakerChannel.ready();
    const reply = list(
      await this.#calls.command(
        'breakerGet',
        undefined,
        this.#breakerTimeoutMs,
        ['HMGET', this.#key('breaker', name), 's', 'e', 'f', 'o', 'p'],
        true,
      ),
    );
    return reply[0] === null || reply[0] === undefined ? undefined : breakerFrom(reply, 0);
  }

  breakerSubscribe(listener: BreakerChangeListener): () => void {
    if (this.#calls.closed) throw this.#calls.closedError('breakerSubscribe');
    return this.#channel.subscribe(listener);
  }

  // ── ledger ──────────────────────────────────────────────────────────────────────────────────

  async ledgerClaim(
    key: string,
    owner: string,
    now: number,
    leaseMs: number,
  ): Promise<LedgerClaim> {
    const reply = list(
      await this.#calls.script(
        'ledgerClaim',
        key,
        this.#timeoutMs,
        LEDGER_CLAIM,
        [this.#key('ledger', key)],
        [String(now), owner, String(now + leaseMs), String(pendingPx(leaseMs))],
      ),
    );
    switch (text(reply[0])) {
      case 'claimed':
        return { kind: 'claimed', takeover: false };
      case 'takeover':
        return { kind: 'claimed', takeover: true, previousOwner: text(reply[1]) };
      case 'held':
        return { kind: 'held', leaseUntil: num(reply[1]) };
      default:
        return { kind: 'completed', result: reply.length > 1 ? text(reply[1]) : undefined };
    }
  }

  async ledgerRenew(key: string, owner: string, now: number, leaseMs: number): Promise<boolean> {
    const reply = await this.#calls.script(
      'ledgerRenew',
      key,
      this.#timeoutMs,
      LEDGER_RENEW,
      [this.#key('ledger', key)],
      [owner, String(now + leaseMs), String(pendingPx(leaseMs))],
    );
    return Number(reply) === 1;
  }

  async ledgerComplete(
    key: string,
    owner: string,
    result: string | undefined,
    now: number,
    expiresAt: number,
  ): Promise<boolean> {
    const px = Math.ceil(expiresAt - now);
    const reply = await this.#calls.script(
      'ledgerComplete',
      key,
      this.#timeoutMs,
      LEDGER_COMPLETE,
      [this.#key('ledger', key)],
      [
        owner,
        String(now),
        String(expiresAt),
        String(Number.isFinite(px) ? px : Number.MAX_SAFE_INTEGER),
        result === undefined ? '0' : '1',
        result ?? '',
      ],
    );
    return Number(reply) === 1;
  }

  async ledgerRelease(key: string, owner: string): Promise<void> {
    await this.#calls.script(
      'ledgerRelease',
      key,
      this.#timeoutMs,
      LEDGER_RELEASE,
      [this.#key('ledger', key)],
      [owner],
    );
  }

  // ── bulkheads: one sorted set per name (slot id → leaseUntil), one script per transition ─────
  // A cap is a protection like a breaker: its calls get the breaker's short limit, so a store
  // that stopped answering delays a call by no more than that (ARCHITECTURE.md §state.outage).

  async bulkheadAcquire(
    name: string,
    slot: string,
    max: number,
    now: number,
    leaseMs: number,
  ): Promise<boolean> {
    const reply = await this.#calls.script(
      'bulkheadAcquire',
      name,
      this.#storeTimeoutMs,
      BULKHEAD_ACQUIRE,
      [this.#key('bulkhead', name)],
      [slot, String(max), String(now), String(now + leaseMs), String(Math.ceil(leaseMs))],
    );
    return Number(reply) === 1;
  }

  async bulkheadRenew(
    name: string,
    slots: string[],
    now: number,
    leaseMs: number,
  ): Promise<string[]> {
    if (slots.length === 0) return [];
    const reply = await this.#calls.script(
      'bulkheadRenew',
      name,
      this.#storeTimeoutMs,
      BULKHEAD_RENEW,
      [this.#key('bulkhead', name)],
      [String(now + leaseMs), String(Math.ceil(leaseMs)), ...slots],
    );
    return list(reply).map(text);
  }

  async bulkheadRelease(name: string, slot: string): Promise<void> {
    await this.#calls.script(
      'bulkheadRelease',
      name,
      this.#storeTimeoutMs,
      BULKHEAD_RELEASE,
      [this.#key('bulkhead', name)],
      [slot],
    );
  }

  async ledgerGet(key: string): Promise<LedgerEntry | undefined> {
    const reply = list(
      await this.#calls.command('ledgerGet', key, this.#timeoutMs, [
        'HMGET',
        this.#key('ledger', key),
        's',
        'o',
        'l',
        'c',
        'r',
        'x',
      ]),
    );
    if (reply[0] === null || reply[0] === undefined) return undefined;
    const entry: LedgerEntry = {
      key,
      state: text(reply[0]) as LedgerEntry['state'],
      owner: text(reply[1]),
      leaseUntil: num(reply[2]),
      claims: num(reply[3]),
      expiresAt: num(reply[5]),
    };
    if (reply[4] !== null && reply[4] !== undefined) entry.result = text(reply[4]);
    return entry;
  }

  // ── checkpoints ─────────────────────────────────────────────────────────────────────────────

  async saveCheckpoint(r: CheckpointRecord): Promise<void> {
    const json = JSON.stringify({
      stepIndex: r.stepIndex,
      state: r.state,
      checksum: r.checksum,
      savedAt: r.savedAt,
    });
    await this.#calls.script(
      'saveCheckpoint',
      r.taskId,
      this.#timeoutMs,
      CHECKPOINT_SAVE,
      [this.#key('checkpoint', r.taskId)],
      [json],
    );
  }

  async loadCheckpoint(taskId: string): Promise<CheckpointRecord | undefined> {
    const reply = await this.#calls.command('loadCheckpoint', taskId, this.#timeoutMs, [
      'GET',
      this.#key('checkpoint', taskId),
    ]);
    if (reply === null || reply === undefined) return undefined;
    const saved = parseStored<Omit<CheckpointRecord, 'taskId'>>(
      text(reply),
      { what: 'redisStore: loadCheckpoint', key: taskId },
      isObject,
      'a checkpoint record',
    );
    return {
      taskId,
      stepIndex: saved.stepIndex,
      state: saved.state,
      checksum: saved.checksum,
      savedAt: saved.savedAt,
    };
  }

  // ── sagas ───────────────────────────────────────────────────────────────────────────────────

  async sagaAcquire(
    sagaId: string,
    owner: string,
    now: number,
    leaseMs: number,
    replacing?: string,
  ): Promise<SagaLease> {
    const reply = list(
      await this.#calls.script(
        'sagaAcquire',
        sagaId,
        this.#timeoutMs,
        SAGA_ACQUIRE,
        [this.#key('saga-lease', sagaId)],
        [
          String(now),
          owner,
          String(now + leaseMs),
          replacing === undefined ? '0' : '1',
          replacing ?? '',
        ],
      ),
    );
    return { acquired: text(reply[0]) === '1', leaseUntil: num(reply[1]), holder: text(reply[2]) };
  }

  async sagaRenew(sagaId: string, owner: string, now: number, leaseMs: number): Promise<boolean> {
    return (
      Number(
        await this.#calls.script(
          'sagaRenew',
          sagaId,
          this.#timeoutMs,
          SAGA_RENEW,
          [this.#key('saga-lease', sagaId)],
          [owner, String(now + leaseMs)],
        ),
      ) === 1
    );
  }

  async sagaRelease(sagaId: string, owner: string): Promise<void> {
    await this.#calls.script(
      'sagaRelease',
      sagaId,
      this.#timeoutMs,
      SAGA_RELEASE,
      [this.#key('saga-lease', sagaId)],
      [owner],
    );
  }

  async sagaAppend(sagaId: string, owner: string, e: SagaLogEntry): Promise<boolean> {
    const line: SagaLogEntry = { type: e.type, step: e.step, name: e.name, at: e.at };
    if (e.data !== undefined) line.data = e.data;
    const reply = await this.#calls.script(
      'sagaAppend',
      sagaId,
      this.#timeoutMs,
      SAGA_APPEND,
      [this.#key('saga-lease', sagaId), this.#key('saga-log', sagaId)],
      [owner, JSON.stringify(line)],
    );
    return Number(reply) === 1;
  }

  async sagaRead(sagaId: string): Promise<SagaLogEntry[]> {
    const reply = list(
      await this.#calls.command('sagaRead', sagaId, this.#timeoutMs, [
        'LRANGE',
        this.#key('saga-log', sagaId),
        '0',
        '-1',
      ]),
    );
    return reply.map((item) =>
      parseStored<SagaLogEntry>(
        text(item),
        { what: 'redisStore: sagaRead', key: sagaId },
        isObject,
        'a saga log entry',
      ),
    );
  }

  async sagaReset(sagaId: string, owner: string): Promise<boolean> {
    const reply = await this.#calls.script(
      'sagaReset',
      sagaId,
      this.#timeoutMs,
      SAGA_RESET,
      [this.#key('saga-lease', sagaId), this.#key('saga-log', sagaId)],
      [owner],
    );
    return Number(reply) === 1;
  }

  // ── escalations ─────────────────────────────────────────────────────────────────────────────

  async escalationOpen(
    record: EscalationRecord,
    now: number,
  ): Promise<{ created: boolean; record: EscalationRecord }> {
    const reply = list(
      await this.#calls.script(
        'escalationOpen',
        undefined,
        this.#timeoutMs,
        ESCALATION_OPEN,
        [this.#key('escalation', record.id), this.#keys.escalationIndex],
        [
          String(now),
          String(keepPx(record.keepUntil, now)),
          record.id,
          String(record.createdAt),
          ...escalationFields(record),
        ],
      ),
    );
    if (text(reply[0]) === 'created')
      return { created: true, record: { ...record, deciders: [...record.deciders] } };
    return { created: false, record: escalationView(escalationFrom(fields(reply, 1)), now) };
  }

  async escalationGet(id: string): Promise<EscalationRecord | undefined> {
    const reply = list(
      await this.#calls.command('escalationGet', undefined, this.#timeoutMs, [
        'HGETALL',
        this.#key('escalation', id),
      ]),
    );
    return reply.length === 0 ? undefined : escalationFrom(fields(reply));
  }

  async escalationDecide(
    id: string,
    decision: EscalationDecision,
    now: number,
  ): Promise<EscalationDecideResult> {
    const reply = list(
      await this.#calls.script(
        'escalationDecide',
        undefined,
        this.#timeoutMs,
        ESCALATION_DECIDE,
        [this.#key('escalation', id)],
        [
          String(now),
          decision.state,
          decision.by,
          decision.note === undefined ? '0' : '1',
          decision.note ?? '',
        ],
      ),
    );
    const kind = text(reply[0]);
    if (kind === 'unknown') return { kind: 'unknown' };
    return {
      kind: kind as 'decided' | 'final' | 'not_allowed',
      record: escalationFrom(fields(reply, 1)),
    };
  }

  async escalationReopen(
    id: string,
    round: number,
    reason: string,
    now: number,
    expiresAt: number,
    keepUntil: number,
  ): Promise<EscalationRecord | undefined> {
    const reply = await this.#calls.script(
      'escalationReopen',
      undefined,
      this.#timeoutMs,
      ESCALATION_REOPEN,
      [this.#key('escalation', id), this.#keys.escalationIndex],
      [
        id,
        String(round),
        reason,
        String(now),
        String(expiresAt),
        String(keepUntil),
        String(keepPx(keepUntil, now)),
      ],
    );
    return reply === null || reply === undefined ? undefined : escalationFrom(fields(list(reply)));
  }

  async escalationList(query: EscalationQuery): Promise<EscalationRecord[]> {
    const reply = list(
      await this.#calls.script(
        'escalationList',
        undefined,
        this.#timeoutMs,
        ESCALATION_LIST,
        [this.#keys.escalationIndex],
        [this.#keys.escalationPrefix],
      ),
    );
    return escalationListTransition(
      decodeEach(reply, (r) => escalationFrom(fields(list(r))), query.onCorrupt),
      query,
    );
  }

  // ── retry budgets ───────────────────────────────────────────────────────────────────────────

  async retryBudgetTake(
    name: string,
    take: RetryBudgetTake,
    now: number,
    limits: RetryBudgetLimits,
  ): Promise<RetryBudgetGrant> {
    const slotMs = limits.windowMs / BUDGET_BUCKETS;
    const capacity = retryBudgetFloorCapacity(limits);
    const refillMs = limits.minPerSecond > 0 ? (capacity / limits.minPerSecond) * 1000 : 0;
    const reply = list(
      await this.#calls.script(
        'retryBudgetTake',
        undefined,
        this.#storeTimeoutMs,
        RETRY_BUDGET_TAKE,
        [this.#key('budget', name)],
        [
          String(now),
          String(Math.floor(now / slotMs)),
          String(Math.floor(take.returnedAt / slotMs)),
          String(take.requests),
          String(take.returned),
          String(take.want),
          String(limits.ratio),
          String(limits.minPerSecond),
          String(capacity),
          String(Math.ceil(limits.windowMs + refillMs + BUDGET_IDLE_MARGIN_MS)),
          String(BUDGET_BUCKETS),
        ],
      ),
    );
    return {
      granted: num(reply[0]),
      requests: num(reply[1]),
      retries: num(reply[2]),
      floorTokens: num(reply[3]),
    };
  }

  async retryBudgetGet(name: string): Promise<RetryBudgetRecord | undefined> {
    const reply = list(
      await this.#calls.command('retryBudgetGet', undefined, this.#storeTimeoutMs, [
        'HMGET',
        this.#key('budget', name),
        'b',
        'f',
        'r',
      ]),
    );
    if (reply[1] === null || reply[1] === undefined) return undefined;
    const packed = reply[0] === null || reply[0] === undefined ? '' : text(reply[0]);
    const buckets =
      packed === ''
        ? []
        : packed.split(';').map((b) => {
            const [slot, requests, retries] = b.split(',').map(Number) as [number, number, number];
            return { slot, requests, retries };
          });
    return { buckets, floorTokens: num(reply[1]), refilledAt: num(reply[2]) };
  }

  // ── rate limiters ───────────────────────────────────────────────────────────────────────────

  rateLimitUpdate(name: string, update: RateLimitUpdate, now: number): Promise<RateLimitAnswer> {
    if (this.#calls.closed) return Promise.reject(this.#calls.closedError('rateLimitUpdate'));
    return this.#rateLimits.update(name, update, now);
  }

  async rateLimitGet(name: string): Promise<RateLimitRecord | undefined> {
    return (await this.#rateLimitRead('rateLimitGet', name)).record;
  }

  async #rateLimitRead(
    operation: string,
    name: string,
  ): Promise<{ record: RateLimitRecord | undefined; version: string }> {
    const reply = list(
      await this.#calls.command(operation, undefined, this.#storeTimeoutMs, [
        'HMGET',
        this.#key('rate-limit', name),
        'r',
        'v',
      ]),
    );
    if (reply[0] === null || reply[0] === undefined) return { record: undefined, version: '0' };
    try {
      return {
        record: rateLimitFromJson(
          text(reply[0]),
          `redisStore: ${operation} of ${JSON.stringify(name)}`,
        ),
        version: text(reply[1]),
      };
    } catch (error) {
      throw asStoreError(
        error,
        `redisStore: ${operation} under prefix ${JSON.stringify(this.#prefix)}`,
      );
    }
  }

  /**
   * The transition runs here, on the record as read; `rate-limit-swap` writes the result only if
   * the record is still that version. A lost swap (another process wrote first) reads and applies
   * again after a short random pause, RATE_LIMIT_SWAP_ATTEMPTS times at most.
   */
  async #rateLimitWrite(
    name: string,
    batch: (current: RateLimitRecord | undefined) => RateLimitBatchResult,
  ): Promise<RateLimitAnswer[]> {
    for (let attempt = 1; ; attempt++) {
      const { record: current, version } = await this.#rateLimitRead('rateLimitUpdate', name);
      const { record, answers, now } = batch(current);
      const reply = await this.#calls.script(
        'rateLimitUpdate',
        undefined,
        this.#storeTimeoutMs,
        RATE_LIMIT_SWAP,
        [this.#key('rate-limit', name)],
        [version, rateLimitToJson(record), String(rateLimitPx(record, now))],
      );
      if (Number(reply) === 1) return answers;
      if (attempt >= RATE_LIMIT_SWAP_ATTEMPTS) {
        throw new StoreError(
          'busy',
          `redisStore: rateLimitUpdate of ${JSON.stringify(name)} under prefix ${JSON.stringify(this.#prefix)} lost ${attempt} compare-and-swaps in a row to other writers`,
        );
      }
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, 2 ** attempt)));
    }
  }

  async close(): Promise<void> {
    storeClosed(this);
    await this.#calls.close();
    await this.#channel.end();
  }
}

/** PX of a pending ledger claim: its lease plus the grace, in whole ms (at least 1). */
function pendingPx(leaseMs: number): number {
  return Math.max(1, Math.ceil(leaseMs + PENDING_GRACE_MS));
}

/** PX of a rate limiter's record: until the latest time it refers to, and RATE_LIMIT_IDLE_MS more. */
function rateLimitPx(r: RateLimitRecord, now: number): number {
  const px = Math.ceil(Math.max(r.at, r.pausedUntil, r.probeUntil, now) - now) + RATE_LIMIT_IDLE_MS;
  return Number.isFinite(px) ? px : Number.MAX_SAFE_INTEGER;
}

/**
 * PX of an escalation record: until its keepUntil and a day more. Whether a record is kept is
 * judged by the callers' clock (`keepUntil > now`); the server's expiry only bounds storage, so it
 * must never come first.
 */
function keepPx(keepUntil: number, now: number): number {
  const px = Math.ceil(keepUntil - now) + ESCALATION_SLACK_MS;
  return Number.isFinite(px) ? Math.max(ESCALATION_SLACK_MS, px) : Number.MAX_SAFE_INTEGER;
}

/**
 * A store in Redis (through ioredis 5 or node-redis 5, or any client shaped like
 * {@link RedisLike}), shared by every process that reaches the server: breakers (one probe
 * cluster-wide, changes published on `<prefix>breakers`), the idempotency ledger, checkpoints,
 * saga logs, escalations, retry budgets and rate limiters (`rateLimiter({ store })`). Every
 * transition is one Lua script run with `EVALSHA` (loaded again by `EVAL` when the server lost
 * it), so it is atomic however many processes race; a rate limiter's record is the exception: its
 * transition runs in the process and a script writes the result only if nobody wrote the record
 * since (a compare-and-swap, tried again on a lost swap, 20 times at most). Times are the callers'
 * wall clock. Ledger results expire by themselves (PX, at `expiresAt`), an idle rate limiter an
 * hour after the last time it refers to; breaker changes are heard on a second connection
 * (`subscriber`, by default `client.duplicate()`). Calls that fail or outlive their limit reject
 * with `StoreError` (breaker calls after 2 s, budget and rate-limit calls 250 ms, others `timeoutMs`). `close()` waits for running calls and ends the subscriber connection it
 * made; the client stays yours to `quit()`. Defaults: prefix `'recourse:'`, timeoutMs 5000,
 * storeTimeoutMs 250, probeStoreTimeoutMs 2000. One Redis node (or a primary behind Sentinel), or a
 * Redis Cluster through a cluster client (ioredis or iovalkey `Cluster`, node-redis
 * `createCluster`): keys are then hash-tagged so each script's keys share one slot (`<prefix>breaker:{name}`;
 * a prefix with a `{tag}` of its own keeps every key in that slot), and changes are published with
 * PUBLISH, which a cluster hands to every node.
 *
 * @example
 * import { Redis } from 'ioredis'
 * import { circuitBreaker, IdempotencyLedger } from 'agent-recourse'
 * import { redisStore } from 'agent-recourse/redis'
 *
 * const client = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379')
 * const store = redisStore({ client })
 * const model = circuitBreaker({ name: 'claude-opus', store })
 * const ledger = new IdempotencyLedger(store)
 */
export function redisStore(options: RedisStoreOptions): Store & RateLimitStore & BulkheadStore {
  const o = checkOptions('redisStore', options, REDIS_STORE_KEYS);
  if (!isRedisLike(o.client)) {
    throw new TypeError(
      `client must be a Redis client with call() (ioredis) or sendCommand() (node-redis), got ${showValue(o.client)}`,
    );
  }
  if (o.subscriber !== undefined && !isRedisLike(o.subscriber)) {
    throw new TypeError(
      `subscriber must be a Redis client with call() (ioredis) or sendCommand() (node-redis), got ${showValue(o.subscriber)}`,
    );
  }
  if (
    o.subscriber === undefined &&
    typeof (o.client as { duplicate?: unknown }).duplicate !== 'function'
  ) {
    throw new TypeError(
      'client has no duplicate(): pass a subscriber connection (the subscriber option)',
    );
  }
  const prefix = o.prefix === undefined ? 'recourse:' : checkString('prefix', o.prefix, true);
  const timeoutMs = o.timeoutMs === undefined ? 5000 : checkMs('timeoutMs', o.timeoutMs, 1);
  const storeTimeoutMs =
    o.storeTimeoutMs === undefined ? 250 : checkMs('storeTimeoutMs', o.storeTimeoutMs, 1);
  const probeStoreTimeoutMs =
    o.probeStoreTimeoutMs === undefined
      ? 2000
      : checkMs('probeStoreTimeoutMs', o.probeStoreTimeoutMs, 1);
  return new RedisStore(
    o.client,
    o.subscriber,
    prefix,
    timeoutMs,
    storeTimeoutMs,
    probeStoreTimeoutMs,
  );
}
