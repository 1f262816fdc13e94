import { AsyncLocalStorage } from 'node:async_hooks';
import type { RecourseEvent } from '../events/event-types.js';

const current = new AsyncLocalStorage<string>();

/**
 * @internal Runs `fn(...args)` as work for dependency `name`, so events emitted by unnamed policies
 * inside it (a `watch` stall, an unnamed retry) can be attributed to that dependency.
 */
export function runForDependency<A extends unknown[], R>(name: string, fn: (...args: A) => R, ...args: A): R {
  return current.run(name, fn, ...args);
}

/** @internal The dependency whose instrumented call is running, if any. */
export function currentDependency(): string | undefined {
  return current.getStore();
}

/**
 * @internal Events fired from the shared deadline queue's timer, which runs in the async context of
 * whichever call armed it: the ambient context says nothing about them.
 */
export const CONTEXT_FREE_EVENTS: ReadonlySet<string> = new Set(['timeout']);

/**
 * @internal The dependency an event is about: its policy's `name`, else the instrumented call it
 * was emitted inside. (diagnostics_channel delivers synchronously, in the emitter's async context.)
 */
export function dependencyOf(event: RecourseEvent): string | undefined {
  if (typeof event.name === 'string') return event.name;
  return CONTEXT_FREE_EVENTS.has(event.type) ? undefined : current.getStore();
}
