import type { Work } from '../context/call-context.js';
import type { Scope } from '../context/scope.js';
import { isInvalidResultError } from '../errors/invalid-result-error.js';
import { BaseLayer, COMPOSE, type Invoke } from '../policy/layer.js';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { ResultPolicy } from '../policy/policy.js';
import { safeField, textOf } from '../text/safe-text.js';
import {
  checkResult,
  checkValidator,
  type ResultCheck,
  type ResultValidator,
} from './check-result.js';

class ValidatePolicy<T> extends BaseLayer {
  readonly #check: ResultValidator<T>;

  constructor(check: ResultValidator<T>) {
    super('validate');
    this.#check = checkValidator('check', check);
  }

  [COMPOSE](next: Invoke): Invoke {
    return async (fn: Work<unknown>, scope: Scope): Promise<unknown> => {
      const value = await next(fn, scope);
      try {
        return await checkResult(this.#check, value as T);
      } catch (error) {
        if (isInvalidResultError(error) && this.wants('invalid')) {
          this.events.emit(
            'invalid',
            {
              reason: error.issues.map((i) => safeField(i, 'message') ?? textOf(i)).join('; '),
              value,
            },
            scope,
          );
        }
        throw error;
      }
    };
  }
}

/**
 * Turns a result that "succeeded but is useless" into a failure: `InvalidResultError` {value,
 * issues}, which retry retries (a second try often returns a good result), the breaker counts and
 * fallback moves past. Accepts any Standard Schema v1 (zod, valibot, arktype …) or a predicate
 * returning false or a reason string (or a promise of one). Put it innermost so every attempt is
 * checked. The value is returned as it came (a schema's transformed output is not substituted).
 * Typed: the policy, and any `pipeline` holding it, only accepts work whose result is the checked
 * type (a schema's input type, a predicate's parameter). Event: `invalid`.
 *
 * @example
 * const nonEmpty = validate((r: { text: string }) => r.text.trim() !== '' || 'empty answer')
 * await pipeline(retry(), nonEmpty).execute(ask)   // ask must return a { text: string }
 */
export function validate<S extends StandardSchemaV1>(
  schema: S,
): ResultPolicy<StandardSchemaV1.InferInput<S>, 'invalid'>;
export function validate<T>(check: ResultCheck<T>): ResultPolicy<T, 'invalid'>;
export function validate<T>(check: StandardSchemaV1 | ResultCheck<T>): ResultPolicy<T, 'invalid'> {
  // ValidatePolicy runs any work; ResultPolicy narrows what callers may pass, at compile time only.
  return new ValidatePolicy(check) as unknown as ResultPolicy<T, 'invalid'>;
}
