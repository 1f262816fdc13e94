// Counts the change messages a shared breaker costs a fleet (issue 28: state changes only). W store
// handles on one real backend stand for W workers, each with its own connection and a breaker on
// the same name; a separate raw subscriber hears every message the backend sends on the channel.
// Failures below the threshold must send nothing; a trip, its probe and the close one each.
import { expect } from 'vitest';
import { circuitBreaker } from '../../src/circuit-breaker/circuit-breaker.js';
import type { BreakerStore } from '../../src/store/breaker-store.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { httpError } from './http-error.js';

/** What the raw subscriber heard on the breaker channel: one entry per message, in order. */
export interface HeardMessages {
  readonly messages: Array<{ name: string; state: string }>;
  stop(): Promise<void>;
}

export interface MessageBackend {
  /** W independent handles on one fresh location (each its own connection). */
  handles: Array<BreakerStore & { close(): Promise<void> }>;
  /** A raw subscriber on the backend's breaker channel, already listening when it resolves. */
  heard: HeardMessages;
}

export interface MessageCounts {
  workers: number;
  failures: number;
  /** Messages published while failures were recorded below the threshold. */
  publishedWhileClosed: number;
  /** Messages published for one trip, its probe and the close. */
  publishedPerTrip: number;
  statesPerTrip: string[];
}

const THRESHOLD = 5;
// What the breakers hold, for the message of a wait that did not end.
let copies = (): string => '';
const COOLDOWN_MS = 1_000;

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const end = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > end)
      throw new Error(`not reached within 20 s: ${what}; the copies: ${copies()}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A message on `name` heard after every earlier one: what was published before it has been heard. */
async function fence(backend: MessageBackend, name: string): Promise<void> {
  await backend.handles[0]!.breakerForce(name, 'closed');
  await until(() => backend.heard.messages.some((m) => m.name === name), `the fence ${name}`);
}

/**
 * Runs `cycles` rounds of failures below the threshold (each worker fails once, then one
 * succeeds, which clears the count) and then one trip, probe and close, counting the messages.
 */
export async function countBreakerMessages(
  backend: MessageBackend,
  cycles: number,
): Promise<MessageCounts> {
  const { handles, heard } = backend;
  const name = 'flaky-model';
  const clock = new VirtualClock(Date.now());
  const breakers = handles.map((store) =>
    circuitBreaker({
      name,
      store,
      clock,
      failureThreshold: THRESHOLD,
      cooldownMs: COOLDOWN_MS,
      storeTimeoutMs: 5_000, // a loaded machine must not turn these writes into an outage
    }),
  );
  expect(handles.length).toBeLessThan(THRESHOLD);
  copies = () => JSON.stringify(breakers.map((b) => b.toJSON()));
  // Every worker has loaded the record and is subscribed: its first call waits for the read.
  for (const b of breakers) await b.execute(() => 'warm');
  for (const [i, store] of handles.entries()) {
    let seen = false;
    const stop = store.breakerSubscribe!((n) => {
      if (n === `warm-${i}`) seen = true;
    });
    await store.breakerForce(`warm-${i}`, 'closed');
    await until(() => seen, `worker ${i} subscribed`);
    stop();
  }
  await fence(backend, 'fence-start');
  const stored = async (): Promise<number> => (await handles[0]!.breakerGet(name))?.failures ?? 0;
  const from = heard.messages.length;
  let failures = 0;
  for (let c = 0; c < cycles; c++) {
    for (const b of breakers) {
      await b.execute(() => Promise.reject(httpError(503))).catch(() => {});
      failures++;
    }
    await until(async () => (await stored()) === handles.length, 'the failures written');
    // A worker whose copy still had a count another worker's success cleared (counts are not
    // announced) may have tripped here on its own; the store's answer to its write closes it again.
    await until(() => breakers.every((b) => b.state === 'closed'), 'every copy closed');
    // One success clears the count (one write, so nothing of this cycle lands in the next).
    await breakers[c % breakers.length]!.execute(() => 'ok');
    await until(async () => (await stored()) === 0, 'the count cleared');
  }
  await fence(backend, `fence-closed`);
  const whileClosed = heard.messages.slice(from).filter((m) => m.name === name);

  // One trip: a failure from every worker, then more from the first until the threshold.
  const tripFrom = heard.messages.length;
  for (const b of breakers) await b.execute(() => Promise.reject(httpError(503))).catch(() => {});
  await until(async () => (await stored()) === handles.length, 'the failures written');
  for (let i = handles.length; i < THRESHOLD; i++)
    await breakers[0]!.execute(() => Promise.reject(httpError(503))).catch(() => {});
  await until(() => breakers.every((b) => b.state === 'open'), 'every worker sees the trip');
  await clock.advance(COOLDOWN_MS);
  await breakers[0]!.execute(() => 'probe ok');
  await until(() => breakers.every((b) => b.state === 'closed'), 'every worker sees the close');
  await fence(backend, 'fence-trip');
  const perTrip = heard.messages.slice(tripFrom).filter((m) => m.name === name);
  return {
    workers: handles.length,
    failures,
    publishedWhileClosed: whileClosed.length,
    publishedPerTrip: perTrip.length,
    statesPerTrip: perTrip.map((m) => m.state),
  };
}
