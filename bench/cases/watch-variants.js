// Case 2 variants: `for await` over an async generator of numbers, consumed in one loop per variant.
// Each `consume(n)` returns the sum, so no loop can be optimised away.

import { loadRecourse } from '../lib/recourse.js';

const IDLE_MS = 10_000;

async function* numbers(n) {
  for (let i = 0; i < n; i++) yield i;
}

function onStall() {
  throw new Error('stalled');
}

export const WATCH_VARIANTS = [
  {
    name: 'bare',
    label: 'bare `for await`',
    setup: async () => async (n) => {
      let sum = 0;
      for await (const x of numbers(n)) sum += x;
      return sum;
    },
  },
  {
    name: 'watch',
    label: 'recourse watch({ idleMs })',
    setup: async () => {
      const { watch } = await loadRecourse();
      return async (n) => {
        let sum = 0;
        for await (const x of watch(numbers(n), { idleMs: IDLE_MS })) sum += x;
        return sum;
      };
    },
  },
  {
    name: 'naive-rearm',
    label: 'naive: clearTimeout + setTimeout per item',
    setup: async () => async (n) => {
      let sum = 0;
      let timer = setTimeout(onStall, IDLE_MS);
      for await (const x of numbers(n)) {
        clearTimeout(timer);
        timer = setTimeout(onStall, IDLE_MS);
        sum += x;
      }
      clearTimeout(timer);
      return sum;
    },
  },
  {
    name: 'naive-race',
    label: 'naive: Promise.race(next(), new timer) per item',
    setup: async () => async (n) => {
      let sum = 0;
      const it = numbers(n)[Symbol.asyncIterator]();
      for (;;) {
        let timer;
        const stall = new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('stalled')), IDLE_MS);
        });
        const r = await Promise.race([it.next(), stall]);
        clearTimeout(timer);
        if (r.done) break;
        sum += r.value;
      }
      return sum;
    },
  },
  {
    name: 'refresh',
    label: 'hand-written: one timer, timer.refresh() per item',
    extra: true,
    setup: async () => async (n) => {
      let sum = 0;
      const timer = setTimeout(onStall, IDLE_MS);
      for await (const x of numbers(n)) {
        timer.refresh();
        sum += x;
      }
      clearTimeout(timer);
      return sum;
    },
  },
];
