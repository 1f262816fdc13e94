import { classifiedAs, type DeclaredClassification } from '../classify/declared.js';
import { RecourseError } from '../errors/recourse-error.js';

/**
 * @internal True for LangGraph's control-flow signals: `GraphInterrupt` (what `interrupt()`
 * throws), `NodeInterrupt`, `ParentCommand`, every `GraphBubbleUp`. They steer the graph; they
 * are not failures, and must reach it as they were thrown (LangGraph marks them all with
 * `is_bubble_up`).
 */
export function isControlFlow(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { is_bubble_up?: unknown }).is_bubble_up === true
  );
}

const PASSING: DeclaredClassification = {
  kind: 'cancelled',
  retryable: false,
  countsForBreaker: false,
  reason: 'control_flow',
};

/**
 * @internal Carries a control-flow signal through recourse's policies, which neither retry nor
 * count it (a breaker frees its probe slot and moves not: ARCHITECTURE.md §P3), so that it leaves them unchanged: the
 * signal itself is not touched (no mark is written on it).
 */
export class ControlFlowPassage extends RecourseError {
  override name = 'ControlFlowPassage' as const;
  readonly [classifiedAs]: DeclaredClassification = PASSING;
  readonly signal: unknown;
  constructor(signal: unknown) {
    super('a LangGraph control-flow signal passing through', { cause: signal });
    this.signal = signal;
  }
}

/** @internal Runs `work`, turning a control-flow signal into a {@link ControlFlowPassage}. */
export async function passingControlFlow<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isControlFlow(error)) throw new ControlFlowPassage(error);
    throw error;
  }
}

/** @internal Runs `work` (policies over {@link passingControlFlow}), giving back a passing signal as it was. */
export async function releasingControlFlow<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ControlFlowPassage) throw error.signal;
    throw error;
  }
}
