import { checkFunction } from './validate-options.js';

const noop = (): void => {};

/** The constructors of functions that always return a promise (`async` functions and generators). */
const ASYNC_KINDS = new Set(['AsyncFunction', 'AsyncGeneratorFunction']);

function isThenable(value: unknown): value is PromiseLike<unknown> {
  if ((typeof value !== 'object' || value === null) && typeof value !== 'function') return false;
  try {
    return typeof (value as PromiseLike<unknown>).then === 'function';
  } catch {
    return false; // a hostile proxy is no promise
  }
}

function refuse(name: string, what: string): TypeError {
  return new TypeError(
    `${name} must answer synchronously with a boolean, got ${what}: a promise would count as true for every call (decide from the error and its classification, without awaiting)`,
  );
}

/**
 * @internal A predicate option (`retryOn`, `countsAsFailure`, `isProgress`, `when`, a `tools`
 * test): a function that answers at once with a boolean. An `async` function is refused when the
 * option is checked (ARCHITECTURE.md §api.options); its promise would be truthy and say yes to
 * everything.
 *
 * @example
 * this.#retryOn = o.retryOn === undefined ? undefined : checkPredicate('retryOn', o.retryOn)
 */
export function checkPredicate<F>(name: string, value: unknown): F {
  const fn = checkFunction<F>(name, value);
  let kind: unknown;
  try {
    kind = (fn as { constructor?: { name?: unknown } }).constructor?.name;
  } catch {
    kind = undefined;
  }
  if (typeof kind === 'string' && ASYNC_KINDS.has(kind)) throw refuse(name, 'an async function');
  return fn;
}

/**
 * @internal What a predicate option answered, as a boolean. A plain function that returned a
 * promise (or another thenable) is refused with a TypeError naming the option, and that promise is
 * handled, so its own rejection is never unhandled. Any other value counts by its truthiness, as
 * before. The one rule for every predicate option (see {@link checkPredicate}).
 *
 * @example
 * if (!predicateAnswer('retryOn', this.#retryOn(error, c))) throw error
 */
export function predicateAnswer(name: string, answer: unknown): boolean {
  if (typeof answer === 'boolean') return answer;
  if (isThenable(answer)) {
    Promise.resolve(answer).then(noop, noop);
    throw refuse(name, 'a promise');
  }
  return Boolean(answer);
}
