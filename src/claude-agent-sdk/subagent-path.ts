import type {
  AgentDefinition,
  Options,
  SDKResultSuccess,
  SDKUserMessage,
} from '@anthropic-ai/claude-agent-sdk';
import type { CallContext } from '../context/call-context.js';
import type { FallbackPath } from '../fallback/fallback.js';
import {
  checkClock,
  checkName,
  checkOptions,
  type OptionKeys,
  showValue,
} from '../options/validate-options.js';
import type { Policy } from '../policy/policy.js';
import { RUN_QUERY_KEYS, type RunQueryOptions, runQuery } from './run-query.js';

/**
 * SDK options that run `agent` as the main thread of a query (the `--agent` flag): its system
 * prompt, tools, model and turn limit apply. `base` (env, cwd, persistSession, …) is kept; its
 * `agents` are kept too.
 *
 * @example
 * query({ prompt, options: agentOptions('researcher', { description: 'Researches', prompt: 'You research.', model: 'sonnet' }, base) })
 */
export function agentOptions(name: string, agent: AgentDefinition, base?: Options): Options {
  checkName('name', name);
  if (typeof agent !== 'object' || agent === null)
    throw new TypeError(
      `agent must be an AgentDefinition { description, prompt, … }, got ${showValue(agent)}`,
    );
  return { ...base, agents: { ...base?.agents, [name]: agent }, agent: name };
}

/**
 * One subagent rung of a fallback ladder: see {@link subagentPath}. The `runQuery` options
 * (`idleMs`, `validate`, …) sit next to the rung's own fields.
 *
 * @example
 * const rung: SubagentPathConfig = { name: 'quick', agent: { description: 'Quick', prompt: 'Be brief.' }, prompt: task, idleMs: 10_000 }
 */
export interface SubagentPathConfig extends Omit<RunQueryOptions, 'signal'> {
  /** The path's name (`servedBy`) and the agent's name. */
  name: string;
  agent: AgentDefinition;
  /** The task, or a function of the call context that builds it. */
  prompt:
    | string
    | AsyncIterable<SDKUserMessage>
    | ((ctx: CallContext) => string | AsyncIterable<SDKUserMessage>);
  /** SDK options shared by every rung (env, cwd, persistSession, settingSources, …). */
  options?: Options;
  /** The rung's policy, e.g. `pipeline(breakers.get(name), retry(), timeout(120_000))`. */
  policy?: Policy;
}

// The rung's own fields, and every runQuery option but the signal (the path's ctx.signal is used).
const { signal: _signal, ...RUN_OPTION_KEYS } = RUN_QUERY_KEYS;
const SUBAGENT_PATH_KEYS: OptionKeys<SubagentPathConfig> = {
  name: true,
  agent: true,
  prompt: true,
  options: true,
  policy: true,
  ...RUN_OPTION_KEYS,
};

/**
 * Turns an `AgentDefinition` into a `fallback` path that runs it with `runQuery` (stall
 * detection, classified failures, no CLI left behind), cancelled by the path's `ctx.signal`.
 * A ladder of these is the subagent ladder: when the first agent stalls or fails, the next one
 * serves, and the result says `servedBy` and `degraded`.
 *
 * @example
 * const research = fallback([
 *   subagentPath({ name: 'deep', agent: deepAgent, prompt: task, options: base, idleMs: 20_000, policy: retry() }),
 *   subagentPath({ name: 'quick', agent: quickAgent, prompt: task, options: base, idleMs: 10_000 }),
 * ])
 * const { value, servedBy, degraded } = await research.execute()
 */
export function subagentPath(config: SubagentPathConfig): FallbackPath<SDKResultSuccess> {
  if (typeof config !== 'object' || config === null)
    throw new TypeError(
      `subagentPath(config) needs { name, agent, prompt, … }, got ${showValue(config)}`,
    );
  checkOptions('subagentPath', config, SUBAGENT_PATH_KEYS);
  // The runQuery options are used on every call: a bad clock must fail here, not on first use.
  if (config.clock !== undefined) checkClock('clock', config.clock);
  const { name, agent, prompt, options, policy, ...runOptions } = config;
  const sdkOptions = agentOptions(name, agent, options);
  if (
    typeof prompt !== 'string' &&
    typeof prompt !== 'function' &&
    typeof prompt?.[Symbol.asyncIterator] !== 'function'
  ) {
    throw new TypeError(
      'prompt must be a string, an AsyncIterable of user messages or a function of the call context',
    );
  }
  const path: FallbackPath<SDKResultSuccess> = {
    name,
    run: (ctx) =>
      runQuery(
        { prompt: typeof prompt === 'function' ? prompt(ctx) : prompt, options: sdkOptions },
        { ...runOptions, signal: ctx.signal },
      ),
  };
  if (policy !== undefined) path.policy = policy;
  return path;
}
