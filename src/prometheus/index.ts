// agent-recourse/prometheus: prom-client metrics for recourse events (optional peer prom-client).
export {
  BREAKER_STATE_VALUE,
  METRICS,
  type MetricName,
  type MetricSpec,
  type PrometheusMetrics,
  type PrometheusOptions,
  prometheusMetrics,
} from './metrics.js';
