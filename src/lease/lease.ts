import type { Backoff } from '../backoff/backoff.js';
import { nextDelay } from '../backoff/next-delay.js';
import { type Clock, startTimer, type Timer } from '../clock/clock.js';
import { abortReason } from '../errors/abort-error.js';

/** @internal One atomic try at a lease, as the store answered it. */
export type LeaseTry<D> =
  /** The caller holds it now; `previousOwner`: it took the lease from a holder that lapsed or died. */
  | { kind: 'acquired'; previousOwner?: string }
  /** Someone else holds it until `leaseUntil` (try again no later than that). */
  | { kind: 'held'; leaseUntil: number; holder?: string }
  /** Nothing left to hold: the work is done and this is its outcome (the ledger's stored result). */
  | { kind: 'done'; value: D };

/**
 * @internal The store side of one lease (one ledger key or saga id, for one owner). Each method is
 * one atomic store transition; times are the settings' clock.
 */
export interface LeasePort<D> {
  tryAcquire(now: number, leaseMs: number): Promise<LeaseTry<D>>;
  /** Extends the caller's lease to `now + leaseMs`; false when the caller no longer holds it. */
  renew(now: number, leaseMs: number): Promise<boolean>;
  release(): Promise<void>;
}

/** @internal How a lease is held and waited for. */
export interface LeaseSettings {
  clock: Clock;
  leaseMs: number;
  /** Delays between looks at a lease someone else holds. */
  poll: Backoff;
  random: () => number;
}

/** @internal What taking a lease came to (a port that is never done, `LeasePort<never>`, only acquires). */
export type Taken<D> =
  | { kind: 'acquired'; lease: HeldLease; previousOwner?: string }
  | ([D] extends [never] ? never : { kind: 'done'; value: D });

/** @internal What one try came to: {@link Taken}, or who holds the lease. */
export type TryAnswer<D> = Taken<D> | { kind: 'held'; leaseUntil: number; holder?: string };

/**
 * @internal A lease this process holds: renewed every `leaseMs / 3` until `stop()` or `release()`,
 * so a long piece of work keeps it; a renewal that fails is tried again at the next tick (the
 * lease has slack for two), one that finds the lease taken over stops renewing and clears `held`.
 */
export class HeldLease {
  readonly #port: LeasePort<unknown>;
  readonly #s: LeaseSettings;
  #timer: Timer | undefined;
  #stopped = false;
  #held = true;

  constructor(port: LeasePort<unknown>, settings: LeaseSettings) {
    this.#port = port;
    this.#s = settings;
    this.#schedule();
  }

  /** False once a renewal found that another owner took the lease over. */
  get held(): boolean {
    return this.#held;
  }

  /** Stops renewing; the stored lease stays until it lapses or the holder writes its outcome. */
  stop(): void {
    this.#stopped = true;
    this.#timer?.cancel();
  }

  /** Stops renewing and gives the lease up. */
  release(): Promise<void> {
    this.stop();
    return this.#port.release();
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = startTimer(this.#s.clock, Math.max(1, Math.floor(this.#s.leaseMs / 3)), () =>
      this.#renew(),
    );
    // Renewal keeps a lease, never a process: the work holding the lease keeps the process alive.
    this.#timer.unref?.();
  }

  #renew(): void {
    if (this.#stopped) return;
    this.#port.renew(this.#s.clock.now(), this.#s.leaseMs).then(
      (held) => {
        if (held) this.#schedule();
        else this.#held = false;
      },
      () => this.#schedule(),
    );
  }
}

/**
 * @internal One try: the lease (renewed from now on), the finished work's outcome, or who holds it.
 */
export async function tryLease<D>(
  port: LeasePort<D>,
  settings: LeaseSettings,
): Promise<TryAnswer<D>> {
  const answer = await port.tryAcquire(settings.clock.now(), settings.leaseMs);
  if (answer.kind !== 'acquired') return answer as TryAnswer<D>;
  const lease = new HeldLease(port as LeasePort<unknown>, settings);
  return answer.previousOwner === undefined
    ? { kind: 'acquired', lease }
    : { kind: 'acquired', lease, previousOwner: answer.previousOwner };
}

/**
 * @internal Takes the lease, waiting while someone else holds it: looks again after the poll
 * backoff's delays, never later than the holder's lease end (so a dead holder is replaced as soon
 * as its lease lapses). `signal` stops the wait; a lease obtained just as it aborted is released.
 */
export async function awaitLease<D>(
  port: LeasePort<D>,
  settings: LeaseSettings,
  signal?: AbortSignal,
): Promise<Taken<D>> {
  let previous = 0;
  for (let attempt = 1; ; attempt++) {
    if (signal?.aborted) throw abortReason(signal);
    const taken = await tryLease(port, settings);
    if (taken.kind !== 'held') {
      if (taken.kind === 'acquired' && signal?.aborted) {
        await taken.lease.release().catch(() => {});
        throw abortReason(signal);
      }
      return taken as Taken<D>;
    }
    previous = nextDelay(settings.poll, attempt, previous, settings.random);
    const untilLapse = taken.leaseUntil - settings.clock.now();
    await settings.clock.sleep(Math.max(1, Math.min(previous, untilLapse)), signal);
  }
}
