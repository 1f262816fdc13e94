/**
 * @internal What was spent in the last `perMs`, exactly: each amount with its time, dropped once
 * it is `perMs` old (an amount spent at `t` counts while `now - t < perMs`). It holds only what
 * is still inside the window (amounts at the same time share one entry), and belongs to one
 * closed period of a breaker (`period`, that breaker's epoch).
 */
export class SpendWindow {
  readonly perMs: number;
  readonly period: number;
  readonly #times: number[] = [];
  readonly #amounts: number[] = [];
  #head = 0;

  constructor(perMs: number, period: number) {
    this.perMs = perMs;
    this.period = period;
  }

  /** Counts `amount` spent at `now`; returns the sum spent in the window that ends at `now`. */
  add(now: number, amount: number): number {
    const times = this.#times;
    const amounts = this.#amounts;
    const last = times.length - 1;
    if (last >= this.#head && times[last] === now) amounts[last]! += amount;
    else {
      times.push(now);
      amounts.push(amount);
    }
    let head = this.#head;
    while (head < times.length && now - times[head]! >= this.perMs) head++;
    // Compact once the dropped entries are the larger part, so memory follows the window.
    if (head > 16 && head * 2 > times.length) {
      times.splice(0, head);
      amounts.splice(0, head);
      head = 0;
    }
    this.#head = head;
    let sum = 0;
    for (let i = head; i < amounts.length; i++) sum += amounts[i]!;
    return sum;
  }
}
