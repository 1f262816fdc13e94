import { classify } from '../classify/classify.js';
import { classifiedAs, type DeclaredClassification } from '../classify/declared.js';
import { safeRead } from '../text/safe-text.js';

// What the official SDK's errors say about where a failure happened, read structurally (the SDK
// is an optional peer: `import type` only, ARCHITECTURE.md Layout).

const MAX_DEPTH = 6;

/**
 * @internal A Streamable HTTP session the server no longer knows: the SDK's `StreamableHTTPError`
 * with code 404 (the server forgot or expired the session; the request was not processed).
 */
export function isSessionExpired(error: unknown): boolean {
  return safeRead(error, 'code') === 404 && isStreamableHttpError(error);
}

function isStreamableHttpError(error: unknown): boolean {
  const ctor = safeRead(safeRead(error, 'constructor'), 'name');
  const message = safeRead(error, 'message');
  return (
    ctor === 'StreamableHTTPError' ||
    (typeof message === 'string' && message.startsWith('Streamable HTTP error'))
  );
}

/**
 * @internal The request cannot have reached the server: the client had no connection (`Not
 * connected`, the SDK's refusal to send on a closed transport) or the connection was refused
 * (`ECONNREFUSED` anywhere on the cause chain).
 */
export function failedBeforeSending(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < MAX_DEPTH; depth++) {
    if (safeRead(current, 'code') === 'ECONNREFUSED') return true;
    if (depth === 0 && safeRead(current, 'message') === 'Not connected') return true;
    current = safeRead(current, 'cause');
  }
  return false;
}

/** JSON-RPC codes that say the request itself is wrong: sending it again gets the same answer. */
const LOGICAL_CODES = new Set([-32700, -32600, -32601, -32602]);

/**
 * @internal Tells `classify` what an SDK error means where its fields alone would not: a JSON-RPC
 * error that the request is wrong (invalid params, unknown method: logical), and a Streamable
 * HTTP error's status (it sits on `code`, where `classify` looks for a Node error code). The
 * declaration rides on the error under the `classifiedAs` symbol; nothing else is changed.
 */
export function declareSdkError(error: unknown): void {
  const code = safeRead(error, 'code');
  if (typeof code !== 'number' || typeof error !== 'object' || error === null) return;
  if (Object.hasOwn(error, classifiedAs)) return;
  let declared: DeclaredClassification | undefined;
  if (LOGICAL_CODES.has(code)) declared = { kind: 'logical', reason: 'invalid_request' };
  else if (code >= 400 && code <= 599 && isStreamableHttpError(error)) {
    const c = classify({ status: code, message: safeRead(error, 'message') });
    declared = { kind: c.kind, retryable: c.retryable, reason: c.reason, status: code };
  }
  if (declared === undefined) return;
  try {
    Object.defineProperty(error, classifiedAs, { value: declared, configurable: true });
  } catch {
    // A frozen error keeps the classification its fields give.
  }
}
