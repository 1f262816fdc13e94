import { hasErrorName, RecourseError } from '../errors/recourse-error.js';

/**
 * A scenario (or its file) is not valid. The message names the offending field path, e.g.
 * `rules[1].fault.status must be an integer 100-599, got "abc"`; `field` holds that path alone
 * (empty when the whole document is wrong).
 *
 * @example
 * try { parseScenario(JSON.parse(text)) } catch (e) { if (isChaosScenarioError(e)) console.error(e.field) }
 */
export class ChaosScenarioError extends RecourseError {
  override name = 'ChaosScenarioError' as const;
  /** The field path the message is about, like `rules[0].fault.kind`. */
  readonly field: string;
  constructor(field: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.field = field;
  }
}

/** Cross-realm guard for {@link ChaosScenarioError}. @example if (isChaosScenarioError(e)) process.exitCode = 2 */
export function isChaosScenarioError(error: unknown): error is ChaosScenarioError {
  return hasErrorName(error, 'ChaosScenarioError');
}
