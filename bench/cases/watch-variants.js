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
    name: 'floor',
    label: "floor: a promise of its own per next(), settled from the source's (no stall logic)",
    extra: true,
    // What any wrapper that can reject a hung next() pays per item: its own promise (a pending
    // next() must be rejectable while the source's stays pending) and one reaction on the source's.
    setup: async () => async (n) => {
      const it = numbers(n)[Symbol.asyncIterator]();
      let resolve;
      let reject;
      const executor = (res, rej) => {
        resolve = res;
        reject = rej;
      };
      const onResult = (r) => resolve(r);
      const onError = (e) => reject(e);
      const wrapper = {
        next() {
          const promise = new Promise(executor);
          it.next().then(onResult, onError);
          return promise;
        },
        [Symbol.asyncIterator]() {
          return this;
        },
      };
      let sum = 0;
      for await (const x of wrapper) sum += x;
      return sum;
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
