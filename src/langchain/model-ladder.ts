import { classify } from '../classify/classify.js';
import { AllPathsFailedError, type PathFailure } from '../errors/all-paths-failed-error.js';
import type { Emitter } from '../events/emitter.js';
import type { Policy } from '../policy/policy.js';
import type { ChatModelLike } from './chat-model.js';
import { ControlFlowPassage, passingControlFlow, releasingControlFlow } from './control-flow.js';

/** @internal One model of a ladder, resolved: its name, model and policy. */
export interface LadderPath {
  readonly name: string;
  readonly model: ChatModelLike;
  /** `undefined`: one attempt, under no policy. */
  readonly policy: Policy | undefined;
}

/**
 * @internal Tries `paths` in order, each under its policy, `attempt` running one try of a model:
 * the first answer wins and says who served it. A control-flow signal leaves at once, as it was
 * thrown (no policy retries or counts it, no other path is tried); so does a caller's abort and a
 * fatal failure (a bug in a path is not an outage). A path whose breaker is open fails at once,
 * so the ladder moves on without a request. All failing: `AllPathsFailedError`.
 */
export async function runLadder<T, P extends LadderPath>(
  paths: readonly P[],
  signal: AbortSignal | undefined,
  events: Emitter,
  attempt: (path: P, attemptSignal: AbortSignal | undefined) => Promise<T>,
): Promise<{ value: T; servedBy: string; degraded: boolean; failures: PathFailure[] }> {
  const failures: PathFailure[] = [];
  return releasingControlFlow(async () => {
    for (let i = 0; i < paths.length; i++) {
      const path = paths[i]!;
      try {
        const policy = path.policy;
        const value =
          policy === undefined
            ? await attempt(path, undefined)
            : await policy.execute(
                (ctx) => passingControlFlow(() => attempt(path, ctx.signal)),
                signal === undefined ? undefined : { signal },
              );
        return { value, servedBy: path.name, degraded: i > 0, failures };
      } catch (error) {
        if (error instanceof ControlFlowPassage || signal?.aborted) throw error;
        const c = classify(error);
        if (c.kind === 'fatal' || c.kind === 'cancelled' || paths.length === 1) throw error;
        failures.push({ path: path.name, error });
        const to = paths[i + 1];
        if (to !== undefined && events.wants('fallback'))
          events.emit('fallback', { from: path.name, to: to.name, error });
      }
    }
    throw new AllPathsFailedError(failures);
  });
}
