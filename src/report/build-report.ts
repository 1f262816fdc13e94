import { callExplain } from './call-explain.js';
import { buildCallRow, type CallRow } from './call-rows.js';
import { eventValue, describeEvent } from './describe-event.js';
import { groupCalls } from './group-calls.js';
import type { EventLog } from './read-event-log.js';
import { BREAKER_STATES, CALL_STATUSES, ITEM_KINDS, KIND, type ReportData } from './report-data.js';
import { breakerBands, degradationSteps } from './run-lanes.js';
import { StringTable } from './string-table.js';
import { type CallSummary, type DependencySummary, summarize } from './summary.js';

/** A report before it is turned into HTML: the page's data and the tables drawn on the server. */
export interface Report {
  data: ReportData;
  summary: { calls: CallSummary; dependencies: DependencySummary[] };
  log: Pick<EventLog, 'lines' | 'skipped' | 'outOfOrder'> & { events: number };
  /** True when the log has no call ids, so rows were grouped by time (see groupCalls). */
  grouped: 'by-id' | 'by-time' | 'mixed';
}

const rel = (at: number, t0: number): number => Math.round((at - t0) * 10) / 10;

/**
 * Turns a read event log into a report: one row per logical call (oldest first) with its items,
 * breaker state bands per dependency, the degradation level over time, and the summary numbers.
 *
 * @example
 * const report = buildReport(parseEventLog(text), 'run.jsonl')
 */
export function buildReport(log: EventLog, title: string): Report {
  const { events } = log;
  const strings = new StringTable();
  // A call is logged when it ends: the run starts at the earliest call's start, not its first line.
  let t0 = events[0]?.at ?? 0;
  for (const e of events) if (e.durationMs !== undefined) t0 = Math.min(t0, e.at - e.durationMs);
  const last = events.at(-1)?.at ?? t0;
  const span = Math.max(1, last - t0);

  const columns: ReportData['events'] = { t: [], type: [], dep: [], line: [], value: [], info: [] };
  for (const e of events) {
    columns.t.push(rel(e.at, t0));
    columns.type.push(strings.id(e.type));
    columns.dep.push(strings.optional(e.dependency));
    columns.line.push(e.line);
    const v = eventValue(e);
    columns.value.push(v < 0 ? -1 : Math.round(v * 10) / 10);
    columns.info.push(strings.id(describeEvent(e)));
  }

  const rows: CallRow[] = groupCalls(events)
    .map((g) => buildCallRow(events, g))
    .sort((a, b) => a.start - b.start);
  const calls: ReportData['calls'] = {
    id: [],
    name: [],
    start: [],
    end: [],
    status: [],
    servedBy: [],
    requests: [],
    explain: [],
    itemStart: [],
    items: [],
  };
  for (const row of rows) {
    calls.id.push(strings.id(row.id));
    calls.name.push(strings.optional(row.name));
    calls.start.push(rel(row.start, t0));
    calls.end.push(rel(row.end, t0));
    calls.status.push(CALL_STATUSES.indexOf(row.status));
    calls.servedBy.push(strings.optional(row.servedBy));
    calls.requests.push(row.requests);
    calls.explain.push(row.status === 'failed' ? strings.id(callExplain(events, row)) : -1);
    calls.itemStart.push(calls.items.length / 5);
    for (const it of row.items)
      calls.items.push(
        KIND[it.kind],
        rel(it.start, t0),
        rel(it.end, t0),
        strings.optional(it.dependency),
        it.event,
      );
  }

  const bands = breakerBands(events, t0, last);
  const breakerDeps: number[] = [];
  for (const b of bands) {
    const d = strings.id(b.dependency);
    if (!breakerDeps.includes(d)) breakerDeps.push(d);
  }
  const steps = degradationSteps(events, t0);
  let withIds = 0;
  let callsWithout = 0;
  for (const e of events) {
    if (e.callId !== undefined) withIds++;
    else if (e.type === 'call' || e.type === 'retry') callsWithout++;
  }
  const grouped =
    withIds === 0 && events.length > 0 ? 'by-time' : callsWithout > 0 ? 'mixed' : 'by-id';

  return {
    data: {
      title,
      t0,
      span,
      strings: strings.strings,
      kinds: ITEM_KINDS,
      statuses: CALL_STATUSES,
      states: BREAKER_STATES,
      events: columns,
      calls,
      breakerDeps,
      bands: bands.map((b) => ({
        dep: strings.id(b.dependency),
        state: BREAKER_STATES.indexOf(b.state),
        t0: rel(b.from, t0),
        t1: rel(b.to, t0),
        event: b.event,
      })),
      levels: steps.map((s) => ({
        t: rel(s.at, t0),
        level: s.level,
        name: strings.id(s.name),
        event: s.event,
      })),
      maxLevel: Math.max(0, ...steps.map((s) => s.level)),
    },
    summary: summarize(events, rows),
    log: {
      lines: log.lines,
      skipped: log.skipped,
      outOfOrder: log.outOfOrder,
      events: events.length,
    },
    grouped,
  };
}
