import { classify } from '../classify/classify.js';
import type { Classification } from '../classify/classification.js';
import type { CallContext, ExecuteOptions, Work } from '../context/call-context.js';
import { ambientScope } from '../context/scope.js';
import { AllPathsFailedError, type PathFailure } from '../errors/all-paths-failed-error.js';
import { abortReason } from '../errors/abort-error.js';
import { Emitter } from '../events/emitter.js';
import type { Listener } from '../events/listener.js';
import type { FallbackEvents } from './fallback-events.js';
import {
  checkName,
  checkOptions,
  checkSignal,
  type OptionKeys,
  showValue,
} from '../options/validate-options.js';
import { EXECUTE_KEYS, start, terminal } from '../policy/layer.js';
import type { Policy } from '../policy/policy.js';

// Marks fallback ladders, which look like a policy (`execute`, `on`) but are not one. Registered,
// so two copies of recourse in one process recognise each other's ladders.
const LADDER: unique symbol = Symbol.for('recourse.fallback') as never;

const PATH_KEYS: OptionKeys<FallbackPath<unknown>> = {
  name: true,
  run: true,
  policy: true,
  when: true,
};

/**
 * Which failures a path takes over from the path before it.
 * @example
 * const onOverflow: FallbackWhen = (_e, c) => c.reason === 'context_overflow'
 */
export type FallbackWhen = (failure: unknown, classification: Classification) => boolean;

/**
 * @internal The default of `when`: every failure but a `fatal` one. A TypeError from a bug in a
 * path is not an outage the next path can serve; it goes to the caller (ARCHITECTURE.md §P1).
 */
export const notFatal: FallbackWhen = (_failure, c) => c.kind !== 'fatal';

/** @internal Checks a path's `when` (undefined: the default). */
export function checkWhen(where: string, value: unknown): FallbackWhen {
  if (value === undefined) return notFatal;
  if (typeof value !== 'function')
    throw new TypeError(
      `${where} must be a function (failure, classification) => boolean, got ${showValue(value)}`,
    );
  return value as FallbackWhen;
}

/** @internal True for a `fallback(...)` ladder. */
export function isFallback(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { [LADDER]?: unknown })[LADDER] === true
  );
}

/** @internal The message for a ladder given where a policy belongs. */
export function ladderIsNotAPolicy(where: string): string {
  return `${where} is a fallback(...) ladder, not a policy: a ladder runs its own paths (ladder.execute() takes options, not a function). Run it inside a policy with policy.execute(() => ladder.execute()), or give each path its own policy`;
}

/** `when(error, classify(error))`; a `when` that throws counts as refusing (the failure goes to the caller). */
function acceptsFailure(when: FallbackWhen, error: unknown): boolean {
  try {
    return when(error, classify(error)) === true;
  } catch {
    return false;
  }
}

/** One rung of a fallback ladder. */
export interface FallbackPath<T> {
  /** Reported as `servedBy`. Unique within the ladder. */
  name: string;
  run: (ctx: CallContext) => T | PromiseLike<T>;
  /** Runs `run` under this policy (typically `pipeline(breaker, retry, timeout)`). */
  policy?: Policy;
  /**
   * Which failures of the path before this one the ladder moves on to this path for; any other
   * failure is rethrown as it is. Default: every failure but a `fatal` one (a bug in a path is not
   * an outage). Not asked on the first path.
   */
  when?: FallbackWhen;
}

/** A fallback result: the value and which path served it. */
export interface Served<T> {
  value: T;
  servedBy: string;
  /** `servedBy !== paths[0].name`. */
  degraded: boolean;
  /** The failures of the paths tried before `servedBy`, in order. */
  failures: Array<{ path: string; error: unknown }>;
}

/** A fallback ladder. Events: `fallback` {from, to, error}, `served` {servedBy, degraded, failures}. */
export interface Fallback<T> {
  /**
   * Tries the paths in order. Takes options only (each path's `run` says what to call): passing a
   * function is a compile error and rejects with a TypeError.
   */
  execute(options?: ExecuteOptions): Promise<Served<T>>;
  on<E extends 'fallback' | 'served'>(event: E, listener: Listener<FallbackEvents[E]>): () => void;
  on(event: string, listener: (e: object) => void): () => void;
}

/**
 * A ladder of paths tried in order until one succeeds. A path is tried after the one before it
 * failed with a failure the path's `when` accepts (default: every failure but a `fatal` one, so a
 * TypeError from a bug is rethrown, not served by the next path); any other failure is rethrown
 * as it is. Degradation is never silent: the result
 * says `servedBy` and `degraded`, lists the failures of the paths before it, and every step is a
 * `fallback` event. A path whose breaker is open fails at once with `CircuitOpenError`, so the
 * ladder moves on without waiting. A caller abort stops the ladder (it is not a reason to try the
 * next path), and so does the end of the call it runs in: inside a `timeout` whose deadline passed
 * (or any enclosing call that was aborted) no further path is started. All paths failing rejects
 * with `AllPathsFailedError`. A ladder is not a policy: `pipeline(fallback(…))` is refused (run the
 * ladder inside a policy's call instead).
 *
 * @example
 * const research = fallback([
 *   { name: 'deep-research', run: deep, policy: pipeline(breakers.get('deep'), retry(), timeout(60_000)) },
 *   { name: 'quick-search', run: quick, policy: pipeline(breakers.get('quick'), retry()) },
 * ])
 * const { value, servedBy, degraded } = await research.execute()
 */
export function fallback<T>(paths: Array<FallbackPath<T>>): Fallback<T> {
  if (!Array.isArray(paths) || paths.length === 0)
    throw new TypeError('fallback(paths) needs a non-empty array of paths');
  const names = new Set<string>();
  paths.forEach((p, i) => {
    if (typeof p !== 'object' || p === null)
      throw new TypeError(`paths[${i}] must be an object { name, run, policy? }`);
    checkOptions(`fallback paths[${i}]`, p, PATH_KEYS as OptionKeys<FallbackPath<T>>);
    checkName(`paths[${i}].name`, p.name);
    if (names.has(p.name)) throw new TypeError(`paths[${i}].name "${p.name}" is used twice`);
    names.add(p.name);
    if (typeof p.run !== 'function')
      throw new TypeError(`paths[${i}].run must be a function, got ${showValue(p.run)}`);
    if (isFallback(p.policy)) throw new TypeError(ladderIsNotAPolicy(`paths[${i}].policy`));
    if (
      p.policy !== undefined &&
      (typeof p.policy !== 'object' || p.policy === null || typeof p.policy.execute !== 'function')
    ) {
      throw new TypeError(`paths[${i}].policy must be a policy, got ${showValue(p.policy)}`);
    }
  });
  const ladder = paths.map((p, i) => ({ ...p, when: checkWhen(`paths[${i}].when`, p.when) }));
  const events = new Emitter('fallback');

  const result: Fallback<T> = {
    async execute(options?: ExecuteOptions): Promise<Served<T>> {
      if (typeof options === 'function') {
        throw new TypeError(
          'fallback(...).execute(options) takes options, not a function: each path says what to run. To run the ladder under a policy: policy.execute(() => ladder.execute())',
        );
      }
      const signal = checkSignal('signal', checkOptions('execute', options, EXECUTE_KEYS).signal);
      // The call this ladder runs in (a timeout, a caller's signal): once it is over, nobody waits
      // for an answer, so no further path may start.
      const ambient = ambientScope();
      const failures: PathFailure[] = [];
      for (let i = 0; i < ladder.length; i++) {
        const path = ladder[i]!;
        if (signal?.aborted) throw abortReason(signal);
        if (ambient?.canAbort && ambient.aborted) throw ambient.reason;
        try {
          const value = path.policy
            ? await path.policy.execute(path.run, options)
            : await start(terminal, path.run as Work<unknown>, options);
          const served: Served<T> = {
            value: value as T,
            servedBy: path.name,
            degraded: i > 0,
            failures,
          };
          if (events.wants('served'))
            events.emit('served', {
              servedBy: path.name,
              degraded: i > 0,
              failures: failures.length,
            });
          return served;
        } catch (error) {
          if (signal?.aborted) throw error;
          if (ambient?.canAbort && ambient.aborted) throw ambient.reason;
          const to = ladder[i + 1];
          // The next path takes over only the failures it accepts; others are the caller's.
          if (to !== undefined && !acceptsFailure(to.when, error)) throw error;
          failures.push({ path: path.name, error });
          if (to !== undefined && events.wants('fallback'))
            events.emit('fallback', { from: path.name, to: to.name, error });
        }
      }
      throw new AllPathsFailedError(failures);
    },
    on(event: string, listener: (e: object) => void): () => void {
      return events.on(event, listener);
    },
  };
  Object.defineProperty(result, LADDER, { value: true });
  return result;
}
