// agent-recourse/otel: OpenTelemetry spans and span events (optional peer @opentelemetry/api).
export { stopSpanEvents } from './span-events.js';
export { type TracedOptions, traced } from './traced.js';
