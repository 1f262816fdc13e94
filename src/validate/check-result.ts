import type { StandardSchemaV1 } from '@standard-schema/spec';
import { InvalidResultError, type ResultIssue } from '../errors/invalid-result-error.js';
import { showValue } from '../options/validate-options.js';
import { isThenable } from '../policy/layer.js';

/** What a {@link ResultCheck} answers. */
type Verdict = boolean | string | void | undefined;

/**
 * A predicate check: `false` or a string (the reason) rejects; `true` / nothing accepts. It may
 * answer through a promise.
 *
 * @example
 * const nonEmpty: ResultCheck<{ text: string }> = (r) => r.text.trim() !== '' || 'empty answer'
 */
export type ResultCheck<T> = (value: T) => Verdict | PromiseLike<Verdict>;

/**
 * What the adapters' `validate` option accepts: any Standard Schema v1 (zod, valibot, arktype,
 * …; it may describe only the part of the value it checks) or a {@link ResultCheck} predicate.
 *
 * @example
 * const check: ResultValidator<Anthropic.Message> = z.object({ stop_reason: z.literal('end_turn') })
 */
export type ResultValidator<T> = StandardSchemaV1 | ResultCheck<T>;

const REJECTED = 'rejected by validator';

function isSchema(check: unknown): check is StandardSchemaV1 {
  return (
    typeof check === 'object' &&
    check !== null &&
    typeof (check as StandardSchemaV1)['~standard']?.validate === 'function'
  );
}

/** @internal A {@link ResultValidator} option, checked when the policy or call is set up. */
export function checkValidator<T>(name: string, value: unknown): ResultValidator<T> {
  if (typeof value === 'function' || isSchema(value)) return value as ResultValidator<T>;
  throw new TypeError(
    `${name} must be a Standard Schema (zod, valibot, arktype, …) or a predicate function, got ${showValue(value)}`,
  );
}

function issuesOfVerdict(verdict: unknown): readonly ResultIssue[] | undefined {
  if (verdict === false) return [{ message: REJECTED }];
  if (typeof verdict === 'string') return [{ message: verdict || REJECTED }];
  return undefined;
}

/**
 * @internal Checks `value`: resolves with it when the check accepts, rejects with
 * `InvalidResultError` {value, issues} when it does not. A predicate is answered synchronously
 * (no extra turn of the event loop); a schema may validate asynchronously. The value is returned as
 * it came, not a schema's transformed output.
 */
export function checkResult<T>(check: ResultValidator<T>, value: T): T | Promise<T> {
  if (typeof check === 'function') {
    const verdict = check(value);
    const settleVerdict = (v: unknown): T => {
      const issues = issuesOfVerdict(v);
      if (issues !== undefined) throw new InvalidResultError(value, issues);
      return value;
    };
    // An async predicate is awaited: a promise must never count as "accepted".
    return isThenable(verdict)
      ? Promise.resolve(verdict).then(settleVerdict)
      : settleVerdict(verdict);
  }
  const result = check['~standard'].validate(value);
  const settle = (r: StandardSchemaV1.Result<unknown>): T => {
    if (r.issues !== undefined)
      throw new InvalidResultError(value, r.issues.length > 0 ? r.issues : [{ message: REJECTED }]);
    return value;
  };
  return isThenable(result) ? Promise.resolve(result).then(settle) : settle(result);
}
