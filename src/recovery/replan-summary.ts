import type { Classification } from '../classify/classification.js';
import { classify } from '../classify/classify.js';
import { isAllPathsFailedError } from '../errors/all-paths-failed-error.js';
import { isRetriesExhaustedError } from '../errors/retries-exhausted-error.js';
import { redactText } from '../telemetry/redact-text.js';
import { safeField, safeRead, textOf } from '../text/safe-text.js';

// What each logical reason means, and what an agent can do instead, in words a model reads well.
const WHY: Readonly<Record<string, string>> = {
  context_overflow: "the request is larger than the model's context window",
  request_too_large: 'the request is too large to be accepted',
  bad_request: 'the request was rejected as invalid',
  not_found: 'what it asked for does not exist',
  unprocessable: 'the request could not be processed as given',
  client_error: 'the request was refused',
  invalid_result: 'it answered, but the answer failed validation',
  max_turns: 'the agent ran out of turns before finishing',
  max_structured_output_retries: 'the agent could not produce output in the required structure',
};

const ADVICE: Readonly<Record<string, string>> = {
  context_overflow:
    'Shorten the input before trying again: summarise earlier turns, drop tool output that is no longer needed, or split the task into smaller requests.',
  request_too_large: 'Send less in one request: split the input or summarise it.',
  bad_request:
    'Check the arguments against what the tool or API expects and change them before trying again.',
  unprocessable:
    'Check the arguments against what the tool or API expects and change them before trying again.',
  client_error: 'Change the request before trying again.',
  not_found: 'Check the name or id, or look it up first.',
  invalid_result: 'Ask differently, narrow the question, or continue with what is known.',
  max_turns: 'Break the task into smaller steps.',
  max_structured_output_retries: 'Simplify the requested structure or ask for plain text.',
};

const MESSAGE_CHARS = 240;

/**
 * The failure's own words, redacted, on one line, at most MESSAGE_CHARS characters: the API's
 * message from its error body (`{ error: { message } }`, nested once more by Anthropic) when the
 * SDK kept it, else the error's message.
 */
function quoted(error: unknown): string {
  const body = safeRead(error, 'error');
  const words =
    safeField(safeRead(body, 'error'), 'message') ?? safeField(body, 'message') ?? textOf(error);
  const text = redactText(words).replace(/\s+/g, ' ').trim();
  if (text === '') return '';
  return ` ("${text.length > MESSAGE_CHARS ? `${text.slice(0, MESSAGE_CHARS - 1)}…` : text}")`;
}

/** The innermost error a retry or a ladder wrapped (what the dependency itself said). */
function innermost(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 6; depth++) {
    if (isRetriesExhaustedError(current)) current = current.cause;
    else if (isAllPathsFailedError(current))
      current = current.failures[current.failures.length - 1]?.error;
    else break;
  }
  return current;
}

function tried(error: unknown, attempts: number): string {
  if (isAllPathsFailedError(error)) {
    const paths = error.failures.map((f) => `${f.path} (${classify(f.error).reason})`).join(', ');
    return `Tried ${error.failures.length} way(s): ${paths}.`;
  }
  if (attempts <= 1)
    return 'Tried once; not retried, because the same request would fail the same way.';
  return `Tried ${attempts} times.`;
}

/**
 * @internal A few plain sentences for the model: what failed, why, what was tried, what to do
 * instead. Redacted; bounded (the quoted message is cut at 240 characters).
 */
export function replanSummary(
  error: unknown,
  c: Classification,
  dependency: string | undefined,
  attempts: number,
): string {
  const what = dependency === undefined ? 'The call' : `The call to "${dependency}"`;
  const why = WHY[c.reason] ?? `it failed (${c.reason})`;
  const status = c.status === undefined ? '' : ` [HTTP ${c.status}]`;
  const advice = ADVICE[c.reason] ?? 'Change the approach instead of repeating the same request.';
  return `${what} failed: ${why}${status}${quoted(innermost(error))}. ${tried(error, attempts)} ${advice}`;
}
