// An approved action runs at most once, and an approval is used at most once, for as long as the
// escalation is kept (keepMs, 7 days) — not only while the action's result is (resultTtlMs, 24 h).
// Replayed on virtual time past 24 h, on every store.
import { afterAll, describe, expect, it } from 'vitest';
import { escalate, escalations, memoryStore, type Store } from '../../src/index.js';
import { VirtualClock } from '../../src/testing/index.js';
import { BACKENDS } from '../cluster/backends.js';
import { httpError } from '../helpers/http-error.js';

const T0 = 1_700_000_000_000;
const HOUR = 3_600_000;

interface Backend {
  name: string;
  unavailable: string | undefined;
  open(label: string): Promise<Store>;
}

const backends: Backend[] = [
  { name: 'memory', unavailable: undefined, open: async () => memoryStore() },
  ...BACKENDS.map((b) => ({
    name: b.name,
    unavailable: b.unavailable,
    open: (label: string) => b.open(b.fresh(label)),
  })),
];
afterAll(async () => {
  for (const b of BACKENDS) await b.cleanup();
});

const REQUEST = { action: 'refund', args: { order: 'A-17', amount: 120 } };

for (const backend of backends) {
  describe.skipIf(backend.unavailable !== undefined)(
    `an approval replayed after the action's result expired (${backend.name})`,
    () => {
      it('run: the approved action ran once; replayed 25 h and 6 days later it does not run again', async () => {
        const store = await backend.open('esc-run');
        try {
          const clock = new VirtualClock(T0);
          const risky = escalate({ store, clock, pollMs: 60_000 });
          const desk = escalations(store, { clock });
          let sent = 0;
          let down = true;
          const refund = async () => {
            if (down) throw httpError(503, { message: 'bank unavailable' });
            sent++;
            return { ref: `r-${sent}` };
          };
          const failed = (await risky.run(REQUEST, refund).catch((e: unknown) => e)) as {
            id: string;
          };
          await desk.approve(failed.id, { by: 'alice' });
          down = false;
          expect(await risky.run(REQUEST, refund)).toEqual({ ref: 'r-1' });
          for (const later of [25 * HOUR, 6 * 24 * HOUR]) {
            await clock.advanceTo(T0 + later);
            expect(await risky.run(REQUEST, refund)).toEqual({ ref: 'r-1' });
            expect(sent).toBe(1);
          }
          expect((await desk.get(failed.id))?.state).toBe('approved');
        } finally {
          await store.close();
        }
      });

      it('ask: an approval used once is not used again 25 h later; the identical call asks a person again', async () => {
        const store = await backend.open('esc-ask');
        try {
          const clock = new VirtualClock(T0);
          const risky = escalate({ store, clock, pollMs: 60_000 });
          const desk = escalations(store, { clock });
          const tool = { action: 'delete_repo', args: { repo: 'acme/site' } };
          const first = await risky.ask(tool);
          expect(first.decision).toBe('pending');
          await desk.approve(first.record.id, { by: 'alice' });
          expect((await risky.ask(tool)).decision).toBe('approved');
          await clock.advanceTo(T0 + 25 * HOUR);
          const later = await risky.ask(tool);
          expect([later.decision, later.record.round]).toEqual(['pending', 2]);
        } finally {
          await store.close();
        }
      });
    },
  );
}
