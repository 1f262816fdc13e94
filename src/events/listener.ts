/**
 * A listener of one event type.
 *
 * @example
 * const listener: Listener<RecourseEventMap['timeout']> = (e) => console.log(e.timeoutMs)
 */
export type Listener<E> = (event: E) => void;
