import type { Policy } from '../policy/policy.js';
import { passingControlFlow, releasingControlFlow } from './control-flow.js';

/** @internal A tool as `wrapToolCall` sees it: its name and metadata (MCP-style hints). */
interface ToolLike {
  readonly name?: unknown;
  readonly metadata?: Record<string, unknown> | undefined;
}

const hinted = (hints: unknown): boolean => {
  if (typeof hints !== 'object' || hints === null) return false;
  const h = hints as { readOnlyHint?: unknown; idempotentHint?: unknown };
  return h.readOnlyHint === true || h.idempotentHint === true;
};

/**
 * @internal True when running `tool` again cannot repeat a side effect: its metadata says it only
 * reads or is idempotent (`readOnlyHint` / `idempotentHint`, at the top or under `annotations`,
 * as MCP tools say it), or the caller named it so. Any other tool may have acted before it
 * failed, so it runs once.
 */
export function isRetrySafe(tool: unknown, name: string, named: ReadonlySet<string>): boolean {
  if (named.has(name)) return true;
  const metadata = (tool as ToolLike | undefined)?.metadata;
  return hinted(metadata) || hinted(metadata?.annotations);
}

/**
 * @internal One tool call: under `policy` when the tool is safe to run again, else once, as it is.
 * A control-flow signal (`interrupt()` in the tool) leaves unchanged and is never retried.
 */
export function runToolCall<T>(
  policy: Policy | undefined,
  safe: boolean,
  signal: AbortSignal | undefined,
  run: () => Promise<T>,
): Promise<T> {
  if (policy === undefined || !safe) return run();
  return releasingControlFlow(() =>
    policy.execute(() => passingControlFlow(run), signal === undefined ? undefined : { signal }),
  );
}
