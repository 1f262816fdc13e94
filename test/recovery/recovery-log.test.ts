import { describe, expect, it } from 'vitest';
import {
  byClass,
  escalate,
  jsonLogger,
  memoryStore,
  pipeline,
  shutdown,
  subscribe,
} from '../../src/index.js';
import { parseEventLog } from '../../src/report/read-event-log.js';
import { httpError } from '../helpers/http-error.js';

const rejection = async (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

describe('recovery events in the JSON log and the report', () => {
  it('route, alert, replan, stop and escalation lines carry their severity, and the report reads every one', async () => {
    const lines: string[] = [];
    const stop = subscribe(jsonLogger({ write: (l: string) => lines.push(l) }));
    try {
      const run = shutdown();
      const claude = pipeline({ name: 'claude' }, byClass({ shutdown: run, alert: () => {} }));
      await rejection(
        claude.execute(() =>
          Promise.reject(
            httpError(401, { message: 'bad key sk-ant-api03-ABCDEFGHIJKLMNOPQRSTUVWXYZ012345' }),
          ),
        ),
      );
      await rejection(
        claude.execute(() => Promise.reject(httpError(400, { message: 'prompt is too long' }))),
      );
      await rejection(claude.execute(() => Promise.reject(new TypeError('x is undefined'))));
      const risky = escalate({ store: memoryStore() });
      const e = (await rejection(
        risky.run({ action: 'refund', args: { order: 1 } }, () => Promise.reject(httpError(503))),
      )) as { id: string };
      await risky.approve(e.id, { by: 'alice' });
    } finally {
      stop();
    }
    const parsed = lines.map(
      (l) =>
        JSON.parse(l) as {
          event: string;
          level: string;
          dependency?: string;
          route?: string;
          state?: string;
        },
    );
    const seen = parsed.map(
      (l) => `${l.event}:${l.level}${l.route ? `:${l.route}` : ''}${l.state ? `:${l.state}` : ''}`,
    );
    expect(seen).toEqual([
      'alert:error',
      'route:warn:fail',
      'route:warn:replan',
      'replan:warn',
      'route:warn:stop',
      'stop:error',
      'escalation:warn:pending',
      'escalation:warn:approved',
    ]);
    expect(lines.join('\n')).not.toContain('ABCDEFGHIJKLMNOP');
    const log = parseEventLog(lines.join('\n'));
    expect(log.skipped.unknownTypes).toEqual([]);
    expect(log.events).toHaveLength(lines.length);
  });
});
