import type { FailureKind } from '../classify/classification.js';
import { classify } from '../classify/classify.js';
import { textOf, typeName } from '../text/safe-text.js';
import { redactText } from './redact.js';

/** An error as sinks report it: never its headers, body or stack, and its message redacted. */
export interface ErrorSummary {
  /** The error's `name` (`RateLimitError`, `TimeoutError`, …), else its constructor's, else the JS type. */
  type: string;
  message: string;
  kind: FailureKind;
  /** The classification reason: `rate_limited`, `overloaded`, `context_overflow`, … */
  reason: string;
  retryable: boolean;
  status?: number;
  code?: string;
}

const MAX_MESSAGE = 1000;

/** @internal A readable type name for any thrown value, redacted (a name is text like any other); never throws. */
export function errorType(error: unknown): string {
  return redactText(typeName(error));
}

/** @internal The message of any thrown value, redacted and cut to a sane length; never throws. */
export function errorMessage(error: unknown): string {
  let message = textOf(error);
  if (message.length > MAX_MESSAGE) message = `${message.slice(0, MAX_MESSAGE)}…`;
  return redactText(message);
}

/**
 * Summarises an error for a log line or a span: type, redacted message and its classification.
 *
 * @example
 * summarizeError(Object.assign(new Error('overloaded'), { status: 529 }))
 * // { type: 'Error', message: 'overloaded', kind: 'transient', reason: 'overloaded', retryable: true, status: 529 }
 */
export function summarizeError(error: unknown): ErrorSummary {
  const c = classify(error);
  const summary: ErrorSummary = {
    type: errorType(error),
    message: errorMessage(error),
    kind: c.kind,
    reason: c.reason,
    retryable: c.retryable,
  };
  if (c.status !== undefined) summary.status = c.status;
  if (c.code !== undefined) summary.code = c.code;
  return summary;
}
