// The governor's vocabulary of rate limits. Which headers report them is each provider's dialect
// (src/dialects): the governor names no vendor.
export {
  RATE_LIMIT_DIMENSIONS,
  type RateLimitDimension,
  type RateLimitReading,
  type RateLimitReadings,
} from '../dialects/dialect.js';
