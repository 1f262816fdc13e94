import type { Work } from '../context/call-context.js';
import type { SpendEvents } from './spend-events.js';
import { ambientScope, type Scope, ScopeSlot } from '../context/scope.js';
import { BudgetExceededError } from '../errors/spend-limit-exceeded-error.js';
import { UNNAMED_DEPENDENCY } from '../guardrails/health-monitor.js';
import {
  checkFunction,
  checkName,
  checkNumber,
  checkOneOf,
  checkOptions,
  checkString,
  type OptionKeys,
  showValue,
} from '../options/validate-options.js';
import { BaseLayer, COMPOSE, type Invoke } from '../policy/layer.js';
import type { EventedPolicy } from '../policy/policy.js';
import { safeRead } from '../text/safe-text.js';
import type { TokenUsage } from '../dialects/dialect.js';
import { estimateTokens, modelOf, usageOf } from '../dialects/read-facts.js';
import { checkSpendRate, type SpendRate, type SpendRateOptions } from './spend-rate.js';

/**
 * What a model's tokens cost, in USD per million tokens (as providers publish their prices).
 *
 * @example
 * const sonnet: ModelPrice = { inputPerMTok: 3, outputPerMTok: 15 }
 */
export interface ModelPrice {
  inputPerMTok: number;
  outputPerMTok: number;
}

/** Options of {@link spendLimit}: exactly one of `usd` and `tokens`. */
export interface SpendLimitOptions {
  /** The limit in USD (needs `prices`). */
  usd?: number;
  /** The limit in tokens, input and output together. */
  tokens?: number;
  /** Prices by model name; `'*'` prices any model not listed. Needed with `usd`. */
  prices?: Record<string, ModelPrice>;
  /** One count for everything through this limit (`'run'`), or one per dependency (the call's name). Default `'run'`. */
  per?: 'run' | 'dependency';
  /** The limit's name in errors and events (per `'run'`). Default `'run'`. */
  name?: string;
  /** The tokens a request may cost, from its body. Default {@link estimateTokens}: input ≈ JSON characters / 4, output = `max_tokens`. */
  estimate?: (request: unknown) => TokenUsage;
  /** Open a circuit breaker when spending passes a rate (see {@link SpendRateOptions}). Default: none. */
  rate?: SpendRateOptions;
}

const SPEND_LIMIT_KEYS: OptionKeys<SpendLimitOptions> = {
  usd: true,
  tokens: true,
  prices: true,
  per: true,
  name: true,
  estimate: true,
  rate: true,
};
const SPEND_KEYS: OptionKeys<SpendOptions> = { dependency: true, model: true };

function checkSpendOptions(owner: string, options: SpendOptions | undefined): SpendOptions {
  const o = checkOptions(owner, options, SPEND_KEYS);
  const out: SpendOptions = {};
  if (o.dependency !== undefined) out.dependency = checkName('dependency', o.dependency);
  if (o.model !== undefined) out.model = checkString('model', o.model);
  return out;
}

/** Where a call's spending is counted: which limit, which model, whether it was counted. */
interface SpendOptions {
  /** The dependency to count against (per `'dependency'`). Default: the call's name. */
  dependency?: string;
  /** The model whose price applies (with `usd`). Default: the body's or result's `model`. */
  model?: string;
}

/**
 * A spend limit of tokens or USD for an agent run (see {@link spendLimit}): a policy, and a counter
 * code can check and feed directly.
 */
export interface SpendLimit extends EventedPolicy<'spend_limit_exceeded' | 'spend_rate_exceeded'> {
  readonly name: string;
  readonly unit: 'usd' | 'tokens';
  readonly limit: number;
  /** Spent so far in `unit`: the run's, or with `per: 'dependency'` that dependency's (default: every dependency's together). */
  spent(dependency?: string): number;
  /** Throws `BudgetExceededError` if a call with this body (its estimate) would pass the limit. */
  check(request?: unknown, options?: SpendOptions): void;
  /** Counts what a call used: an SDK result with `usage` (Anthropic, OpenAI, AI SDK) or `{ input, output }` tokens. */
  record(resultOrUsage: unknown, options?: SpendOptions): void;
  /** Forgets everything spent (a new run). */
  reset(): void;
}

/** @internal The spending of the call in progress, for adapters nested in a spend limit's policy call. */
interface SpendTicket {
  readonly limit: SpendLimitPolicy;
  readonly key: string;
  /** The dependency (the call's name): which breaker a spend rate trips. */
  readonly dependency: string;
  recorded: boolean;
}

const SPEND_TICKET: ScopeSlot<SpendTicket> = new ScopeSlot<SpendTicket>('recourse.spendTicket');

function isUsage(value: unknown): value is TokenUsage {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as TokenUsage).input === 'number' &&
    typeof (value as TokenUsage).output === 'number'
  );
}

class SpendLimitPolicy extends BaseLayer implements SpendLimit {
  readonly name: string;
  readonly unit: 'usd' | 'tokens';
  readonly limit: number;
  readonly #prices: Record<string, ModelPrice> | undefined;
  readonly #perDependency: boolean;
  readonly #estimate: (request: unknown) => TokenUsage;
  readonly #rate: SpendRate | undefined;
  readonly #spent = new Map<string, number>();
  /** The costliest single call seen per limit: what a call through the policy (no body) is expected to cost. */
  readonly #largest = new Map<string, number>();

  constructor(
    name: string,
    unit: 'usd' | 'tokens',
    limit: number,
    prices: Record<string, ModelPrice> | undefined,
    perDependency: boolean,
    estimate: (request: unknown) => TokenUsage,
    rate: SpendRate | undefined,
  ) {
    super('spend-limit', name);
    this.name = name;
    this.unit = unit;
    this.limit = limit;
    this.#prices = prices;
    this.#perDependency = perDependency;
    this.#estimate = estimate;
    this.#rate = rate;
  }

  [COMPOSE](next: Invoke): Invoke {
    return async (fn: Work<unknown>, scope: Scope): Promise<unknown> => {
      const outer = scope.get(SPEND_TICKET);
      if (outer !== undefined && outer.limit === this) return next(fn, scope);
      const ticket = this.#newTicket(scope.name);
      this.#refuse(ticket.key, this.#largest.get(ticket.key) ?? 0);
      try {
        const value = await next(fn, scope.withSlot(SPEND_TICKET, ticket));
        if (!ticket.recorded) this.#add(ticket, usageOf(value), modelOf(value));
        return value;
      } catch (error) {
        if (!ticket.recorded) this.recordFailure(ticket, error);
        throw error;
      }
    };
  }

  spent(dependency?: string): number {
    if (dependency !== undefined) return this.#spent.get(this.#key(dependency)) ?? 0;
    let total = 0;
    for (const v of this.#spent.values()) total += v;
    return total;
  }

  check(request?: unknown, options?: SpendOptions): void {
    const o = checkSpendOptions('check', options);
    const key = this.#key(o.dependency ?? ambientScope()?.name);
    this.#refuse(key, this.#costOfRequest(request, o.model));
  }

  record(resultOrUsage: unknown, options?: SpendOptions): void {
    const o = checkSpendOptions('record', options);
    const ticket = this.#newTicket(o.dependency ?? ambientScope()?.name);
    this.#add(
      ticket,
      isUsage(resultOrUsage) ? resultOrUsage : usageOf(resultOrUsage),
      o.model ?? modelOf(resultOrUsage),
    );
  }

  reset(): void {
    this.#spent.clear();
    this.#largest.clear();
    this.#rate?.clear();
  }

  /** @internal Refuses a request of an adapter before it is sent. */
  checkTicket(ticket: SpendTicket, request: unknown): void {
    this.#refuse(ticket.key, this.#costOfRequest(request, undefined));
  }

  /** @internal Counts what an adapter's request used (its wire read the usage and the model). */
  recordTicket(
    ticket: SpendTicket,
    usage: TokenUsage | undefined,
    model: string | undefined,
  ): void {
    ticket.recorded = true;
    this.#add(ticket, usage, model);
  }

  /**
   * @internal A failed call may still have used tokens: a stream cut short carries its partial
   * answer, whose usage the adapter's wire read (`partial`), or else it is read from the error.
   */
  recordFailure(
    ticket: SpendTicket,
    error: unknown,
    partial?: { usage: TokenUsage | undefined; model: string | undefined },
  ): void {
    let usage = partial?.usage;
    let model = partial?.model;
    if (partial === undefined) {
      const value = safeRead(error, 'partial');
      usage = usageOf(value);
      model = modelOf(value);
    }
    if (usage === undefined) return;
    ticket.recorded = true;
    this.#add(ticket, usage, model);
  }

  /** @internal The ticket for an adapter's request: the enclosing policy call's, or a new one. */
  ticket(): SpendTicket {
    const ambient = ambientScope()?.get(SPEND_TICKET);
    if (ambient !== undefined && ambient.limit === this) return ambient;
    return this.#newTicket(ambientScope()?.name);
  }

  #newTicket(name: string | undefined): SpendTicket {
    const dependency = name ?? UNNAMED_DEPENDENCY;
    return {
      limit: this,
      key: this.#perDependency ? dependency : this.name,
      dependency,
      recorded: false,
    };
  }

  #key(dependency: string | undefined): string {
    return this.#perDependency ? (dependency ?? UNNAMED_DEPENDENCY) : this.name;
  }

  #costOfRequest(request: unknown, model: string | undefined): number {
    if (request === undefined) return 0;
    const e = this.#estimate(request);
    return this.#cost(
      { input: Number(e?.input) || 0, output: Number(e?.output) || 0 },
      model ?? modelOf(request),
      this.unit,
    );
  }

  #cost(usage: TokenUsage, model: string | undefined, unit: 'usd' | 'tokens'): number {
    if (unit === 'tokens') return usage.input + usage.output;
    const prices = this.#prices ?? {};
    const price = (model === undefined ? undefined : prices[model]) ?? prices['*'];
    if (price === undefined) {
      throw new TypeError(
        `spendLimit ${JSON.stringify(this.name)}: no price for model ${JSON.stringify(model ?? '(unknown)')}; add it to prices, or a '*' entry`,
      );
    }
    return (usage.input * price.inputPerMTok + usage.output * price.outputPerMTok) / 1_000_000;
  }

  #refuse(key: string, estimate: number): void {
    const spent = this.#spent.get(key) ?? 0;
    // Reached, or the next call may pass it: refuse before anything is sent.
    if (spent < this.limit && spent + estimate <= this.limit) return;
    const name = this.#perDependency ? key : this.name;
    if (this.wants('spend_limit_exceeded'))
      this.events.emit('spend_limit_exceeded', {
        name,
        unit: this.unit,
        spent,
        estimate,
        limit: this.limit,
      });
    throw new BudgetExceededError({ name, unit: this.unit, spent, estimate, limit: this.limit });
  }

  #add(ticket: SpendTicket, usage: TokenUsage | undefined, model: string | undefined): void {
    if (usage === undefined) return;
    const { key } = ticket;
    const cost = this.#cost(usage, model, this.unit);
    this.#spent.set(key, (this.#spent.get(key) ?? 0) + cost);
    if (cost > (this.#largest.get(key) ?? 0)) this.#largest.set(key, cost);
    const rate = this.#rate;
    if (rate !== undefined)
      rate.add(
        ticket.dependency,
        rate.unit === this.unit ? cost : this.#cost(usage, model, rate.unit),
        this.#rateExceeded,
      );
  }

  readonly #rateExceeded = (e: SpendEvents['spend_rate_exceeded']): void => {
    if (this.wants('spend_rate_exceeded')) this.events.emit('spend_rate_exceeded', e);
  };
}

/** @internal What an adapter's request reports to the spend limit it counts against. */
export interface AdapterSpend {
  /** Refuses the request before it is sent when its estimate would pass the limit. */
  check(request: unknown): void;
  /** Counts what it used. */
  record(usage: TokenUsage | undefined, model: string | undefined): void;
  /** Counts what a failed request used, if its partial answer says (see `recordFailure`). */
  fail(
    error: unknown,
    partial?: { usage: TokenUsage | undefined; model: string | undefined },
  ): void;
}

/** @internal The spend limit an adapter's request counts against: its option, or an enclosing policy's. */
export function spendTicketFor(limit: SpendLimit | undefined): AdapterSpend | undefined {
  let ticket: SpendTicket | undefined;
  if (limit !== undefined) ticket = (limit as SpendLimitPolicy).ticket();
  else ticket = ambientScope()?.get(SPEND_TICKET);
  if (ticket === undefined) return undefined;
  const t = ticket;
  return {
    check: (request) => t.limit.checkTicket(t, request),
    record: (usage, model) => t.limit.recordTicket(t, usage, model),
    fail: (error, partial) => t.limit.recordFailure(t, error, partial),
  };
}

/** @internal A `spendLimit` option of an adapter. */
export function checkSpendLimit(name: string, value: unknown): SpendLimit | undefined {
  if (value === undefined) return undefined;
  if (!(value instanceof SpendLimitPolicy))
    throw new TypeError(`${name} must be a spend limit (spendLimit()), got ${showValue(value)}`);
  return value;
}

function checkPrices(value: unknown): Record<string, ModelPrice> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(
      `prices must be an object of { inputPerMTok, outputPerMTok } by model name, got ${showValue(value)}`,
    );
  }
  const out: Record<string, ModelPrice> = {};
  for (const [model, p] of Object.entries(value)) {
    const o = checkOptions(`prices[${JSON.stringify(model)}]`, p as ModelPrice, {
      inputPerMTok: true,
      outputPerMTok: true,
    });
    out[model] = {
      inputPerMTok: checkNumber(`prices[${JSON.stringify(model)}].inputPerMTok`, o.inputPerMTok, 0),
      outputPerMTok: checkNumber(
        `prices[${JSON.stringify(model)}].outputPerMTok`,
        o.outputPerMTok,
        0,
      ),
    };
  }
  return out;
}

/**
 * A spend limit of tokens or USD for an agent run, counted from what the SDKs report (Anthropic
 * `Message.usage`, OpenAI `usage`, the AI SDK's `usage` / `totalUsage`; USD from the `prices` you
 * pass). A call that would pass the limit is refused **before it is sent** with
 * `BudgetExceededError` (persistent: never retried, not counted by breakers), so a loop whose
 * retries would overspend stops at the last call that fits. How much a call may cost: with a body
 * (the adapters' `spendLimit` option, or `check(body)`), its input estimate plus its `max_tokens`
 * (an answer never writes more); as a policy with no body, the costliest call seen so far.
 * `per: 'dependency'` keeps one count per dependency (the call's name: a named `pipeline`).
 * A stream cut short counts what its partial message used. With `rate`, spending faster than
 * `rate.usd` / `rate.tokens` per `rate.perMs` (a sliding window, per breaker) opens `rate.breaker`
 * (for a `BreakerRegistry`, the dependency's breaker), through its own transition, so a breaker on
 * a store opens in every process; it recovers by its cooldown and single probe. Put that breaker
 * in the calls' pipeline: while it is open they fail fast with `CircuitOpenError` (`reason`
 * `spend_rate`). Events: `spend_limit_exceeded`, `spend_rate_exceeded`.
 * Defaults: per 'run', name 'run', estimate {@link estimateTokens}, no rate.
 *
 * @example
 * const limit = spendLimit({ usd: 2, prices: { 'claude-sonnet-4-6': { inputPerMTok: 3, outputPerMTok: 15 } } })
 * const call = pipeline(retry(), limit)
 * const message = await call.execute((ctx) => streamMessage(client, body, { signal: ctx.signal })) // counted, checked before sending
 * // a breaker that opens when more than 200,000 tokens are spent within a minute
 * const breaker = circuitBreaker({ name: 'model', cooldownMs: 60_000 })
 * const paced = spendLimit({ tokens: 5_000_000, rate: { tokens: 200_000, perMs: 60_000, breaker } })
 * const guarded = pipeline(breaker, retry(), paced)
 */
export function spendLimit(options: SpendLimitOptions): SpendLimit {
  const o = checkOptions('spendLimit', options, SPEND_LIMIT_KEYS);
  if ((o.usd === undefined) === (o.tokens === undefined))
    throw new TypeError(
      `spendLimit needs exactly one of usd and tokens, got ${showValue(options)}`,
    );
  const unit = o.usd !== undefined ? 'usd' : 'tokens';
  const limit = checkNumber(unit, o.usd ?? o.tokens, 0);
  if (!Number.isFinite(limit))
    throw new RangeError(`${unit} must be a finite number >= 0, got ${limit}`);
  const prices = o.prices === undefined ? undefined : checkPrices(o.prices);
  if (unit === 'usd' && prices === undefined)
    throw new TypeError(
      `prices must be given with usd (USD per million tokens by model), got undefined`,
    );
  const per =
    o.per === undefined ? 'run' : checkOneOf('per', o.per, ['run', 'dependency'] as const);
  const name = o.name === undefined ? 'run' : checkName('name', o.name);
  const estimate =
    o.estimate === undefined
      ? estimateTokens
      : checkFunction<(request: unknown) => TokenUsage>('estimate', o.estimate);
  const rate =
    o.rate === undefined ? undefined : checkSpendRate(o.rate, prices !== undefined, name);
  return new SpendLimitPolicy(name, unit, limit, prices, per === 'dependency', estimate, rate);
}
