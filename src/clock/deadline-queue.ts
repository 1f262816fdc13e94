import { AsyncLocalStorage } from 'node:async_hooks';
import { afterBurst } from './after-burst.js';
import { type Clock, startTimer, type Timer } from './clock.js';

// The queue's one timer serves every call, so it is armed outside any call's async context (the
// context recourse was loaded in): otherwise its callbacks would run in the context of whichever
// call armed it, and code reacting to another call's expiry would see that call's context
// (AsyncLocalStorage stores, an OpenTelemetry context manager's active span). Each entry then runs
// its expiry in its own call's scope.
const inRootContext = AsyncLocalStorage.snapshot();

/**
 * @internal One scheduled expiry. The queue calls `expire()` once at `at` unless the entry was
 * cancelled first; `live` is false from then on. A call's own object can be its entry, so a
 * deadline costs no closure.
 */
export interface DeadlineEntry {
  at: number;
  live: boolean;
  expire(): void;
}

/**
 * @internal An entry that may not know its `at` yet (see {@link DeadlineQueue.scheduleUnstamped}):
 * `stamp(now)` sets it from a start no earlier than the real one (no-op when already set).
 */
export interface UnstampedEntry extends DeadlineEntry {
  stamp(now: number): void;
}

/**
 * @internal One timer per clock for every pending deadline (ARCHITECTURE.md §P10). Entries live in a
 * binary heap; cancelling only clears the entry, and the single timer is re-armed lazily, so a
 * stream of short calls that finish in time arms about one timer per timeout period instead of
 * one per call. The newest entry waits outside the heap until another one comes: a call that ends
 * before the next one starts (the common case) never touches the heap.
 */
export class DeadlineQueue {
  readonly #clock: Clock;
  // A binary heap in heap[0..n); the array never shrinks, so the steady state allocates nothing.
  readonly #heap: Array<DeadlineEntry | undefined> = [];
  #n = 0;
  /** The latest entry, not yet in the heap (live while set). */
  #newest: DeadlineEntry | undefined = undefined;
  /** Entries waiting for the end of the current burst of microtasks to learn their `at`. */
  readonly #unstamped: UnstampedEntry[] = [];
  #stampPending = false;
  #timer: Timer | undefined;
  #armedAt = Number.POSITIVE_INFINITY;
  #live = 0;
  #refed = true;
  #unrefPending = false;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Schedules an entry object (live, with its `at` set). */
  schedule(entry: DeadlineEntry): void {
    this.#live++;
    this.#enqueue(entry);
  }

  /**
   * Schedules a live entry whose `at` is not known yet. No timer can fire before the current burst
   * of microtasks ends, so the entry is stamped then, with one clock read for every entry still
   * live (a call that settled within its burst never reads the clock). One entry that settles
   * before the next one starts (the common case) is dropped again at once.
   */
  scheduleUnstamped(entry: UnstampedEntry): void {
    this.#unstamped.push(entry);
    this.#live++;
    if (!this.#stampPending) {
      this.#stampPending = true;
      inRootContext(afterBurst, this.#stampAll);
    }
  }

  readonly #stampAll = (): void => {
    this.#stampPending = false;
    const list = this.#unstamped;
    if (list.length === 0) return;
    const now = this.#clock.now();
    for (let i = 0; i < list.length; i++) {
      const entry = list[i]!;
      if (!entry.live) continue;
      entry.stamp(now);
      this.#enqueue(entry);
    }
    list.length = 0;
  };

  #enqueue(entry: DeadlineEntry): void {
    const previous = this.#newest;
    if (previous !== undefined) this.#push(previous);
    this.#newest = entry;
    if (entry.at < this.#armedAt) this.#arm(entry.at);
    else if (!this.#refed) {
      this.#refed = true;
      this.#timer?.ref?.();
    }
  }

  cancel(entry: DeadlineEntry): void {
    if (!entry.live) return;
    entry.live = false;
    if (entry === this.#newest) this.#newest = undefined;
    else {
      const unstamped = this.#unstamped;
      if (unstamped.length > 0 && unstamped[unstamped.length - 1] === entry) unstamped.pop();
    }
    if (--this.#live === 0) this.#idle();
    else if (
      (this.#n > 1024 && this.#n > 4 * this.#live) ||
      (this.#unstamped.length > 1024 && this.#unstamped.length > 4 * this.#live)
    )
      this.#compact();
  }

  /** Number of entries still waiting (cancelled ones excluded). */
  get size(): number {
    return this.#live;
  }

  #arm(at: number): void {
    this.#timer?.cancel();
    this.#armedAt = at;
    this.#refed = true;
    this.#timer = inRootContext(
      startTimer,
      this.#clock,
      Math.max(0, at - this.#clock.now()),
      this.#onTimer,
    );
  }

  #idle(): void {
    // Nothing left to wait for: drop the cancelled entries and keep the armed timer (the next
    // call will likely need it), but let the process exit. Unref once the current burst of
    // promise reactions is over, not on every call: a loop of quick calls would toggle it each time.
    const heap = this.#heap;
    for (let i = 0; i < this.#n; i++) heap[i] = undefined;
    this.#n = 0;
    this.#newest = undefined;
    if (this.#unstamped.length !== 0) this.#unstamped.length = 0;
    if (!this.#unrefPending && this.#timer !== undefined) {
      this.#unrefPending = true;
      afterBurst(this.#unrefIfIdle);
    }
  }

  readonly #unrefIfIdle = (): void => {
    this.#unrefPending = false;
    if (this.#live === 0 && this.#refed) {
      this.#refed = false;
      this.#timer?.unref?.();
    }
  };

  #compact(): void {
    const live = this.#heap.slice(0, this.#n).filter((e) => e?.live === true) as DeadlineEntry[];
    this.#heap.length = 0;
    this.#n = 0;
    for (const e of live) this.#push(e);
    const unstamped = this.#unstamped;
    let kept = 0;
    for (let i = 0; i < unstamped.length; i++)
      if (unstamped[i]!.live) unstamped[kept++] = unstamped[i]!;
    unstamped.length = kept;
  }

  readonly #onTimer = (): void => {
    this.#timer = undefined;
    this.#armedAt = Number.POSITIVE_INFINITY;
    const now = this.#clock.now();
    const due: DeadlineEntry[] = [];
    if (this.#newest !== undefined) {
      this.#push(this.#newest);
      this.#newest = undefined;
    }
    let head = this.#n > 0 ? this.#heap[0] : undefined;
    while (head !== undefined && (!head.live || head.at <= now)) {
      this.#pop();
      if (head.live) {
        head.live = false;
        due.push(head);
        this.#live--;
      }
      head = this.#n > 0 ? this.#heap[0] : undefined;
    }
    if (head !== undefined) this.#arm(head.at);
    for (const entry of due) entry.expire();
  };

  #push(entry: DeadlineEntry): void {
    const heap = this.#heap;
    let i = this.#n++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent]!;
      if (p.at <= entry.at) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = entry;
  }

  #pop(): void {
    const heap = this.#heap;
    if (this.#n === 0) return;
    const n = --this.#n;
    const last = heap[n]!;
    heap[n] = undefined;
    if (n === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && heap[r]!.at < heap[l]!.at ? r : l;
      if (heap[c]!.at >= last.at) break;
      heap[i] = heap[c]!;
      i = c;
    }
    heap[i] = last;
  }
}

const queues = new WeakMap<Clock, DeadlineQueue>();

/** @internal The shared deadline queue of a clock. */
export function deadlineQueue(clock: Clock): DeadlineQueue {
  let queue = queues.get(clock);
  if (queue === undefined) {
    queue = new DeadlineQueue(clock);
    queues.set(clock, queue);
  }
  return queue;
}
