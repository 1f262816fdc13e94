// @internal What a `stream-error` fault says: the real APIs' wording for the common types, and
// the HTTP status a non-streamed request gets for the same error instead.

const STATUS_OF: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  rate_limit_exceeded: 429,
  api_error: 500,
  server_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

const MESSAGES: Readonly<Record<string, string>> = {
  overloaded_error: 'Overloaded',
  api_error: 'Internal server error',
  server_error: 'The server had an error while processing your request. Sorry about that!',
  rate_limit_error: 'Rate limited. Please try again later.',
  timeout_error: 'Request timed out',
};

/** @internal The HTTP status an error type stands for (500 for types the table does not know). */
export function statusOfErrorType(type: string): number {
  return STATUS_OF[type] ?? 500;
}

/** @internal The message the API sends with an error of `type`. */
export function messageOfErrorType(type: string): string {
  return MESSAGES[type] ?? `An error of type ${type} occurred while generating the response.`;
}
