import type { CallInfo, Scope as ScopeType } from '../context/scope.js';
import { Scope } from '../context/scope.js';
import { ATTEMPT_OBSERVER, type AttemptObserver } from './attempt-signals.js';

/** @internal What an attempt reports to its call. */
export interface AttemptOwner {
  firstItem(attempt: HedgeAttempt): void;
}

/**
 * @internal One attempt of a hedged call: a child scope that aborts on its own (the loser is
 * aborted, its signal closes its request) and carries itself in the observer slot, so the watcher
 * of the stream consumed inside it can say when the first item came.
 */
export class HedgeAttempt extends Scope implements AttemptObserver {
  readonly index: number;
  readonly path: string;
  readonly #owner: AttemptOwner;
  /** Input tokens its request carries, as the adapter that sent it reported them. */
  tokens: number | undefined;
  /** Aborted because another attempt won: nothing it does counts any more. */
  lost = false;
  failed = false;

  constructor(parent: ScopeType, owner: AttemptOwner, index: number, path: string) {
    const info = parent.callInfo;
    // The slot's value is this scope, known only after super(): the node is filled in right after.
    const node: { slot: typeof ATTEMPT_OBSERVER; value: unknown; next: CallInfo['slots'] } = {
      slot: ATTEMPT_OBSERVER,
      value: undefined,
      next: info.slots,
    };
    const withSlot: CallInfo = {
      idempotencyKey: info.idempotencyKey,
      name: info.name,
      slots: node as CallInfo['slots'],
    };
    super(
      parent,
      parent.attempt,
      parent.deadline,
      parent.clockOfDeadline,
      withSlot,
      undefined,
      true,
    );
    node.value = this;
    this.index = index;
    this.path = path;
    this.#owner = owner;
  }

  firstItem(): void {
    this.#owner.firstItem(this);
  }

  requestTokens(tokens: number): void {
    if (tokens >= 0) this.tokens = (this.tokens ?? 0) + tokens;
  }
}
