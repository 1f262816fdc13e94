import type { Attributes, AttributeValue } from '@opentelemetry/api';
import type { RecourseEvent } from '../events/recourse-event.js';
import { summarizeError } from '../telemetry/error-summary.js';
import { redactText } from '../telemetry/redact.js';

function snake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** @internal `exception.*` and `recourse.error.*` attributes of an error; redacted, never the stack. */
export function errorAttributes(error: unknown): Attributes {
  const s = summarizeError(error);
  const out: Attributes = {
    'exception.type': s.type,
    'exception.message': s.message,
    'recourse.error.kind': s.kind,
    'recourse.error.reason': s.reason,
    'recourse.error.retryable': s.retryable,
  };
  if (s.status !== undefined) out['recourse.error.status'] = s.status;
  if (s.code !== undefined) out['recourse.error.code'] = s.code;
  return out;
}

const SKIP = new Set(['type', 'policy', 'name', 'at', 'error', 'value']);

/** @internal Span-event attributes of a recourse event: its scalar fields as `recourse.<snake_case>`. */
export function eventAttributes(event: RecourseEvent, dependency: string | undefined): Attributes {
  const out: Attributes = { 'recourse.policy': event.policy };
  if (dependency !== undefined) out['recourse.dependency'] = dependency;
  for (const key of Object.keys(event)) {
    if (SKIP.has(key)) continue;
    const v = event[key];
    let value: AttributeValue | undefined;
    if (typeof v === 'string') value = redactText(v);
    else if (typeof v === 'number' || typeof v === 'boolean') value = v;
    if (value !== undefined) out[`recourse.${snake(key)}`] = value;
  }
  if (event.error !== undefined) Object.assign(out, errorAttributes(event.error));
  return out;
}
