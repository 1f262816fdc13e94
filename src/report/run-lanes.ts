import type { LogEvent } from './log-event.js';
import { BREAKER_STATES } from './report-data.js';

/** A breaker state interval, in epoch ms. */
export interface StateBand {
  dependency: string;
  state: (typeof BREAKER_STATES)[number];
  from: number;
  to: number;
  /** The `state` event that began it; -1 for the state before the first one. */
  event: number;
}

/** A degradation level from `at` on. */
export interface LevelChange {
  at: number;
  level: number;
  name: string;
  event: number;
}

const stateOf = (s: string | undefined): StateBand['state'] =>
  (BREAKER_STATES as readonly string[]).includes(s ?? '') ? (s as StateBand['state']) : 'unknown';

/**
 * Breaker state bands per dependency from the `state` events: each state lasts from its event to
 * the next one of that breaker (the last to `end`); before the first event the breaker was in that
 * event's `from` state.
 *
 * @example
 * breakerBands(log.events, start, end).filter((b) => b.state === 'open')
 */
export function breakerBands(events: readonly LogEvent[], start: number, end: number): StateBand[] {
  const bands: StateBand[] = [];
  const open = new Map<string, StateBand>();
  events.forEach((e, i) => {
    if (e.type !== 'state' || e.dependency === undefined) return;
    const current = open.get(e.dependency);
    if (current === undefined)
      bands.push({
        dependency: e.dependency,
        state: stateOf(e.from),
        from: start,
        to: e.at,
        event: -1,
      });
    else current.to = e.at;
    const band: StateBand = {
      dependency: e.dependency,
      state: stateOf(e.to),
      from: e.at,
      to: end,
      event: i,
    };
    bands.push(band);
    open.set(e.dependency, band);
  });
  return bands;
}

/**
 * The degradation level over time from the `degradation` events. The level before the first
 * change is that event's `from`: level 0 when it escalated from a level never entered in the log.
 *
 * @example
 * degradationSteps(log.events, start) // [{ at, level: 0, name: 'normal' }, { at, level: 2, name: 'hard' }, …]
 */
export function degradationSteps(events: readonly LogEvent[], start: number): LevelChange[] {
  const changes = events.flatMap((e, i) =>
    e.type === 'degradation' && e.to !== undefined && e.level !== undefined ? [{ e, i }] : [],
  );
  if (changes.length === 0) return [];
  const levelOf = new Map<string, number>();
  for (const { e } of changes) levelOf.set(e.to!, e.level!);
  const first = changes[0]!.e;
  const before =
    first.from === undefined ? 0 : (levelOf.get(first.from) ?? (first.level! > 0 ? 0 : 1));
  return [
    { at: start, level: before, name: first.from ?? '?', event: -1 },
    ...changes.map(({ e, i }) => ({ at: e.at, level: e.level!, name: e.to!, event: i })),
  ];
}
