import {
  checkInteger,
  checkMs,
  checkOneOf,
  checkOptions,
  checkString,
  type OptionKeys,
  showValue,
} from '../../options/validate-options.js';

/**
 * What one call of a chaos MCP tool does instead of its normal answer: `error`, a JSON-RPC error
 * response (-32603, a transient server failure); `is-error`, a tool result with `isError: true`;
 * `hang`, no answer ever (until the client cancels); `exit`, the server goes away mid-call (over
 * stdio the process exits; over HTTP the connection is reset and every session forgotten, as a
 * restarted server would); `ok`, the normal answer.
 *
 * @example
 * const steps: ChaosMcpStep[] = ['error', 'exit'] // the first call fails, the second kills the server, the third answers
 */
export type ChaosMcpStep = 'ok' | 'error' | 'is-error' | 'hang' | 'exit';

/** Every {@link ChaosMcpStep}, in the order the docs list them. */
export const CHAOS_MCP_STEPS: readonly ChaosMcpStep[] = ['ok', 'error', 'is-error', 'hang', 'exit'];

/**
 * The chaos MCP server's tools: `read` (`readOnlyHint`), `idempotent_write` (`idempotentHint`),
 * `write` (no annotations: MCP's default, destructive and not idempotent), `hang` (no
 * annotations, never answers), `hang_read` (`readOnlyHint`, never answers), `progress`
 * (`readOnlyHint`, progress notifications then an answer or silence, see
 * {@link ChaosMcpProgress}), `is_error` (`readOnlyHint`, always an `isError` result) and `exit`
 * (no annotations; the server goes away while it runs).
 *
 * @example
 * const tool: ChaosMcpTool = 'read'
 */
export type ChaosMcpTool =
  | 'read'
  | 'idempotent_write'
  | 'write'
  | 'hang'
  | 'hang_read'
  | 'progress'
  | 'is_error'
  | 'exit';

/** Every {@link ChaosMcpTool}. */
export const CHAOS_MCP_TOOLS: readonly ChaosMcpTool[] = [
  'read',
  'idempotent_write',
  'write',
  'hang',
  'hang_read',
  'progress',
  'is_error',
  'exit',
];

/**
 * How the `progress` tool behaves: a progress notification every `everyMs` (when the call asked
 * for progress with a `progressToken`) for `forMs`, then its answer (`after: 'answer'`) or
 * silence until cancelled (`after: 'hang'`). Defaults: everyMs 300, forMs 2500, after 'answer'.
 *
 * @example
 * const progress: ChaosMcpProgress = { everyMs: 300, forMs: 2_500, after: 'hang' }
 */
export interface ChaosMcpProgress {
  everyMs?: number;
  forMs?: number;
  after?: 'answer' | 'hang';
}

/** Options every chaos MCP server takes, over stdio or Streamable HTTP. */
export interface ChaosMcpOptions {
  /**
   * Per tool, what its first calls do, in order (a call past the list answers normally). Calls
   * are counted per tool across restarts of a server that shares its `log` file, so
   * `{ read: ['error', 'exit'] }` fails the first call, kills the server on the second and
   * answers the third, even in the process started after the exit. Default: none.
   */
  faults?: Partial<Record<ChaosMcpTool, readonly ChaosMcpStep[]>>;
  /** The `progress` tool's behaviour (see {@link ChaosMcpProgress}). */
  progress?: ChaosMcpProgress;
  /** Appends one JSON line per record (see {@link ChaosMcpRecord}) to this file, and counts the calls already in it. */
  log?: string;
  /** Sees each record as it is made. */
  onRecord?: (record: ChaosMcpRecord) => void;
}

/**
 * What a chaos MCP server saw: a `call` of `tool` (its `n`th, counting from 1, and the `step` it
 * got), its `answered` (the server sent the call's result or error: `n` as its `call`), a `cancelled` notification for a call of `tool` (`reason` as the client sent it), or a
 * `session_forgotten` (HTTP: `session` is the id the server no longer knows). `at` is epoch ms,
 * `pid` the server's process.
 *
 * @example
 * const r: ChaosMcpRecord = { type: 'call', tool: 'read', n: 1, step: 'error', at: 1767225600000, pid: 41 }
 */
export type ChaosMcpRecord =
  | { type: 'call'; tool: string; n: number; step: ChaosMcpStep; at: number; pid: number }
  | { type: 'answered'; tool: string; n: number; at: number; pid: number }
  | { type: 'cancelled'; tool: string; reason: string; at: number; pid: number }
  | { type: 'session_forgotten'; session: string; at: number; pid: number };

const OPTION_KEYS: OptionKeys<ChaosMcpOptions> = {
  faults: true,
  progress: true,
  log: true,
  onRecord: true,
};
const PROGRESS_KEYS: OptionKeys<ChaosMcpProgress> = { everyMs: true, forMs: true, after: true };

/** @internal The options, checked, with their defaults. */
export interface ChaosMcpSettings {
  readonly faults: ReadonlyMap<string, readonly ChaosMcpStep[]>;
  readonly progress: Required<ChaosMcpProgress>;
  readonly log: string | undefined;
  readonly onRecord: ((record: ChaosMcpRecord) => void) | undefined;
}

/** @internal Checks the options shared by both transports (`owner` names the function in errors). */
export function checkChaosMcpOptions(
  owner: string,
  options: ChaosMcpOptions | undefined,
  extraKeys: readonly string[] = [],
): ChaosMcpSettings {
  const keys: Record<string, true> = { ...OPTION_KEYS };
  for (const k of extraKeys) keys[k] = true;
  const o = checkOptions(owner, options, keys as OptionKeys<ChaosMcpOptions>);
  const faults = new Map<string, readonly ChaosMcpStep[]>();
  if (o.faults !== undefined) {
    if (typeof o.faults !== 'object' || o.faults === null || Array.isArray(o.faults))
      throw new TypeError(
        `faults must be an object { tool: [step, …] }, got ${showValue(o.faults)}`,
      );
    for (const [tool, steps] of Object.entries(o.faults)) {
      checkOneOf('faults tool', tool, CHAOS_MCP_TOOLS);
      if (!Array.isArray(steps))
        throw new TypeError(`faults.${tool} must be an array of steps, got ${showValue(steps)}`);
      faults.set(
        tool,
        steps.map((s: unknown) => checkOneOf(`faults.${tool} step`, s, CHAOS_MCP_STEPS)),
      );
    }
  }
  const p =
    o.progress === undefined ? {} : checkOptions(`${owner} progress`, o.progress, PROGRESS_KEYS);
  const progress: Required<ChaosMcpProgress> = {
    everyMs: p.everyMs === undefined ? 300 : checkMs('progress.everyMs', p.everyMs, 1),
    forMs: p.forMs === undefined ? 2_500 : checkMs('progress.forMs', p.forMs, 0),
    after:
      p.after === undefined ? 'answer' : checkOneOf('progress.after', p.after, ['answer', 'hang']),
  };
  if (o.onRecord !== undefined && typeof o.onRecord !== 'function')
    throw new TypeError(`onRecord must be a function, got ${showValue(o.onRecord)}`);
  return {
    faults,
    progress,
    log: o.log === undefined ? undefined : checkString('log', o.log),
    onRecord: o.onRecord,
  };
}

/**
 * @internal Parses a `--fault TOOL=STEP,STEP` value of `recourse chaos mcp` into a tool and its
 * steps; throws a RangeError saying what is wrong.
 */
export function parseFaultFlag(raw: string): [ChaosMcpTool, ChaosMcpStep[]] {
  const m = /^([a-z_]+)=(.+)$/.exec(raw.trim());
  if (m === null) throw new RangeError('must be TOOL=STEP[,STEP…], e.g. read=error,exit');
  const tool = m[1] as ChaosMcpTool;
  if (!CHAOS_MCP_TOOLS.includes(tool))
    throw new RangeError(`unknown tool ${tool}: one of ${CHAOS_MCP_TOOLS.join(', ')}`);
  const steps = m[2]!.split(',').map((s) => s.trim());
  for (const s of steps)
    if (!(CHAOS_MCP_STEPS as readonly string[]).includes(s))
      throw new RangeError(`unknown step ${s}: one of ${CHAOS_MCP_STEPS.join(', ')}`);
  return [tool, steps as ChaosMcpStep[]];
}

/** @internal A whole number >= 1 for the HTTP `forgetSessionsAfter` option. */
export function checkForgetAfter(value: unknown): number | undefined {
  return value === undefined ? undefined : checkInteger('forgetSessionsAfter', value, 1);
}
