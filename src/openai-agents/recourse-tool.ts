import type { FunctionTool } from '@openai/agents';
import type { IdempotencyLedger } from '../idempotency/idempotency-ledger.js';
import {
  checkFunction,
  checkOptions,
  type OptionKeys,
  showValue,
} from '../options/validate-options.js';
import type { Escalate } from '../recovery/escalate.js';

/**
 * Options of {@link recourseTool}.
 *
 * @example
 * const o: RecourseToolOptions = { ledger: new IdempotencyLedger(store), escalation: escalate({ store }) }
 */
export interface RecourseToolOptions {
  /**
   * Runs each call once per key: a call made again with the same key (a run resumed from its
   * state after an interruption, a turn sent again) gets the recorded result, and the side effect
   * does not happen twice. Default: none.
   */
  ledger?: IdempotencyLedger;
  /**
   * The ledger key of a call, from its raw JSON input and the model's call id. Default:
   * `tool name + call id` (the input when the SDK gives no call id).
   */
  key?: (input: string, callId: string | undefined) => string;
  /**
   * Sends every call of the tool to a person: the SDK's `needsApproval` answers "needs approval"
   * (the run stops with the call in `result.interruptions`) until a person approved that very
   * call (tool name and input) in the escalation store (`recourse escalations approve ID`); an
   * approval is used once. The SDK's own `state.approve(item)` works as before. Default: none.
   */
  escalation?: Escalate;
}

const KEYS: OptionKeys<RecourseToolOptions> = { ledger: true, key: true, escalation: true };

function parsed(input: unknown): unknown {
  if (typeof input !== 'string') return input;
  try {
    return JSON.parse(input);
  } catch {
    return input;
  }
}

/**
 * A function tool of the Agents SDK (`tool({ … })`) under recourse: its calls run through an
 * idempotency `ledger` (once per key), and with `escalation` each call waits for a person
 * through the SDK's approvals (interruptions) and recourse's escalation store, which a restarted
 * process or another machine shares. The tool's name, schema, error function and timeout stay.
 *
 * @example
 * const transfer = recourseTool(tool({ name: 'transfer', parameters, execute }), {
 *   ledger: new IdempotencyLedger(store),
 *   escalation: escalate({ store }),
 * })
 * const agent = new Agent({ name: 'bank', tools: [transfer] })
 */
// biome-ignore lint/suspicious/noExplicitAny: any tool, whatever its context, parameters and result
export function recourseTool<T extends FunctionTool<any, any, any>>(
  tool: T,
  options: RecourseToolOptions,
): T {
  const t = tool as Partial<T> | null;
  if (
    typeof t !== 'object' ||
    t === null ||
    t.type !== 'function' ||
    typeof t.invoke !== 'function' ||
    typeof t.name !== 'string'
  ) {
    throw new TypeError(
      `tool must be an Agents SDK function tool (tool({ name, parameters, execute })), got ${showValue(tool)}`,
    );
  }
  if (typeof options !== 'object' || options === null)
    throw new TypeError(
      `recourseTool options must be an object { ledger?, key?, escalation? }, got ${showValue(options)}`,
    );
  const o = checkOptions('recourseTool', options, KEYS);
  const ledger = o.ledger;
  if (ledger !== undefined && typeof (ledger as Partial<IdempotencyLedger>).run !== 'function')
    throw new TypeError(`ledger must be an IdempotencyLedger, got ${showValue(ledger)}`);
  const escalation = o.escalation;
  if (escalation !== undefined && typeof (escalation as Partial<Escalate>).ask !== 'function')
    throw new TypeError(
      `escalation must be an escalate({ store }) policy, got ${showValue(escalation)}`,
    );
  const keyOf =
    o.key === undefined
      ? (input: string, callId: string | undefined) => `${tool.name}:${callId ?? input}`
      : checkFunction<(input: string, callId: string | undefined) => string>('key', o.key);
  const invoke = tool.invoke.bind(tool) as (...args: Parameters<T['invoke']>) => Promise<unknown>;
  const needsApproval = tool.needsApproval.bind(tool);
  return {
    ...(tool as T),
    invoke:
      ledger === undefined
        ? invoke
        : (...args: Parameters<T['invoke']>) =>
            ledger.run(keyOf(args[1], args[2]?.toolCall?.callId), () => invoke(...args)),
    needsApproval:
      escalation === undefined
        ? needsApproval
        : async (_runContext: unknown, input: unknown) => {
            const verdict = await escalation.ask(
              { action: tool.name, args: parsed(input) },
              { wait: false },
            );
            return verdict.decision !== 'approved';
          },
  };
}
