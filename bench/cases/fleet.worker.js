// Fleet case worker: one process holding many store handles, each a worker of the fleet (its own
// store and connections, its own breakers on the shared names). Driven step by step by fleet.js
// (bench/lib/spawn.js stepWorker/serveSteps), which reads the server's counters between steps.
// argv: spec(JSON) isTripper(0|1). Counted here, at the client: store round trips (SQL statements,
// Redis commands: bench/lib/cluster-stores.js), bytes on every socket this process opened, and
// the change messages each handle's store delivered.
import { Socket } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { openStore } from '../lib/cluster-stores.js';
import { loadRecourse } from '../lib/recourse.js';
import { serveSteps } from '../lib/spawn.js';

const [specJson, tripperArg] = process.argv.slice(2);
const spec = JSON.parse(specJson);
// The first handle of the first process trips the breakers; the others only watch.
const isTripper = tripperArg === '1';
const r = await loadRecourse();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const unavailable = () => Object.assign(new Error('503 Service Unavailable'), { status: 503 });
const ok = async () => 'ok';

// Every client socket of this process (the stores' connections: nothing else connects here);
// pg connects a `new Socket()`, which the `net.client.socket` channel does not report.
const sockets = new Set();
const connect = Socket.prototype.connect;
Socket.prototype.connect = function (...args) {
  sockets.add(this);
  return connect.apply(this, args);
};
let ops = 0;
// A store that polls for changes (`changes: 'poll'`, behind PgBouncer) asks every interval whether
// anything changed: a fixed cost per handle and second, counted apart (`polls`), so a step still
// ends once no other round trip has been made for 300 ms and the ops per call compare.
let polls = 0;
const isPoll = (sql) => typeof sql === 'string' && sql.includes('breaker_changes WHERE at >=');
const countOp = (sql) => {
  if (isPoll(sql)) polls++;
  else ops++;
};
// How late this process's event loop ran since the last `counters`: a store call "slower than
// 250 ms" on a busy machine may be the client's own delay, not the server's.
const lag = monitorEventLoopDelay({ resolution: 10 });
lag.enable();

// The safety re-read (default every 15 s) is left out of the counts: it is a fixed cost per
// breaker and handle, stated in the notes, not a cost of the calls measured.
const common = { syncIntervalMs: 3_600_000, probeTimeoutMs: 120_000 };
const LIMITS = {
  // Failures while closed that never trip: what a flaky dependency costs in the closed state.
  closed: { failureThreshold: 1_000_000_000, cooldownMs: 600_000 },
  // One failure trips; it stays open until reset (the trip phase resets it).
  trip: { failureThreshold: 1, cooldownMs: 600_000 },
  // One failure trips; the cooldown ends before the recovery round (fleet.js waits for it).
  probe: { failureThreshold: 1, cooldownMs: 1_000 },
};

const handles = [];

async function openHandle() {
  const store = await openStore(spec, countOp, { connections: 2 });
  const h = {
    store,
    messages: 0,
    unavailable: 0,
    breakers: {},
    changes: { closed: [], trip: [], probe: [] },
  };
  store.breakerSubscribe?.(() => h.messages++);
  for (const [which, limits] of Object.entries(LIMITS)) {
    const b = r.circuitBreaker({ name: `fleet-${which}`, store, ...common, ...limits });
    b.on('state', (e) => h.changes[which].push({ to: e.to, at: Date.now() }));
    h.breakers[which] = b;
  }
  // A store call slower than storeTimeoutMs (250 ms) makes the handle write behind without
  // waiting, and re-read its breakers once the store answers again: counted once per handle.
  h.breakers.closed.on('store_unavailable', () => h.unavailable++);
  // A breaker's first admission waits for its stored record: done now, not in a measured step.
  for (const b of Object.values(h.breakers)) await b.execute(ok);
  return h;
}

/** Runs `fn` on every handle, `lanes` at a time. */
async function eachHandle(list, lanes, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(lanes, list.length) }, async () => {
      while (next < list.length) {
        const i = next++;
        await fn(list[i], i);
      }
    }),
  );
}

const steps = {
  async open(n) {
    const t0 = Date.now();
    const opened = new Array(n);
    await eachHandle(opened, 8, async (_, i) => {
      opened[i] = await openHandle();
    });
    handles.push(...opened);
    return { handles: handles.length, ms: Date.now() - t0 };
  },

  counters() {
    let bytesIn = 0;
    let bytesOut = 0;
    let open = 0;
    for (const s of sockets) {
      bytesIn += s.bytesRead;
      bytesOut += s.bytesWritten;
      if (!s.destroyed) open++;
    }
    const messages = handles.reduce((n, h) => n + h.messages, 0);
    const unavailable = handles.reduce((n, h) => n + h.unavailable, 0);
    const lagMs = lag.max / 1e6;
    lag.reset();
    return { ops, polls, bytesIn, bytesOut, sockets: open, messages, unavailable, lagMs };
  },

  ops: () => ({ ops }),

  /** `n` successful calls per handle on the closed breaker. */
  async succeed(n) {
    await Promise.all(
      handles.map(async (h) => {
        for (let i = 0; i < n; i++) await h.breakers.closed.execute(ok);
      }),
    );
    return { calls: n * handles.length };
  },

  /**
   * `n` failing calls per handle on the closed breaker (it never trips), one every `intervalMs`,
   * each handle starting at a random point of the first interval: the fleet fails at a steady
   * rate, as workers calling a flaky dependency do, not in one burst of W·n writes.
   */
  async fail(n, intervalMs) {
    let failed = 0;
    await Promise.all(
      handles.map(async (h) => {
        await sleep(Math.random() * intervalMs);
        for (let i = 0; i < n; i++) {
          const next = sleep(intervalMs);
          await h.breakers.closed
            .execute(() => Promise.reject(unavailable()))
            .catch((error) => error.status === 503 && failed++);
          await next;
        }
      }),
    );
    return { failed };
  },

  /** One success per handle after the failures (the call that clears the count), within `spreadMs`. */
  async clear(spreadMs) {
    await Promise.all(
      handles.map(async (h) => {
        await sleep(Math.random() * spreadMs);
        await h.breakers.closed.execute(ok);
      }),
    );
    return { calls: handles.length };
  },

  /**
   * `n` retry-budget takes per handle on one shared budget, one every `intervalMs` from a random
   * start: what a shared `retryBudget` sends at its report tick (requests seen, one token wanted),
   * straight to the store so the fleet takes at a steady rate. Each handle is a budget's store
   * handle of its own (its own stripe on a store over a driver).
   */
  async take(n, intervalMs) {
    const limits = { ratio: 0.1, minPerSecond: 3, windowMs: 10_000 };
    let granted = 0;
    let refused = 0;
    let reason;
    await Promise.all(
      handles.map(async (h) => {
        await sleep(Math.random() * intervalMs);
        for (let i = 0; i < n; i++) {
          const next = sleep(intervalMs);
          const want = { requests: 10, returned: 0, returnedAt: 0, want: 1 };
          await h.store.retryBudgetTake('fleet-budget', want, Date.now(), limits).then(
            (g) => {
              granted += g.granted;
            },
            (error) => {
              refused++;
              reason ??= `${error.name} ${error.code ?? ''}: ${error.message}`.slice(0, 300);
            },
          );
          await next;
        }
      }),
    );
    return { granted, refused, reason };
  },

  /** The tripping handle fails one call on breaker `which` (threshold 1): the trip. */
  async trip(which) {
    if (!isTripper) throw new Error('not the tripping process');
    let at;
    await handles[0].breakers[which]
      .execute(() => {
        at = Date.now();
        return Promise.reject(unavailable());
      })
      .catch(() => {});
    return { at };
  },

  async reset(which) {
    const at = Date.now();
    await handles[0].breakers[which].reset();
    return { at };
  },

  /**
   * Waits (at most `timeoutMs`) until breaker `which` of every handle has moved to `state` since
   * `since`; answers when each did, null for one that did not. With `check`, each then makes one
   * call, which must be turned away with CircuitOpenError (a copy that says open rejects).
   */
  async awaitState(which, state, since, timeoutMs, check) {
    const seen = (h) => h.changes[which].find((c) => c.to === state && c.at >= since)?.at;
    const end = Date.now() + timeoutMs;
    while (Date.now() < end && !handles.every((h) => seen(h) !== undefined)) await sleep(5);
    let rejected = 0;
    if (check)
      await Promise.all(
        handles.map((h) =>
          h.breakers[which].execute(ok).catch((e) => e.name === 'CircuitOpenError' && rejected++),
        ),
      );
    return { times: handles.map((h) => seen(h) ?? null), rejected };
  },

  /**
   * One call per handle on the probe breaker, all at once, after its cooldown: a call that runs
   * while its breaker is half-open is a probe; the others are turned away (or, once the probe
   * closed it, run as ordinary calls).
   */
  async recover(holdMs) {
    let probes = 0;
    let ordinary = 0;
    let rejected = 0;
    let other = 0;
    await Promise.all(
      handles.map((h) =>
        h.breakers.probe
          .execute(async () => {
            if (h.breakers.probe.state === 'half-open') probes++;
            else ordinary++;
            await sleep(holdMs);
          })
          .catch((e) => (e.name === 'CircuitOpenError' ? rejected++ : other++)),
      ),
    );
    return { probes, ordinary, rejected, other };
  },

  async close() {
    await eachHandle(handles.splice(0), 16, (h) => h.store.close());
    return {};
  },
};

await serveSteps(steps);
process.exit(0);
