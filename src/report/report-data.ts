// The data a report page carries (inline JSON) and its script draws. Compact on purpose: a log of
// 100,000 events becomes a few MB, with repeated texts stored once (`strings`) and times as ms
// since the first event.

/** What a timeline item is; its index is the number stored in {@link CallRows.items}. */
export const ITEM_KINDS = [
  'path', // the span of one path (dependency) within the call
  'attempt-ok',
  'attempt-failed',
  'attempt-cancelled',
  'backoff', // the wait between two attempts
  'stall',
  'timeout',
  'invalid',
  'reject', // an open breaker refused the path
  'hop', // fallback to the next path
  'state', // this call moved a breaker
  'served',
  'other',
] as const;

/** A timeline item kind. */
export type ItemKind = (typeof ITEM_KINDS)[number];

/** The index of `kind` in {@link ITEM_KINDS}. */
export const KIND: { readonly [K in ItemKind]: number } = Object.fromEntries(
  ITEM_KINDS.map((k, i) => [k, i]),
) as { [K in ItemKind]: number };

/** How a logical call ended; the index is the number stored in {@link CallRows.status}. */
export const CALL_STATUSES = ['success', 'degraded', 'failed', 'cancelled', 'unknown'] as const;

/** A logical call's status. */
export type CallStatus = (typeof CALL_STATUSES)[number];

/** Breaker states, by the number stored in a band. */
export const BREAKER_STATES = ['closed', 'open', 'half-open', 'isolated', 'unknown'] as const;

/** Every event, column by column (index = event id). */
export interface EventColumns {
  /** ms since the first event. */
  t: number[];
  /** Index into `strings`. */
  type: number[];
  /** Index into `strings`, -1 without a dependency. */
  dep: number[];
  /** Line in the log. */
  line: number[];
  /** A number the card formats by type: duration, backoff delay, time to the next probe; -1 for none. */
  value: number[];
  /** Index into `strings`: the rest of the hover card. */
  info: number[];
}

/** The timeline rows: one per logical call, oldest first, column by column. */
export interface CallRows {
  /** Index into `strings`: the call id. */
  id: number[];
  /** Index into `strings`: the call's name (the outermost instrumented dependency or the first path). */
  name: number[];
  start: number[];
  end: number[];
  /** Index into {@link CALL_STATUSES}. */
  status: number[];
  /** Index into `strings`, -1 when nobody served it. */
  servedBy: number[];
  /** Requests made (attempts that reached the dependency). */
  requests: number[];
  /** Index into `strings`: the explain tree of a failed call; -1 otherwise. */
  explain: number[];
  /** Where this row's items start in `items` (item count = next offset − this). */
  itemStart: number[];
  /** Flat: kind, start, end, dependency (string index or -1), event id (or -1) — five numbers per item. */
  items: number[];
}

/** One breaker state interval. */
export interface Band {
  dep: number;
  /** Index into {@link BREAKER_STATES}. */
  state: number;
  t0: number;
  t1: number;
  /** The `state` event that began it; -1 when it is the state before the first event. */
  event: number;
}

/** The degradation level from `t` on (until the next step). */
export interface LevelStep {
  t: number;
  level: number;
  /** Index into `strings`. */
  name: number;
  event: number;
}

/** Everything the page script needs. */
export interface ReportData {
  title: string;
  /** Epoch ms of the first event. */
  t0: number;
  /** ms from the first to the last event (at least 1). */
  span: number;
  strings: string[];
  kinds: readonly string[];
  statuses: readonly string[];
  states: readonly string[];
  events: EventColumns;
  calls: CallRows;
  /** Dependencies with a breaker lane (string indexes), in lane order. */
  breakerDeps: number[];
  bands: Band[];
  levels: LevelStep[];
  /** Highest degradation level seen (the lane's scale). */
  maxLevel: number;
}
