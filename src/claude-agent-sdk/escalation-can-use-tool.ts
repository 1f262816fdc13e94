import type { CanUseTool, PermissionResult } from '@anthropic-ai/claude-agent-sdk';
import {
  checkFunction,
  checkOptions,
  type OptionKeys,
  showValue,
} from '../options/validate-options.js';
import type { Escalate } from '../recovery/escalate.js';
import { checkPredicate, predicateAnswer } from '../options/predicate.js';

/** Options of {@link escalationCanUseTool}. */
export interface EscalationCanUseToolOptions {
  /** The high-risk tools (names as the CLI gives them: `Bash`, `mcp__bank__transfer`), or a test of a call. */
  tools: readonly string[] | ((toolName: string, input: Record<string, unknown>) => boolean);
  /**
   * Keep the agent waiting until a person decides (or the escalation expires). Default false: the
   * call is refused for now, and the model is told it waits for approval.
   */
  wait?: boolean;
  /** Decides every other tool call. Default: allowed. */
  otherwise?: CanUseTool;
}

const KEYS: OptionKeys<EscalationCanUseToolOptions> = { tools: true, wait: true, otherwise: true };

/**
 * A `canUseTool` for the Claude Agent SDK's `query()` that sends high-risk tool calls to a person
 * through `escalate(...).ask`: a call runs only once a person approved that very call (tool name
 * and input; an approval is used once), a denied or expired one is refused with a message for the
 * model, and a pending one is refused for now (or awaited, with `wait`). The escalation lives in
 * the store, so the approval can come from `recourse escalations approve ID` on another machine,
 * and a restarted agent that makes the same call finds it. Other tools go to `otherwise` (default:
 * allowed).
 *
 * @example
 * const risky = escalate({ store: sqliteStore({ path: 'agent.db' }), deciders: ['alice'] })
 * const options = { mcpServers: { bank }, canUseTool: escalationCanUseTool(risky, { tools: ['mcp__bank__transfer'] }) }
 * for await (const m of query({ prompt, options })) …
 */
export function escalationCanUseTool(
  escalation: Escalate,
  options: EscalationCanUseToolOptions,
): CanUseTool {
  if (
    typeof escalation !== 'object' ||
    escalation === null ||
    typeof (escalation as Partial<Escalate>).ask !== 'function'
  ) {
    throw new TypeError(
      `escalation must be an escalate({ store }) policy, got ${showValue(escalation)}`,
    );
  }
  if (typeof options !== 'object' || options === null)
    throw new TypeError(
      `escalationCanUseTool options must be an object { tools, wait?, otherwise? }, got ${showValue(options)}`,
    );
  const o = checkOptions('escalationCanUseTool', options, KEYS);
  const tools = o.tools;
  let risky: (toolName: string, input: Record<string, unknown>) => boolean;
  if (Array.isArray(tools)) {
    const names = new Set<string>(
      tools.map((t, i) => (typeof t === 'string' && t !== '' ? t : badTool(i, t))),
    );
    risky = (name) => names.has(name);
  } else risky = checkPredicate('tools', tools);
  const otherwise =
    o.otherwise === undefined ? undefined : checkFunction<CanUseTool>('otherwise', o.otherwise);
  const wait = o.wait === true;
  return async (toolName, input, context): Promise<PermissionResult | null> => {
    if (!predicateAnswer('tools', risky(toolName, input)))
      return otherwise === undefined
        ? { behavior: 'allow', updatedInput: input }
        : otherwise(toolName, input, context);
    const verdict = await escalation.ask(
      { action: toolName, args: input },
      { wait, signal: context.signal },
    );
    if (verdict.decision === 'approved') return { behavior: 'allow', updatedInput: input };
    return { behavior: 'deny', message: verdict.message };
  };
}

function badTool(i: number, value: unknown): never {
  throw new TypeError(
    `tools[${i}] must be a tool name (a non-empty string), got ${showValue(value)}`,
  );
}
