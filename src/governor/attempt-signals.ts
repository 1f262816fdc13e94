import { ambientScope, type Scope, ScopeSlot } from '../context/scope.js';

/**
 * @internal What a hedged attempt tells its hedge from inside: that it produced its first item (a
 * watched stream's first progress item: every adapter streams through the watcher), and the
 * tokens its request carries (what an aborted loser may still cost).
 */
export interface AttemptObserver {
  firstItem(): void;
  requestTokens(tokens: number): void;
}

/** @internal The slot a hedge puts its attempt's observer in. */
export const ATTEMPT_OBSERVER = new ScopeSlot<AttemptObserver>('recourse.hedgeAttempt');

/** @internal The watcher saw the first progress item of a stream consumed in `scope`. */
export function reportFirstItem(scope: Scope): void {
  scope.get(ATTEMPT_OBSERVER)?.firstItem();
}

/**
 * @internal An adapter is about to send a request of about `tokens` input tokens, in the ambient
 * call: a hedge reports them if the attempt loses.
 */
export function reportRequestTokens(tokens: number): void {
  ambientScope()?.get(ATTEMPT_OBSERVER)?.requestTokens(tokens);
}
