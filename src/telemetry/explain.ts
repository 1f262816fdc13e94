import { classify } from '../classify/classify.js';
import { safeRead, textOf } from '../text/safe-text.js';
import { errorMessage, errorType } from './error-summary.js';
import { redact } from './redact.js';

/** One error in an explained causal chain (see {@link explainJSON}). */
export interface ExplainedError {
  /** How the parent reached it: `attempt 2`, `path "quick-search"`, `cause`, `compensation "refund"`, … */
  label?: string;
  type: string;
  message: string;
  /** The classification of errors that are not recourse's own. */
  kind?: string;
  reason?: string;
  status?: number;
  code?: string;
  /** Known fields of recourse errors and sagas: attempts, reason, phase, timeoutMs, breaker, failedStep, compensated, … */
  details?: Record<string, unknown>;
  /** `InvalidResultError` and schema issues. */
  issues?: Array<{ message: string; path?: string }>;
  children: ExplainedError[];
}

const MAX_DEPTH = 12;
const MAX_CHILDREN = 50;
// Fields shown in a node's details when present (recourse errors, SagaFailedError, Node errors).
const DETAIL_FIELDS = [
  'attempts',
  'reason',
  'sagaId',
  'phase',
  'limitMs',
  'items',
  'timeoutMs',
  'breaker',
  'state',
  'retryAfterMs',
  'failedStep',
  'compensated',
];

type Bag = Record<string, unknown>;

function bag(value: unknown): Bag | undefined {
  return typeof value === 'object' && value !== null ? (value as Bag) : undefined;
}

const read: (value: unknown, key: string) => unknown = safeRead;

/** The first entries of `value` when it is an array; undefined (not a throw) for anything else, a revoked Proxy included. */
function list(value: unknown): unknown[] | undefined {
  try {
    return Array.isArray(value) ? Array.prototype.slice.call(value, 0, MAX_CHILDREN) : undefined;
  } catch {
    return undefined;
  }
}

/** `{ error }` entries of failure lists, but not an Error that happens to have an `error` field. */
function wrapsError(value: Bag): boolean {
  try {
    return 'error' in value && !(value instanceof Error);
  } catch {
    return false;
  }
}

function isRecourseName(type: string): boolean {
  return /^(RetriesExhausted|AllPathsFailed|SagaFailed|CircuitOpen|Timeout|Stall|InvalidResult|CheckpointCorrupt|Recourse)Error$/.test(
    type,
  );
}

function issuePath(path: unknown): string | undefined {
  const parts = list(path);
  if (parts === undefined || parts.length === 0) return undefined;
  return parts.map((p) => textOf(read(p, 'key') ?? p)).join('.');
}

/** The labelled children of one error: attempts, paths, compensations, aggregated errors, cause. */
function childrenOf(error: Bag, type: string): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  const errors = list(read(error, 'errors'));
  if (errors !== undefined) {
    const label = type === 'RetriesExhaustedError' ? 'attempt' : 'error';
    errors.forEach((e, i) => {
      out.push([`${label} ${i + 1}`, e]);
    });
  }
  const failures = list(read(error, 'failures'));
  if (failures !== undefined) {
    failures.forEach((f, i) => {
      const b = bag(f);
      const path = read(b, 'path');
      if (b !== undefined && wrapsError(b))
        out.push([
          typeof path === 'string' ? `path "${path}"` : `failure ${i + 1}`,
          read(b, 'error'),
        ]);
      else out.push([`failure ${i + 1}`, f]);
    });
  }
  const compensation = list(read(error, 'compensationErrors'));
  if (compensation !== undefined) {
    compensation.forEach((c, i) => {
      const b = bag(c);
      const step = read(b, 'step') ?? read(b, 'name');
      if (b !== undefined && wrapsError(b))
        out.push([
          typeof step === 'string' ? `compensation "${step}"` : `compensation ${i + 1}`,
          read(b, 'error'),
        ]);
      else out.push([`compensation ${i + 1}`, c]);
    });
  }
  const cause = read(error, 'cause');
  // RetriesExhaustedError and AllPathsFailedError keep their last failure as `cause` too: once is enough.
  if (cause !== undefined && !out.some(([, e]) => e === cause))
    out.push([type === 'SagaFailedError' ? 'failed step' : 'cause', cause]);
  return out;
}

function detailsOf(error: Bag): Record<string, unknown> | undefined {
  let details: Record<string, unknown> | undefined;
  for (const key of DETAIL_FIELDS) {
    let v = read(error, key);
    if (
      v === undefined ||
      typeof v === 'function' ||
      (typeof v === 'object' && v !== null && list(v) === undefined)
    )
      continue;
    // Times are whole milliseconds: `retryAfterMs 29999.161192` is noise to a reader.
    if (typeof v === 'number' && key.endsWith('Ms') && Number.isFinite(v)) v = Math.round(v);
    details ??= {};
    details[key] = redact(v);
  }
  return details;
}

function node(
  value: unknown,
  label: string | undefined,
  depth: number,
  seen: Set<object>,
): ExplainedError {
  const type = errorType(value);
  const out: Omit<ExplainedError, 'children'> = {
    ...(label === undefined ? {} : { label }),
    type,
    message: errorMessage(value),
  };
  try {
    return walkNode(value, out, depth, seen);
  } catch {
    // explain() runs in catch blocks and error handlers: a value hostile in a way not foreseen
    // below still gets its line, without details or children.
    return { ...out, children: [] };
  }
}

function walkNode(
  value: unknown,
  out: Omit<ExplainedError, 'children'>,
  depth: number,
  seen: Set<object>,
): ExplainedError {
  const type = out.type;
  const children: ExplainedError[] = [];
  const error = bag(value);
  if (error === undefined) return { ...out, children };
  if (seen.has(error)) return { ...out, message: `(circular reference) ${out.message}`, children };
  if (!isRecourseName(type)) {
    const c = classify(value);
    out.kind = c.kind;
    out.reason = c.reason;
    if (c.status !== undefined) out.status = c.status;
    if (c.code !== undefined) out.code = c.code;
  }
  const details = detailsOf(error);
  if (details !== undefined) out.details = details;
  const issues = list(read(error, 'issues'));
  if (issues !== undefined && issues.length > 0) {
    out.issues = issues.map((i) => {
      const path = issuePath(read(i, 'path'));
      return {
        message: errorMessage(read(i, 'message') ?? i),
        ...(path === undefined ? {} : { path }),
      };
    });
  }
  if (depth < MAX_DEPTH) {
    seen.add(error);
    for (const [childLabel, child] of childrenOf(error, type).slice(0, MAX_CHILDREN))
      children.push(node(child, childLabel, depth + 1, seen));
    seen.delete(error);
  }
  return { ...out, children };
}

/**
 * The causal chain of `error` as a JSON tree: each node has the error's type, redacted message,
 * classification (for errors that are not recourse's own), known details, and labelled children —
 * `attempt n` for a `RetriesExhaustedError`, `path "name"` for an `AllPathsFailedError`, `failed
 * step` and `compensation "step"` for a `SagaFailedError`, `error n` for an `AggregateError`, and
 * `cause` all the way down. Errors are recognised by name and fields, so errors of other packages
 * and realms work too. Cycles and depth (12) are cut.
 *
 * @example
 * const tree = explainJSON(error)
 * tree.children.map((c) => c.label) // ['attempt 1', 'attempt 2', 'attempt 3']
 */
export function explainJSON(error: unknown): ExplainedError {
  return node(error, undefined, 0, new Set());
}

function annotations(n: ExplainedError): string {
  const parts: string[] = [];
  if (n.kind !== undefined) parts.push(`${n.kind}: ${n.reason ?? ''}`.trim());
  if (n.status !== undefined) parts.push(`status ${n.status}`);
  if (n.code !== undefined) parts.push(`code ${n.code}`);
  for (const [k, v] of Object.entries(n.details ?? {}))
    parts.push(`${k} ${Array.isArray(v) ? `[${v.map(textOf).join(', ')}]` : textOf(v)}`);
  return parts.length === 0 ? '' : `  [${parts.join(', ')}]`;
}

function render(n: ExplainedError, prefix: string, lines: string[]): void {
  const items: Array<{ text: string; child?: ExplainedError }> = [
    ...(n.issues ?? []).map((i) => ({
      text: `issue: ${i.message}${i.path === undefined ? '' : ` (at ${i.path})`}`,
    })),
    ...n.children.map((c) => ({ text: '', child: c })),
  ];
  items.forEach((item, i) => {
    const last = i === items.length - 1;
    const branch = last ? '└─ ' : '├─ ';
    const child = item.child;
    if (child === undefined) {
      lines.push(`${prefix}${branch}${item.text}`);
      return;
    }
    lines.push(
      `${prefix}${branch}${child.label === undefined ? '' : `${child.label}: `}${child.type}: ${child.message}${annotations(child)}`,
    );
    render(child, `${prefix}${last ? '   ' : '│  '}`, lines);
  });
}

/**
 * The causal chain of `error` as an indented text tree (see {@link explainJSON} for what is
 * walked). Messages are redacted.
 *
 * @example
 * console.error(explain(error))
 * // AllPathsFailedError: all 2 path(s) failed (…)
 * // ├─ path "deep-research": RetriesExhaustedError: gave up after 2 attempt(s): overloaded  [attempts 2, reason attempts]
 * // │  ├─ attempt 1: APIError: overloaded  [transient: overloaded, status 529]
 * // │  └─ attempt 2: APIError: overloaded  [transient: overloaded, status 529]
 * // └─ path "quick-search": CircuitOpenError: circuit "quick" is open; next probe in 30000 ms  [breaker quick, state open, retryAfterMs 30000]
 */
export function explain(error: unknown): string {
  return explainText(explainJSON(error));
}

/**
 * @internal An {@link explainJSON} tree as the indented text {@link explain} prints (for trees read
 * back from a log, as `recourse report` does).
 */
export function explainText(root: ExplainedError): string {
  const lines = [`${root.type}: ${root.message}${annotations(root)}`];
  render(root, '', lines);
  return lines.join('\n');
}
