import type { ChildProcess } from 'node:child_process';
import type { VirtualClock } from '../../src/testing/virtual-clock.js';

interface Member {
  child: ChildProcess;
  gone: boolean;
  ready: boolean;
  busy: number;
  next: number | null;
  acked: boolean;
}

const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * The parent's half of a virtual clock shared by worker processes (theirs: fixtures/shared-time.mjs):
 * one `VirtualClock` here (a chaos server runs on it) whose time the workers read over IPC. Time
 * moves only when everything is quiet: no worker has work in flight (an HTTP request waiting for
 * its answer, a store call), every worker has handled the last move, and nothing was heard for a
 * moment; then it moves to the earliest timer of any process. So minutes of provider time pass in
 * seconds, and real latencies (the network, the store, a loaded machine) take no virtual time.
 */
export class SharedTime {
  readonly #members: Member[] = [];
  #lastHeard = Date.now();
  readonly #quietMs: number;

  /**
   * `quietMs`: how long of real time nothing may be heard before time moves (default 15). A store
   * that polls for changes (PgBouncer) delivers them on its own real-time interval, outside any
   * store call this sees: time must stand still for a poll or two, or a process acts on a copy
   * the others changed one virtual cooldown ago.
   */
  constructor(
    readonly clock: VirtualClock,
    { quietMs = 15 }: { quietMs?: number } = {},
  ) {
    this.#quietMs = quietMs;
  }

  /** Adds a worker (spawned with an `ipc` channel). */
  add(child: ChildProcess): void {
    const member: Member = { child, gone: false, ready: false, busy: 0, next: null, acked: true };
    this.#members.push(member);
    // A worker that finished (or died) holds nothing back.
    child.on('exit', () => {
      member.gone = true;
      this.#lastHeard = Date.now();
    });
    child.on('message', (m: { type: string; busy?: number; next?: number | null }) => {
      this.#lastHeard = Date.now();
      if (m.type === 'ready') member.ready = true;
      else if (m.type === 'ack') member.acked = true;
      else if (m.type === 'state') {
        member.busy = m.busy ?? 0;
        member.next = m.next ?? null;
      }
    });
  }

  #live(): Member[] {
    return this.#members.filter((m) => !m.gone && m.child.connected);
  }

  #describe(): string {
    return `at ${this.clock.now()}, next ${this.clock.nextAt()}; workers ${JSON.stringify(this.#members.map((m) => [m.ready, m.acked, m.busy, m.next]))}`;
  }

  #broadcast(go: boolean): void {
    for (const m of this.#live()) {
      m.acked = false;
      m.child.send({ type: 'time', now: this.clock.now(), go }, (error) => {
        if (error !== null) m.gone = true; // it exited meanwhile
      });
    }
  }

  /** Waits until every worker is ready, starts them together, and moves time until `done()` holds (or `limitMs` of real time passed). */
  async run(done: () => boolean, progress: () => unknown, limitMs: number): Promise<void> {
    const end = Date.now() + limitMs;
    while (!this.#live().every((m) => m.ready)) {
      if (Date.now() > end) throw new Error('shared time: the workers did not get ready');
      await pause(5);
    }
    this.#broadcast(true);
    let seen = progress();
    while (!done()) {
      if (Date.now() > end)
        throw new Error(
          `shared time: not done within ${limitMs} ms of real time (${this.#describe()})`,
        );
      await pause(2);
      const now = progress();
      if (now !== seen) {
        seen = now;
        this.#lastHeard = Date.now();
        continue;
      }
      if (
        Date.now() - this.#lastHeard < this.#quietMs ||
        this.#live().some((m) => !m.acked || m.busy > 0)
      )
        continue;
      const candidates = [this.clock.nextAt(), ...this.#live().map((m) => m.next)].filter(
        (t): t is number => typeof t === 'number',
      );
      if (candidates.length === 0) continue;
      await this.clock.advanceTo(Math.max(this.clock.now(), Math.min(...candidates)));
      this.#broadcast(false);
      this.#lastHeard = Date.now();
    }
  }
}
