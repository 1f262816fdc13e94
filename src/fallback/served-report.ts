import { classify } from '../classify/classify.js';
import type { PathFailure } from '../errors/all-paths-failed-error.js';
import { errorText } from '../text/safe-text.js';

/**
 * @internal Which path served a ladder's call and what failed before it, as plain JSON: the
 * report each model adapter writes on its answers (the AI SDK's `providerMetadata`, the Agents
 * SDK's `providerData`, LangChain's `response_metadata`), under its own public type name.
 *
 * @example
 * servedReport('fallback', true, served.failures) // { servedBy: 'fallback', degraded: true, failures: [{ path, error, kind, reason, status }] }
 */
export function servedReport(
  servedBy: string,
  degraded: boolean,
  failures: readonly PathFailure[],
): {
  servedBy: string;
  degraded: boolean;
  failures: Array<{ path: string; error: string; kind: string; reason: string; status?: number }>;
} {
  return {
    servedBy,
    degraded,
    failures: failures.map(({ path, error }) => {
      const c = classify(error);
      return {
        path,
        error: errorText(error),
        kind: c.kind,
        reason: c.reason,
        ...(c.status === undefined ? {} : { status: c.status }),
      };
    }),
  };
}
