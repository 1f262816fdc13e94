/**
 * @internal The hedge's allowance of extra requests, a token bucket counted in calls: every call
 * adds `maxExtra` of a request, a hedged attempt takes a whole one. It starts empty, so over any
 * number of calls the extra requests are at most `maxExtra` × calls; the bucket holds at most
 * `burst` requests, so a long quiet spell does not buy a storm of hedges later.
 */
export class HedgeBudget {
  readonly #perCall: number;
  readonly #burst: number;
  #credit = 0;

  constructor(maxExtra: number) {
    this.#perCall = maxExtra;
    this.#burst = Math.max(1, Math.ceil(maxExtra * 100));
  }

  /** One call started. */
  call(): void {
    this.#credit = Math.min(this.#burst, this.#credit + this.#perCall);
  }

  /** Takes one extra request if the allowance has it. */
  take(): boolean {
    // The small epsilon absorbs the rounding of 20 × 0.05 summed in floating point.
    if (this.#credit < 1 - 1e-9) return false;
    this.#credit -= 1;
    return true;
  }
}
