import type { ToolApprovalStatus } from 'ai';
import {
  checkFunction,
  checkOptions,
  type OptionKeys,
  showValue,
} from '../options/validate-options.js';
import type { Escalate } from '../recovery/escalate.js';
import { checkPredicate, predicateAnswer } from '../options/predicate.js';

/** The part of the AI SDK's approval request this adapter reads: which tool, with what input. */
export interface ToolApprovalRequestLike {
  toolCall: { toolName: string; input: unknown; toolCallId?: string };
}

/** Options of {@link escalationToolApproval}. */
export interface EscalationToolApprovalOptions {
  /** The high-risk tools, by name, or a test of a call. */
  tools: readonly string[] | ((toolName: string, input: unknown) => boolean);
  /**
   * Hold the step until a person decides (or the escalation expires). Default false: the call is
   * denied for now, and the model is told it waits for approval.
   */
  wait?: boolean;
  /** Decides every other tool call. Default: not applicable (the SDK runs it). */
  otherwise?: (
    request: ToolApprovalRequestLike,
  ) => ToolApprovalStatus | PromiseLike<ToolApprovalStatus>;
}

const KEYS: OptionKeys<EscalationToolApprovalOptions> = {
  tools: true,
  wait: true,
  otherwise: true,
};

/**
 * A `toolApproval` for the AI SDK (`generateText`, `streamText`, `ToolLoopAgent` in `ai` 7) that
 * sends high-risk tool calls to a person through `escalate(...).ask`: a call is `approved` only once
 * a person approved that very call (tool name and input; an approval is used once), and `denied`
 * otherwise — while pending (unless `wait`), when denied, or when it expired — with a reason the
 * model reads in its `execution-denied` result. The SDK never runs a denied call's `execute`.
 * The decision lives in the store, so it can come from `recourse escalations approve ID` on another
 * machine, and a restarted agent making the same call finds it.
 *
 * @example
 * const risky = escalate({ store: sqliteStore({ path: 'agent.db' }) })
 * await generateText({ model, tools: { transfer }, prompt, toolApproval: escalationToolApproval(risky, { tools: ['transfer'] }) })
 */
export function escalationToolApproval(
  escalation: Escalate,
  options: EscalationToolApprovalOptions,
): (request: ToolApprovalRequestLike) => Promise<ToolApprovalStatus> {
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
      `escalationToolApproval options must be an object { tools, wait?, otherwise? }, got ${showValue(options)}`,
    );
  const o = checkOptions('escalationToolApproval', options, KEYS);
  let risky: (toolName: string, input: unknown) => boolean;
  if (Array.isArray(o.tools)) {
    const names = new Set<string>(
      o.tools.map((t, i) => {
        if (typeof t !== 'string' || t === '')
          throw new TypeError(
            `tools[${i}] must be a tool name (a non-empty string), got ${showValue(t)}`,
          );
        return t;
      }),
    );
    risky = (name) => names.has(name);
  } else risky = checkPredicate('tools', o.tools);
  const otherwise =
    o.otherwise === undefined
      ? undefined
      : checkFunction<NonNullable<EscalationToolApprovalOptions['otherwise']>>(
          'otherwise',
          o.otherwise,
        );
  const wait = o.wait === true;
  return async (request) => {
    const { toolName, input } = request.toolCall;
    if (!predicateAnswer('tools', risky(toolName, input)))
      return otherwise === undefined ? 'not-applicable' : otherwise(request);
    const verdict = await escalation.ask({ action: toolName, args: input }, { wait });
    if (verdict.decision === 'approved') {
      return {
        type: 'approved',
        reason: `approved by ${verdict.record.decidedBy ?? 'a person'} (escalation ${verdict.record.id})`,
      };
    }
    return { type: 'denied', reason: verdict.message };
  };
}
