/**
 * @internal One call waiting for a slot. `grant` hands it the slot; `leave` is set while the call
 * listens to its signal, and takes that listener off again.
 */
export interface Waiter {
  grant: () => void;
  leave: (() => void) | undefined;
  prev: Waiter | undefined;
  next: Waiter | undefined;
  /** False once granted or removed: a waiter leaves the queue once. */
  queued: boolean;
}

/**
 * @internal The callers waiting for a bulkhead's slot, first come first served. A doubly linked
 * list, so a caller that gives up (abort, deadline) leaves from anywhere in the queue at once,
 * without a scan.
 */
export class WaitQueue {
  #head: Waiter | undefined;
  #tail: Waiter | undefined;
  #length = 0;

  get length(): number {
    return this.#length;
  }

  push(grant: () => void): Waiter {
    const w: Waiter = { grant, leave: undefined, prev: this.#tail, next: undefined, queued: true };
    if (this.#tail === undefined) this.#head = w;
    else this.#tail.next = w;
    this.#tail = w;
    this.#length++;
    return w;
  }

  /** The first waiter, taken off the queue; undefined when nobody waits. */
  shift(): Waiter | undefined {
    const w = this.#head;
    if (w !== undefined) this.remove(w);
    return w;
  }

  /** Takes `w` off the queue wherever it stands; false when it already left. */
  remove(w: Waiter): boolean {
    if (!w.queued) return false;
    w.queued = false;
    if (w.prev === undefined) this.#head = w.next;
    else w.prev.next = w.next;
    if (w.next === undefined) this.#tail = w.prev;
    else w.next.prev = w.prev;
    w.prev = undefined;
    w.next = undefined;
    this.#length--;
    return true;
  }
}
