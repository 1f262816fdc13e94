import type { LogEvent, LoggedError } from './log-event.js';

/** `OverloadedError: 529 …` plus its classification, as one or two card lines. */
export function errorLines(error: LoggedError | undefined): string[] {
  if (error === undefined) return [];
  const lines = [error.message === '' ? error.type : `${error.type}: ${error.message}`];
  const tags = [
    error.kind,
    error.reason,
    error.status === undefined ? undefined : `status ${error.status}`,
    error.code === undefined ? undefined : `code ${error.code}`,
  ];
  const shown = tags.filter((t): t is string => t !== undefined && t !== '');
  if (shown.length > 0) lines.push(shown.join(' · '));
  return lines;
}

function attemptText(e: LogEvent): string {
  if (e.attempt === undefined) return '';
  return e.maxAttempts === undefined
    ? `attempt ${e.attempt}`
    : `attempt ${e.attempt} of ${e.maxAttempts}`;
}

function extraLines(extra: Record<string, unknown> | undefined): string[] {
  const lines: string[] = [];
  if (extra === undefined) return lines;
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined || value === null) continue;
    // Whole numbers: float dust (471.18832399) makes every card unique and says nothing more.
    const shown =
      typeof value === 'number'
        ? String(Number.isInteger(value) ? value : Number(value.toFixed(value < 1 ? 3 : 0)))
        : typeof value === 'string'
          ? value
          : JSON.stringify(value);
    lines.push(`${key}: ${shown.length > 300 ? `${shown.slice(0, 300)}…` : shown}`);
  }
  return lines;
}

/**
 * The number a card shows for an event, formatted by the page: how long a call or attempt took,
 * the backoff before the next attempt, the time until a breaker's next probe. -1 when none.
 */
export function eventValue(e: LogEvent): number {
  if (e.type === 'retry') return e.delayMs ?? -1;
  if (e.type === 'call' || e.type === 'attempt') return e.durationMs ?? -1;
  return -1;
}

/**
 * The hover card of an event below its first line (type, dependency, time, line, value — the page
 * adds those): what happened, the error and its classification, and the line's other fields.
 * Numbers that vary per event are left to {@link eventValue}, so equal cards are stored once.
 */
export function describeEvent(e: LogEvent): string {
  const lines: string[] = [];
  switch (e.type) {
    case 'retry':
      lines.push(`${attemptText(e) || 'an attempt'} failed; retrying`);
      break;
    case 'giveup':
      lines.push(
        `gave up${e.attempt === undefined ? '' : ` after ${e.attempt} attempt(s)`}${e.reason === undefined ? '' : ` (${e.reason})`}`,
      );
      break;
    case 'call':
    case 'attempt':
      lines.push(
        `${e.type === 'call' ? 'call' : attemptText(e) || 'attempt'} ended: ${e.outcome ?? 'unknown'}`,
      );
      break;
    case 'state':
      lines.push(
        `circuit ${e.from ?? '?'} → ${e.to ?? '?'}${e.reason === undefined ? '' : ` (${e.reason})`}`,
      );
      break;
    case 'reject':
      lines.push('the open circuit refused the call (not run, not counted)');
      break;
    case 'fallback':
      lines.push(`fallback ${e.from ?? '?'} → ${e.to ?? '?'}`);
      break;
    case 'served':
      lines.push(`served by ${e.servedBy ?? '?'}${e.degraded === true ? ' (DEGRADED)' : ''}`);
      break;
    case 'stall':
      lines.push(`stalled: ${e.phase ?? 'unknown'} phase`);
      break;
    case 'degradation':
      lines.push(`degradation ${e.from ?? '?'} → ${e.to ?? '?'}`);
      break;
    default:
      if (e.msg !== undefined) lines.push(e.msg);
  }
  if (
    e.type !== 'reject' &&
    e.type !== 'state' &&
    e.type !== 'served' &&
    e.type !== 'fallback' &&
    e.type !== 'degradation' &&
    e.phase === undefined &&
    e.reason !== undefined &&
    e.type !== 'giveup'
  ) {
    lines.push(`reason: ${e.reason}`);
  }
  lines.push(...errorLines(e.error));
  lines.push(...extraLines(e.extra));
  return lines.join('\n');
}
