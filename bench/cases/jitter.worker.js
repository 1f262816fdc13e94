// Case 6 worker: Brooker's OCC contention simulation ("Exponential Backoff and Jitter", AWS
// Architecture Blog, 2015), on virtual time with a seeded PRNG.
//
// Model (as in the post's simulator): one row with a version number; each client reads the row,
// then writes it conditionally on the version it read; the write fails if somebody wrote in
// between, and the client then sleeps for its backoff and starts over with a new read. Every
// message takes |N(10 ms, 2 ms)| on the network. "calls" counts writes, as the post does;
// "time" is when the last client succeeded. Results are averaged over `sims` simulations.
//
// schedule 'recourse': the delays come from recourse's own exponential() backoffs
//   (base 5 ms, cap 2,000 ms; attempt 1 = the delay before the first retry = base).
// schedule 'brooker': the simulator's own formulas, written out independently here
//   (expo(n) = min(cap, 2^n · base) with n = 1 for the first retry).
import { mulberry32, normal } from '../lib/prng.js';
import { loadRecourse } from '../lib/recourse.js';
import { report } from '../lib/spawn.js';

const { exponential } = await loadRecourse();
const [seedArg, simsArg, clientsArg, schedule] = process.argv.slice(2);
const seed = Number(seedArg);
const sims = Number(simsArg);
const clients = Number(clientsArg);
const BASE = 5;
const CAP = 2000;

const ALGORITHMS = ['none', 'full', 'equal', 'decorrelated', 'no-backoff'];

function recourseDelay(jitter) {
  if (jitter === 'no-backoff') return () => 0;
  const b = exponential({ baseMs: BASE, maxMs: CAP, factor: 2, jitter });
  return (attempt, previous, random) => b.delay(attempt, previous, random);
}

function brookerDelay(jitter) {
  const expo = (n) => Math.min(CAP, 2 ** n * BASE);
  switch (jitter) {
    case 'no-backoff':
      return () => 0;
    case 'none':
      return (n) => expo(n);
    case 'full':
      return (n, _p, random) => random() * expo(n);
    case 'equal':
      return (n, _p, random) => {
        const v = expo(n);
        return v / 2 + random() * (v / 2);
      };
    case 'decorrelated':
      return (_n, previous, random) => {
        const sleep = previous > 0 ? previous : BASE;
        return Math.min(CAP, BASE + random() * (sleep * 3 - BASE));
      };
  }
}

// A binary min-heap of events ordered by time, then by insertion (ties keep FIFO order).
class EventQueue {
  #heap = [];
  #seq = 0;
  get size() {
    return this.#heap.length;
  }
  push(at, kind, client, payload) {
    const e = { at, seq: this.#seq++, kind, client, payload };
    const h = this.#heap;
    let i = h.push(e) - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (before(h[p], e)) break;
      h[i] = h[p];
      i = p;
    }
    h[i] = e;
  }
  pop() {
    const h = this.#heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= h.length) break;
        const r = l + 1;
        const c = r < h.length && before(h[r], h[l]) ? r : l;
        if (before(last, h[c])) break;
        h[i] = h[c];
        i = c;
      }
      h[i] = last;
    }
    return top;
  }
}
const before = (a, b) => a.at < b.at || (a.at === b.at && a.seq < b.seq);

function simulate(delayFn, random) {
  const net = () => Math.abs(normal(random, 10, 2));
  const q = new EventQueue();
  let version = 0;
  let writes = 0;
  let now = 0;
  for (let c = 0; c < clients; c++) q.push(net(), 'read', { attempt: 0, previous: 0 }, undefined);
  while (q.size > 0) {
    const e = q.pop();
    now = e.at;
    switch (e.kind) {
      case 'read': // at the server
        q.push(now + net(), 'read-reply', e.client, version);
        break;
      case 'read-reply': // at the client
        q.push(now + net(), 'write', e.client, e.payload);
        break;
      case 'write': {
        // at the server
        writes++;
        const ok = e.payload === version;
        if (ok) version++;
        q.push(now + net(), 'write-reply', e.client, ok);
        break;
      }
      case 'write-reply': {
        // at the client
        if (e.payload) break; // done
        const c = e.client;
        c.attempt++;
        const d = Math.max(0, delayFn(c.attempt, c.previous, random));
        c.previous = d;
        q.push(now + net() + d, 'read', c, undefined);
        break;
      }
    }
  }
  return { writes, time: now };
}

const random = mulberry32(seed);
const results = {};
for (const algorithm of ALGORITHMS) {
  const delayFn = schedule === 'brooker' ? brookerDelay(algorithm) : recourseDelay(algorithm);
  let writes = 0;
  let time = 0;
  for (let s = 0; s < sims; s++) {
    const r = simulate(delayFn, random);
    writes += r.writes;
    time += r.time;
  }
  results[algorithm] = { calls: writes / sims, timeMs: time / sims };
}
report({ seed, sims, clients, schedule, results });
process.exit(0);
