import { AsyncLocalStorage } from 'node:async_hooks';
import type { Span } from '@opentelemetry/api';

// The recourse span the current code runs under. Kept apart from the OpenTelemetry context so
// parent/child spans and span events work even when no context manager is registered.
const store = new AsyncLocalStorage<Span>();

/** @internal */
export function currentRecourseSpan(): Span | undefined {
  return store.getStore();
}

/** @internal */
export function runInSpan<A extends unknown[], R>(span: Span, fn: (...args: A) => R, ...args: A): R {
  return store.run(span, fn, ...args);
}
