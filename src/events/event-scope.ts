import type { Scope } from '../context/scope.js';
import type { RecourseEvent } from './recourse-event.js';

// The scope of the call an event belongs to rides on the published event under a symbol, not
// enumerable: sinks that copy or serialise events never see it, while recourse's own sinks (OTel
// span events) find the call's span on it, even for events fired from a timer shared by many calls.
const SCOPE: unique symbol = Symbol('recourse.scope');

/** @internal Stamps the call's scope on an event about to be published. */
export function stampScope(event: object, scope: Scope | undefined): void {
  if (scope !== undefined) Object.defineProperty(event, SCOPE, { value: scope });
}

/** @internal The scope of the call an event was emitted for, if it was emitted within one. */
export function scopeOfEvent(event: object): Scope | undefined {
  return (event as { [SCOPE]?: Scope })[SCOPE];
}

/**
 * @internal The dependency an event is about: its `name`, which the emitter set from the policy's
 * own name or, failing that, from the call it ran in (a named pipeline, `instrument({ name })`).
 */
export function dependencyOf(event: RecourseEvent): string | undefined {
  return typeof event.name === 'string' ? event.name : undefined;
}

const callIds = new WeakMap<Scope, string>();
let lastCallId = 0;

/**
 * @internal The id of the logical call an event belongs to: one per outermost call (see
 * `Scope.root`), `"<pid>.<n>"` so logs of several processes can be merged. Undefined for events
 * outside any call, and while no sink was attached when the call started.
 */
export function callIdOf(event: object): string | undefined {
  const scope = scopeOfEvent(event);
  if (scope === undefined) return undefined;
  const root = scope.root;
  if (root.shared) return undefined;
  let id = callIds.get(root);
  if (id === undefined) {
    id = `${(globalThis as { process?: { pid?: number } }).process?.pid ?? 0}.${++lastCallId}`;
    callIds.set(root, id);
  }
  return id;
}
