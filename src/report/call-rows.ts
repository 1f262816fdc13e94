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

/** The failed paths of a failed call, as event indexes: enough to rebuild its explain tree. */
export interface FailedPath {
  path: string;
  /** Its `call` event, if it was instrumented. */
  call: number | undefined;
  /** Its `retry` events: one per failed attempt before the last. */
  attempts: number[];
  /** Its `giveup` event: the last attempt's error. */
  last: number | undefined;
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
  failure?: { root: number | undefined; paths: FailedPath[] };
  /** Per path: its outcome, duration and requests (for the summary). */
  paths: Array<{
    dependency: string;
    outcome: string | undefined;
    durationMs: number | undefined;
    requests: number;
  }>;
}

const MARK_OF: Partial<Record<string, ItemKind>> = {
  stall: 'stall',
  timeout: 'timeout',
  invalid: 'invalid',
  reject: 'reject',
  fallback: 'hop',
  state: 'state',
  served: 'served',
  giveup: 'other',
  hedge: 'other',
  spend_limit_exceeded: 'other',
  spend_rate_exceeded: 'other',
  model_fallback: 'other',
  resume: 'other',
  route: 'other',
  alert: 'other',
  alert_failed: 'other',
  replan: 'other',
  stop: 'other',
  escalation: 'other',
};

const startOf = (e: LogEvent): number => e.at - (e.durationMs ?? 0);

/** The events of one call sorted into what the row needs, in one pass. */
class Sorted {
  readonly calls: number[] = [];
  readonly marks: number[] = [];
  /** retry / giveup / attempt / reject events by dependency. */
  readonly byDep = new Map<
    string | undefined,
    { retry: number[]; giveup: number[]; attempt: number[]; reject: number[] }
  >();
  readonly paths = new Set<string>();
  served: number | undefined;
  retries = 0;
  stalls = 0;
  start = Number.POSITIVE_INFINITY;
  end = Number.NEGATIVE_INFINITY;

  constructor(events: readonly LogEvent[], indexes: readonly number[]) {
    for (const i of indexes) {
      const e = events[i]!;
      if (e.at < this.start) this.start = e.at;
      if (e.at > this.end) this.end = e.at;
      switch (e.type) {
        case 'call':
          this.calls.push(i);
          continue;
        case 'retry':
        case 'giveup':
        case 'attempt':
        case 'reject':
          this.dep(e.dependency)[e.type].push(i);
          if (e.type === 'retry') this.retries++;
          break;
        case 'stall':
          this.stalls++;
          break;
        case 'fallback':
          if (e.from !== undefined) this.paths.add(e.from);
          if (e.to !== undefined) this.paths.add(e.to);
          break;
        case 'served':
          if (e.servedBy !== undefined) this.paths.add(e.servedBy);
          this.served = i;
          break;
      }
      this.marks.push(i);
    }
  }

  dep(name: string | undefined) {
    let d = this.byDep.get(name);
    if (d === undefined) {
      d = { retry: [], giveup: [], attempt: [], reject: [] };
      this.byDep.set(name, d);
    }
    return d;
  }
}

const inside = (
  events: readonly LogEvent[],
  list: readonly number[] | undefined,
  from: number,
  to: number,
): number[] => {
  const out: number[] = [];
  for (const i of list ?? []) {
    const at = events[i]!.at;
    if (at >= from - SLACK_MS && at <= to + SLACK_MS) out.push(i);
  }
  return out;
};

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
  const s = new Sorted(events, group.events);
  const used = new Set<number>();
  const items: Item[] = [];
  const paths: CallRow['paths'] = [];
  const failed: FailedPath[] = [];
  let requests = 0;

  // The envelope: the longest call, when it contains every other call and is not a path.
  let envelope: number | undefined;
  for (const i of s.calls)
    if (
      envelope === undefined ||
      (events[i]!.durationMs ?? 0) > (events[envelope]!.durationMs ?? 0)
    )
      envelope = i;
  if (envelope !== undefined && s.calls.length > 1) {
    const env = events[envelope]!;
    const from = startOf(env);
    const containsAll = s.calls.every(
      (i) =>
        i === envelope ||
        (startOf(events[i]!) >= from - SLACK_MS && events[i]!.at <= env.at + SLACK_MS),
    );
    if (!containsAll || (env.dependency !== undefined && s.paths.has(env.dependency)))
      envelope = undefined;
  }
  const pathCalls = s.calls.length === 1 ? s.calls : s.calls.filter((i) => i !== envelope);

  /** Draws the attempts of one path in [from, to]; returns how many requests it made. */
  const attempts = (
    dep: string | undefined,
    from: number,
    to: number,
    outcome: string | undefined,
    pathEvent: number | undefined,
  ): number => {
    const d = s.byDep.get(dep);
    const retries = inside(events, d?.retry, from, to);
    const giveup = inside(events, d?.giveup, from, to)[0];
    // Shown by the attempt it ends (its card is that attempt's error).
    if (giveup !== undefined) used.add(giveup);
    const measured = inside(events, d?.attempt, from, to);
    if (measured.length > 0) {
      for (const i of retries) {
        used.add(i);
        const e = events[i]!;
        items.push({
          kind: 'backoff',
          start: e.at,
          end: e.at + (e.delayMs ?? 0),
          dependency: dep,
          event: i,
        });
      }
      for (const i of measured) {
        used.add(i);
        const e = events[i]!;
        const kind =
          e.outcome === 'success'
            ? 'attempt-ok'
            : e.outcome === 'cancelled'
              ? 'attempt-cancelled'
              : 'attempt-failed';
        items.push({ kind, start: startOf(e), end: e.at, dependency: dep, event: i });
      }
      return measured.length;
    }
    const pathError = pathEvent === undefined ? undefined : events[pathEvent]!.error;
    if (
      retries.length === 0 &&
      (pathError?.type === 'CircuitOpenError' || inside(events, d?.reject, from, to).length > 0)
    )
      return 0;
    let start = from;
    for (const i of retries) {
      used.add(i);
      const e = events[i]!;
      items.push({ kind: 'attempt-failed', start, end: e.at, dependency: dep, event: i });
      const resume = e.at + (e.delayMs ?? 0);
      items.push({ kind: 'backoff', start: e.at, end: resume, dependency: dep, event: i });
      start = resume;
    }
    const last: ItemKind =
      outcome === 'success' || (outcome === undefined && giveup === undefined)
        ? 'attempt-ok'
        : outcome === 'cancelled'
          ? 'attempt-cancelled'
          : 'attempt-failed';
    const lastEvent = outcome === 'success' || giveup === undefined ? (pathEvent ?? -1) : giveup;
    items.push({
      kind: last,
      start: Math.min(start, to),
      end: to,
      dependency: dep,
      event: lastEvent,
    });
    return retries.length + 1;
  };

  const covered = new Set<string | undefined>();
  for (const i of pathCalls) {
    used.add(i);
    const e = events[i]!;
    const from = startOf(e);
    covered.add(e.dependency);
    items.push({ kind: 'path', start: from, end: e.at, dependency: e.dependency, event: i });
    const n = attempts(e.dependency, from, e.at, e.outcome, i);
    requests += n;
    paths.push({
      dependency: e.dependency ?? 'unnamed',
      outcome: e.outcome,
      durationMs: e.durationMs,
      requests: n,
    });
    if (e.outcome === 'failure') {
      const d = s.byDep.get(e.dependency);
      failed.push({
        path: e.dependency ?? 'unnamed',
        call: i,
        attempts: inside(events, d?.retry, from, e.at),
        last: inside(events, d?.giveup, from, e.at)[0],
      });
    }
  }
  if (envelope !== undefined) used.add(envelope);

  // Dependencies that retried without a `call` event (no instrument on that path): a span from
  // their first retry to their give-up.
  for (const [dep, d] of s.byDep) {
    if (covered.has(dep) || d.retry.length + d.giveup.length === 0) continue;
    const list = [...d.retry, ...d.giveup].sort((a, b) => a - b);
    const from = events[list[0]!]!.at;
    const to = events[list.at(-1)!]!.at;
    const gaveUp = d.giveup.length > 0;
    items.push({ kind: 'path', start: from, end: to, dependency: dep, event: list[0]! });
    const n = attempts(dep, from, to, gaveUp ? 'failure' : undefined, undefined);
    requests += n;
    paths.push({
      dependency: dep ?? 'unnamed',
      outcome: gaveUp ? 'failure' : undefined,
      durationMs: undefined,
      requests: n,
    });
    if (gaveUp)
      failed.push({
        path: dep ?? 'unnamed',
        call: undefined,
        attempts: d.retry,
        last: d.giveup[0],
      });
  }

  for (const i of s.marks) {
    if (used.has(i)) continue;
    const e = events[i]!;
    const mark = MARK_OF[e.type];
    if (mark !== undefined)
      items.push({
        kind: mark,
        start: e.at,
        end: e.at,
        dependency: e.type === 'fallback' ? e.from : e.dependency,
        event: i,
      });
  }
  let start = s.start;
  let end = s.end;
  for (const it of items) {
    if (it.start < start) start = it.start;
    if (it.end > end) end = it.end;
  }
  if (envelope !== undefined) start = Math.min(start, startOf(events[envelope]!));

  // What decides the outcome: the envelope, else the path call that ended last.
  let decider = envelope;
  if (decider === undefined)
    for (const i of pathCalls)
      if (decider === undefined || events[i]!.at >= events[decider]!.at) decider = i;
  const outcome = decider === undefined ? undefined : events[decider]!.outcome;
  const served = s.served === undefined ? undefined : events[s.served]!;
  let status: CallStatus = 'unknown';
  let servedBy: string | undefined;
  if (outcome === 'failure') status = 'failed';
  else if (outcome === 'cancelled') status = 'cancelled';
  else if (served !== undefined) {
    status = served.degraded === true ? 'degraded' : 'success';
    servedBy = served.servedBy;
  } else if (outcome === 'success') {
    status = 'success';
    servedBy =
      pathCalls.length === 1 ? events[pathCalls[0]!]!.dependency : events[decider!]!.dependency;
  } else if (failed.length > 0) status = 'failed';

  let name =
    envelope === undefined
      ? pathCalls[0] === undefined
        ? undefined
        : events[pathCalls[0]]!.dependency
      : events[envelope]!.dependency;
  if (name === undefined)
    for (const i of group.events) if ((name = events[i]!.dependency) !== undefined) break;

  items.sort((a, b) => KIND[a.kind] - KIND[b.kind] || a.start - b.start);
  const row: CallRow = {
    id: group.id,
    name,
    start,
    end,
    status,
    servedBy,
    items,
    requests,
    retries: s.retries,
    stalls: s.stalls,
    paths,
  };
  if (status === 'failed') row.failure = { root: decider, paths: failed };
  return row;
}
