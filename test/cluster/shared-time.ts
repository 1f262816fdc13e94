import type { ChildProcess } from 'node:child_process';
import type { VirtualClock } from '../../src/testing/virtual-clock.js';

interface Member {
  child: ChildProcess;
  gone: boolean;
  ready: boolean;
  busy: number;
  next: number | null;
  acked: boolean;
  /** The newest barrier this worker has heard (`barrier` option). */
  barrier: number;
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
  readonly #barrier: ((name: string) => Promise<unknown>) | undefined;
  #barriers = 0;

  /**
   * `quietMs`: how long of real time nothing may be heard before time moves (default 15).
   * `barrier`: writes a breaker change of the given name to the workers' store. A change a worker
   * wrote reaches the others by the store's push or poll, outside any store call this sees; with a
   * barrier, time moves only once every worker has heard a change written after everything was
   * quiet (fixtures/shared-time.mjs `hearBarriers`), so no process acts on a copy the others
   * changed one virtual cooldown ago, however late a push or a poll comes on a loaded machine.
   */
  constructor(
    readonly clock: VirtualClock,
    {
      quietMs = 15,
      barrier,
    }: { quietMs?: number; barrier?: (name: string) => Promise<unknown> } = {},
  ) {
    this.#quietMs = quietMs;
    this.#barrier = barrier;
  }

  /** Adds a worker (spawned with an `ipc` channel). */
  add(child: ChildProcess): void {
    const member: Member = {
      child,
      gone: false,
      ready: false,
      busy: 0,
      next: null,
      acked: true,
      barrier: 0,
    };
    this.#members.push(member);
    // A worker that finished (or died) holds nothing back.
    child.on('exit', () => {
      member.gone = true;
      this.#lastHeard = Date.now();
    });
    child.on('message', (m: { type: string; busy?: number; next?: number | null; k?: number }) => {
      // A barrier heard is not activity: it is what the quiet moment waits for.
      if (m.type === 'barrier') {
        member.barrier = Math.max(member.barrier, m.k ?? 0);
        return;
      }
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
    return `at ${this.clock.now()}, next ${this.clock.nextAt()}, barrier ${this.#barriers}; workers ${JSON.stringify(this.#members.map((m) => [m.ready, m.acked, m.busy, m.next, m.barrier]))}`;
  }

  #quiet(): boolean {
    return (
      Date.now() - this.#lastHeard >= this.#quietMs &&
      this.#live().every((m) => m.acked && m.busy === 0)
    );
  }

  /**
   * Writes a new barrier and waits until every live worker heard it (a new one every 2 s of real
   * time, should a delivery be lost); false if the workers were no longer quiet meanwhile.
   */
  async #passBarrier(write: (name: string) => Promise<unknown>, end: number): Promise<boolean> {
    for (;;) {
      const k = ++this.#barriers;
      await write(`shared-time-barrier-${k}`);
      const again = Date.now() + 2_000;
      while (this.#live().some((m) => m.barrier < k)) {
        if (Date.now() > end)
          throw new Error(
            `shared time: barrier ${k} not heard by every worker (${this.#describe()})`,
          );
        if (Date.now() > again) break;
        await pause(2);
      }
      if (this.#live().every((m) => m.barrier >= k)) return this.#quiet();
    }
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
      if (!this.#quiet()) continue;
      if (this.#barrier !== undefined && !(await this.#passBarrier(this.#barrier, end))) continue;
      if (progress() !== seen) continue;
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
