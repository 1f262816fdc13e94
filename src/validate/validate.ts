import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { Work } from '../context/call-context.js';
import type { Scope } from '../context/scope.js';
import { InvalidResultError, type ResultIssue } from '../errors/invalid-result-error.js';
import { BaseLayer, COMPOSE, type Invoke } from '../policy/layer.js';
import { showValue } from '../options/validate-options.js';
import type { EventedPolicy } from '../policy/policy.js';
import { safeField, textOf } from '../text/safe-text.js';

/** A predicate check: `false` or a string (the reason) rejects; `true` / nothing accepts. */
export type ResultCheck<T> = (value: T) => boolean | string | void | undefined;

function isSchema(check: unknown): check is StandardSchemaV1 {
  return typeof check === 'object' && check !== null && typeof (check as StandardSchemaV1)['~standard']?.validate === 'function';
}

class ValidatePolicy<T> extends BaseLayer {
  readonly #check: StandardSchemaV1<T> | ResultCheck<T>;

  constructor(check: StandardSchemaV1<T> | ResultCheck<T>) {
    super('validate');
    if (typeof check !== 'function' && !isSchema(check)) {
      throw new TypeError(`check must be a Standard Schema (zod, valibot, arktype, …) or a predicate function, got ${showValue(check)}`);
    }
    this.#check = check;
  }

  [COMPOSE](next: Invoke): Invoke {
    return async (fn: Work<unknown>, scope: Scope): Promise<unknown> => {
      const value = await next(fn, scope);
      const issues = await this.#issuesOf(value as T);
      if (issues === undefined) return value;
      if (this.wants('invalid')) this.events.emit('invalid', { reason: issues.map((i) => safeField(i, 'message') ?? textOf(i)).join('; '), value }, scope);
      throw new InvalidResultError(value, issues);
    };
  }

  async #issuesOf(value: T): Promise<readonly ResultIssue[] | undefined> {
    const check = this.#check;
    if (typeof check === 'function') {
      const verdict = check(value);
      if (verdict === false) return [{ message: 'rejected by validator' }];
      if (typeof verdict === 'string') return [{ message: verdict || 'rejected by validator' }];
      return undefined;
    }
    const result = await check['~standard'].validate(value);
    return result.issues === undefined ? undefined : result.issues;
  }
}

/**
 * Turns a result that "succeeded but is useless" into a failure: `InvalidResultError` {value,
 * issues}, which retry retries (a second try often returns a good result), the breaker counts and
 * fallback moves past. Accepts any Standard Schema v1 (zod, valibot, arktype …) or a predicate
 * returning false or a reason string. Put it innermost so every attempt is checked. The value is
 * returned as it came (a schema's transformed output is not substituted). Event: `invalid`.
 *
 * @example
 * const nonEmpty = validate((r: { text: string }) => r.text.trim() !== '' || 'empty answer')
 * await pipeline(retry(), nonEmpty).execute(ask)
 */
export function validate<T>(check: StandardSchemaV1<T> | ResultCheck<T>): EventedPolicy<'invalid'> {
  return new ValidatePolicy(check);
}
