import type { CallGroup } from './group-calls.js';
import { SLACK_MS } from './group-calls.js';
import type { LogEvent } from './log-event.js';
import { type CallStatus, type ItemKind, KIND } from './report-data.js';

/** One drawn thing in a call's row. */
export interface Item {
  kind: ItemKind;
  start: number;
  end: number;
  dependency: string | undefined;
  /** The event it shows on hover, or -1. */
  event: number;
}

/** A logical call, ready to draw and to count. */
export interface CallRow {
  id: string;
  name: string | undefined;
  start: number;
  end: number;
  status: CallStatus;
  servedBy: string | undefined;
  items: Item[];
  /** Attempts that reached a dependency. */
  requests: number;
  retries: number;
  stalls: number;
  /** The events that hold why it failed: the outermost failed call, then its paths in order. */
  failure?: { root: number | undefined; paths: Array<{ path: string; call: number | undefined; attempts: number[]; last: number | undefined }> };
  /** Per dependency: each path's outcome and duration (for the summary). */
  paths: Array<{ dependency: string; outcome: string | undefined; durationMs: number | undefined; requests: number }>;
}

const MARK_OF: Record<string, ItemKind> = {
  stall: 'stall',
  timeout: 'timeout',
  invalid: 'invalid',
  reject: 'reject',
  fallback: 'hop',
  state: 'state',
  served: 'served',
  giveup: 'other',
  model_fallback: 'other',
  resume: 'other',
};

const within = (e: LogEvent, from: number, to: number): boolean => e.at >= from - SLACK_MS && e.at <= to + SLACK_MS;

/**
 * The row of one logical call: a span per path (from that path's `call` event), attempts inside it
 * (from `attempt` events when the log has them, else cut at each `retry` event and resumed after its
 * backoff), backoffs, and marks for stalls, timeouts, invalid results, breaker refusals, fallback
 * hops, breaker state changes and the answer. The outermost `call` event that contains the others
 * and is not one of the paths is the call itself: its outcome is the call's.
 *
 * @example
 * const row = buildCallRow(log.events, group)
 * row.status // 'degraded'
 */
export function buildCallRow(events: readonly LogEvent[], group: CallGroup): CallRow {
  const evs = group.events.map((i) => ({ i, e: events[i]! }));
  const calls = evs.filter(({ e }) => e.type === 'call');
  const pathNames = new Set<string>();
  for (const { e } of evs) {
    if (e.type === 'fallback') {
      if (e.from !== undefined) pathNames.add(e.from);
      if (e.to !== undefined) pathNames.add(e.to);
    }
    if (e.type === 'served' && e.servedBy !== undefined) pathNames.add(e.servedBy);
  }
  const spanStart = (e: LogEvent) => e.at - (e.durationMs ?? 0);
  const byLength = [...calls].sort((a, b) => (b.e.durationMs ?? 0) - (a.e.durationMs ?? 0));
  let envelope = byLength[0];
  if (envelope !== undefined && calls.length > 1) {
    const env = envelope.e;
    const containsAll = calls.every(({ e }) => e === env || (spanStart(e) >= spanStart(env) - SLACK_MS && e.at <= env.at + SLACK_MS));
    if (!containsAll || (env.dependency !== undefined && pathNames.has(env.dependency))) envelope = undefined;
  }
  const pathCalls = calls.length === 1 ? calls : calls.filter((c) => c !== envelope);

  const items: Item[] = [];
  const used = new Set<number>();
  const paths: CallRow['paths'] = [];
  const failurePaths: NonNullable<CallRow['failure']>['paths'] = [];
  let requests = 0;

  const addAttempts = (dep: string | undefined, from: number, to: number, outcome: string | undefined, pathEvent: number | undefined): number => {
    const attemptEvents = evs.filter(({ e }) => e.type === 'attempt' && e.dependency === dep && within(e, from, to));
    const retries = evs.filter(({ e }) => e.type === 'retry' && e.dependency === dep && within(e, from, to));
    const giveup = evs.find(({ e }) => e.type === 'giveup' && e.dependency === dep && within(e, from, to));
    // Shown by the attempts they end (their hover card is the attempt's error).
    if (giveup !== undefined) used.add(giveup.i);
    if (attemptEvents.length > 0) {
      for (const { i, e } of retries) {
        used.add(i);
        items.push({ kind: 'backoff', start: e.at, end: e.at + (e.delayMs ?? 0), dependency: dep, event: i });
      }
      for (const { i, e } of attemptEvents) {
        used.add(i);
        const kind = e.outcome === 'success' ? 'attempt-ok' : e.outcome === 'cancelled' ? 'attempt-cancelled' : 'attempt-failed';
        items.push({ kind, start: spanStart(e), end: e.at, dependency: dep, event: i });
      }
      return attemptEvents.length;
    }
    const pathError = pathEvent === undefined ? undefined : events[pathEvent]?.error;
    const refused = retries.length === 0 && (pathError?.type === 'CircuitOpenError' || evs.some(({ e }) => e.type === 'reject' && e.dependency === dep && within(e, from, to)));
    if (refused) return 0;
    let start = from;
    for (const { i, e } of retries) {
      used.add(i);
      items.push({ kind: 'attempt-failed', start, end: e.at, dependency: dep, event: i });
      const resume = e.at + (e.delayMs ?? 0);
      items.push({ kind: 'backoff', start: e.at, end: resume, dependency: dep, event: i });
      start = resume;
    }
    const lastKind = outcome === 'success' ? 'attempt-ok' : outcome === 'cancelled' ? 'attempt-cancelled' : outcome === undefined && giveup === undefined ? 'attempt-ok' : 'attempt-failed';
    const lastEvent = outcome === 'success' || giveup === undefined ? (pathEvent ?? -1) : giveup.i;
    items.push({ kind: lastKind, start: Math.min(start, to), end: to, dependency: dep, event: lastEvent });
    return retries.length + 1;
  };

  for (const { i, e } of pathCalls) {
    used.add(i);
    const from = spanStart(e);
    items.push({ kind: 'path', start: from, end: e.at, dependency: e.dependency, event: i });
    const n = addAttempts(e.dependency, from, e.at, e.outcome, i);
    requests += n;
    paths.push({ dependency: e.dependency ?? 'unnamed', outcome: e.outcome, durationMs: e.durationMs, requests: n });
    if (e.outcome === 'failure') {
      failurePaths.push({
        path: e.dependency ?? 'unnamed',
        call: i,
        attempts: evs.filter(({ e: r }) => r.type === 'retry' && r.dependency === e.dependency && within(r, from, e.at)).map(({ i: r }) => r),
        last: evs.find(({ e: g }) => g.type === 'giveup' && g.dependency === e.dependency && within(g, from, e.at))?.i,
      });
    }
  }
  if (envelope !== undefined) used.add(envelope.i);

  // Dependencies with retries but no `call` event (no instrument on that path): a span from their
  // first event to their last.
  const covered = new Set(pathCalls.map(({ e }) => e.dependency));
  const bare = new Map<string | undefined, Array<{ i: number; e: LogEvent }>>();
  for (const x of evs) {
    if ((x.e.type === 'retry' || x.e.type === 'giveup') && !covered.has(x.e.dependency)) {
      const list = bare.get(x.e.dependency) ?? [];
      list.push(x);
      bare.set(x.e.dependency, list);
    }
  }
  for (const [dep, list] of bare) {
    const from = list[0]!.e.at;
    const to = list.at(-1)!.e.at;
    const gaveUp = list.some(({ e }) => e.type === 'giveup');
    items.push({ kind: 'path', start: from, end: to, dependency: dep, event: list[0]!.i });
    const n = addAttempts(dep, from, to, gaveUp ? 'failure' : undefined, undefined);
    requests += n;
    paths.push({ dependency: dep ?? 'unnamed', outcome: gaveUp ? 'failure' : undefined, durationMs: undefined, requests: n });
    if (gaveUp) {
      failurePaths.push({
        path: dep ?? 'unnamed',
        call: undefined,
        attempts: list.filter(({ e }) => e.type === 'retry').map(({ i }) => i),
        last: list.find(({ e }) => e.type === 'giveup')?.i,
      });
    }
  }

  for (const { i, e } of evs) {
    if (used.has(i)) continue;
    const mark = MARK_OF[e.type];
    if (mark === undefined) continue;
    items.push({ kind: mark, start: e.at, end: e.at, dependency: e.type === 'fallback' ? e.from : e.dependency, event: i });
  }

  let start = Number.POSITIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  for (const it of items) {
    start = Math.min(start, it.start);
    end = Math.max(end, it.end);
  }
  for (const { e } of evs) {
    start = Math.min(start, e.at);
    end = Math.max(end, e.at);
  }
  if (envelope !== undefined) start = Math.min(start, spanStart(envelope.e));

  const served = evs.findLast(({ e }) => e.type === 'served')?.e;
  const decider = envelope?.e ?? [...pathCalls].sort((a, b) => a.e.at - b.e.at).at(-1)?.e;
  let status: CallStatus = 'unknown';
  let servedBy: string | undefined;
  if (decider?.outcome === 'failure') status = 'failed';
  else if (decider?.outcome === 'cancelled') status = 'cancelled';
  else if (served !== undefined) {
    status = served.degraded === true ? 'degraded' : 'success';
    servedBy = served.servedBy;
  } else if (decider?.outcome === 'success') {
    status = 'success';
    servedBy = pathCalls.length === 1 ? pathCalls[0]!.e.dependency : decider.dependency;
  } else if (failurePaths.length > 0) status = 'failed';

  const row: CallRow = {
    id: group.id,
    name: envelope?.e.dependency ?? pathCalls[0]?.e.dependency ?? evs.find(({ e }) => e.dependency !== undefined)?.e.dependency,
    start,
    end,
    status,
    servedBy,
    items: items.sort((a, b) => KIND[a.kind] - KIND[b.kind] || a.start - b.start),
    requests,
    retries: evs.filter(({ e }) => e.type === 'retry').length,
    stalls: evs.filter(({ e }) => e.type === 'stall').length,
    paths,
  };
  if (status === 'failed') row.failure = { root: envelope?.e.outcome === 'failure' ? envelope.i : decider === undefined ? undefined : calls.find(({ e }) => e === decider)?.i, paths: failurePaths };
  return row;
}
