/**
 * What every call made through a policy receives.
 *
 * @example
 * await policy.execute((ctx) => fetch(url, { signal: ctx.signal }))
 */
export interface CallContext {
  /** Aborted on caller abort, timeout, stall or breaker probe timeout. Created lazily. */
  readonly signal: AbortSignal;
  /** 1-based, within the innermost retry. */
  readonly attempt: number;
  /** Clock time: the earliest deadline of all enclosing timeouts. */
  readonly deadline?: number | undefined;
  /** The same for every attempt of one logical call. */
  readonly idempotencyKey?: string | undefined;
}

/**
 * Per-call options of `execute`.
 *
 * @example
 * await policy.execute(call, { signal: AbortSignal.timeout(60_000), idempotencyKey: idempotencyKey('send', to) })
 */
export interface ExecuteOptions {
  signal?: AbortSignal;
  idempotencyKey?: string;
}

/** A unit of work run by a policy. */
export type Work<T> = (ctx: CallContext) => T | PromiseLike<T>;
