// agent-recourse/testing: helpers for running policies on virtual time in tests.
export { VirtualClock } from './virtual-clock.js';
export {
  type ConformanceMatchers,
  type ConformanceOptions,
  type ConformanceTestApi,
  storeConformance,
} from '../store/conformance.js';
export {
  type BreakerConformanceOptions,
  breakerStoreConformance,
} from '../store/breaker-conformance.js';
export {
  type RateLimitConformanceOptions,
  rateLimitStoreConformance,
} from '../store/rate-limit-conformance.js';
export { seededRandom } from '../random/seeded-random.js';
