import type { LogEvent } from './log-event.js';

/** The events of one logical call (indexes into the log's events, in time order). */
export interface CallGroup {
  id: string;
  events: number[];
}

// Events that describe a run as a whole, not a call: drawn in their own lanes only.
const RUN_EVENTS = new Set(['degradation', 'store_unavailable', 'store_recovered']);

/** Slack for "inside a call's span": log timestamps are whole milliseconds. */
export const SLACK_MS = 2;

function spanOf(e: LogEvent): [number, number] {
  return [e.at - (e.durationMs ?? 0), e.at];
}

/**
 * Groups events into logical calls. With call ids (`call_id`, which `jsonLogger` writes for every
 * event emitted inside a call) that is exact. Events without one fall back to time: each `call`
 * event is a call of its own, and the other events of its dependency that happened within it join
 * it (else the innermost call running then); what fits nowhere is gathered per dependency
 * ("without a call"). Breaker state changes join
 * only a call they carry the id of; degradation and store events belong to the run.
 *
 * @example
 * groupCalls(log.events).map((g) => g.id) // ['41.1', '41.2', …]
 */
export function groupCalls(events: readonly LogEvent[]): CallGroup[] {
  const byId = new Map<string, CallGroup>();
  const loose: number[] = [];
  events.forEach((e, i) => {
    if (RUN_EVENTS.has(e.type)) return;
    if (e.callId === undefined) {
      if (e.type !== 'state') loose.push(i);
      return;
    }
    let group = byId.get(e.callId);
    if (group === undefined) {
      group = { id: e.callId, events: [] };
      byId.set(e.callId, group);
    }
    group.events.push(i);
  });
  const groups = [...byId.values()];
  if (loose.length === 0) return groups;

  // Without ids: one call per `call` event (a named pipeline or instrument).
  const all = new Spans();
  const byDep = new Map<string | undefined, Spans>();
  for (const i of loose) {
    const e = events[i]!;
    if (e.type !== 'call') continue;
    const [from, to] = spanOf(e);
    const group = { id: `line ${e.line}`, events: [i] };
    groups.push(group);
    const span = { group, from, to };
    all.add(span);
    let spans = byDep.get(e.dependency);
    if (spans === undefined) byDep.set(e.dependency, (spans = new Spans()));
    spans.add(span);
  }
  const orphans = new Map<string, CallGroup>();
  for (const i of loose) {
    const e = events[i]!;
    if (e.type === 'call') continue;
    const dep = e.type === 'fallback' ? e.from : e.dependency;
    // The innermost call of the same dependency running then, else the innermost call of any.
    const home =
      (dep === undefined ? undefined : byDep.get(dep)?.innermostAt(e.at)) ?? all.innermostAt(e.at);
    if (home !== undefined) {
      home.events.push(i);
      continue;
    }
    const key = `without a call: ${dep ?? 'unnamed'}`;
    let group = orphans.get(key);
    if (group === undefined) {
      group = { id: key, events: [] };
      orphans.set(key, group);
      groups.push(group);
    }
    group.events.push(i);
  }
  for (const g of groups) g.events.sort((a, b) => a - b);
  return groups;
}

interface Span {
  group: CallGroup;
  from: number;
  to: number;
}

/**
 * Call spans by start time, asked in time order for the shortest one running at a time: a sweep
 * that keeps only the spans running then (about as many as calls run at once), so a log of many
 * calls costs no more per event than a log of few.
 */
class Spans {
  readonly #spans: Span[] = [];
  #sorted = true;
  #next = 0;
  #active: Span[] = [];

  add(span: Span): void {
    const last = this.#spans.at(-1);
    if (last !== undefined && span.from < last.from) this.#sorted = false;
    this.#spans.push(span);
  }

  /** The shortest span running at `at`; `at` must not decrease from one call to the next. */
  innermostAt(at: number): CallGroup | undefined {
    if (!this.#sorted) {
      this.#spans.sort((a, b) => a.from - b.from);
      this.#sorted = true;
    }
    while (this.#next < this.#spans.length && this.#spans[this.#next]!.from <= at + SLACK_MS)
      this.#active.push(this.#spans[this.#next++]!);
    let best: Span | undefined;
    let kept = 0;
    for (const s of this.#active) {
      if (s.to < at - SLACK_MS) continue; // over for good: later questions are later still
      this.#active[kept++] = s;
      if (best === undefined || s.to - s.from < best.to - best.from) best = s;
    }
    this.#active.length = kept;
    return best?.group;
  }
}
