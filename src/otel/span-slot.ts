import type { Span } from '@opentelemetry/api';
import { ScopeSlot } from '../context/scope.js';

/**
 * @internal The recourse span a call runs under, carried on the call's scope (the one carrier of
 * per-call context): parent/child spans and span events work even when no OpenTelemetry context
 * manager is registered, and an event fired from a shared timer still finds its own call's span.
 */
export const SPAN: ScopeSlot<Span> = new ScopeSlot<Span>('recourse.otel.span');
