import { explainText } from '../telemetry/explain.js';
import type { CallRow } from './call-rows.js';
import type { ExplainNode, LogEvent, LoggedError } from './log-event.js';

function nodeOf(
  error: LoggedError | undefined,
  label: string | undefined,
  fallbackType: string,
): ExplainNode {
  const node: ExplainNode = {
    type: error?.type ?? fallbackType,
    message: error?.message ?? '',
    children: [],
  };
  if (label !== undefined) node.label = label;
  // explainJSON classifies only errors that are not recourse's own; the log classified all of them.
  if (
    error?.kind !== undefined &&
    !/^(RetriesExhausted|AllPathsFailed|CircuitOpen)Error$/.test(node.type)
  ) {
    node.kind = error.kind;
    if (error.reason !== undefined) node.reason = error.reason;
  }
  if (error?.status !== undefined) node.status = error.status;
  if (error?.code !== undefined) node.code = error.code;
  return node;
}

function pathNode(
  events: readonly LogEvent[],
  path: NonNullable<CallRow['failure']>['paths'][number],
  label: string | undefined,
): ExplainNode {
  const call = path.call === undefined ? undefined : events[path.call];
  if (call?.explain !== undefined)
    return label === undefined ? call.explain : { ...call.explain, label };
  const last = path.last === undefined ? undefined : events[path.last];
  const node = nodeOf(call?.error ?? last?.error, label, 'Error');
  path.attempts.forEach((i, n) => {
    node.children.push(nodeOf(events[i]?.error, `attempt ${events[i]?.attempt ?? n + 1}`, 'Error'));
  });
  if (last?.error !== undefined)
    node.children.push(
      nodeOf(last.error, `attempt ${last.attempt ?? path.attempts.length + 1}`, 'Error'),
    );
  return node;
}

/**
 * Why a failed call failed, as `explain` prints it: the tree the log carries (`explain` on the
 * call's failed `call` event), else one rebuilt from its events — the call's error, each failed
 * path, and each attempt's error from the `retry` and `giveup` events — marked as rebuilt.
 *
 * @example
 * callExplain(log.events, row) // 'AllPathsFailedError: all 2 path(s) failed …\n├─ path "deep-research": …'
 */
export function callExplain(events: readonly LogEvent[], row: CallRow): string {
  const failure = row.failure;
  if (failure === undefined) return '';
  const root = failure.root === undefined ? undefined : events[failure.root];
  if (root?.explain !== undefined) return explainText(root.explain);
  const rootIsPath = failure.paths.length === 1 && failure.paths[0]!.call === failure.root;
  let tree: ExplainNode;
  if (rootIsPath || (root === undefined && failure.paths.length === 1)) {
    tree = pathNode(events, failure.paths[0]!, undefined);
  } else {
    tree = nodeOf(root?.error, undefined, 'Error');
    if (root === undefined) tree.message = 'the call failed';
    for (const p of failure.paths) tree.children.push(pathNode(events, p, `path "${p.path}"`));
  }
  return `${explainText(tree)}\n\n(rebuilt from the log's events: the log has no explain tree for this call)`;
}
