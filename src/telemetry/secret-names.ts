// Which names (header names, object keys, `name=value` labels in text) carry secrets. One rule
// for every sink: compared lower-case with separators removed, so `X-Api-Key`, `x_api_key` and
// `xApiKey` are all `xapikey`.

// `*key*`, `*token*`, `*auth*`, `*secret*`, cookies, passwords and the like anywhere in the name:
// `x-functions-key`, `x-auth`, `proxy-authorization`, `ocp-apim-subscription-key`, `AccountKey`.
const SECRET_PART =
  /key|token|auth|secret|passw|pwd|cookie|credential|signature|sessionid|bearer|jwt/;
// Short names that are secrets only when they are the whole name (`sig` of an Azure SAS URL).
const SECRET_WHOLE = new Set(['sig', 'pass', 'sas']);
// recourse's own field: a hash of the call's parts, logged so attempts can be correlated.
const NOT_SECRET = new Set(['idempotencykey']);

/**
 * True when a header name, object key or `name=value` label names a secret. The rule: the name,
 * lower-cased with separators removed, contains `key`, `token`, `auth`, `secret`, `passw`, `pwd`,
 * `cookie`, `credential`, `signature`, `sessionid`, `bearer` or `jwt` (or is exactly `sig`, `pass`
 * or `sas`). Three exceptions keep the logs useful: token *counts* (`maxTokens`, `input_tokens`:
 * the plural `tokens`), labels of errors (`authentication_error`) and `idempotencyKey`. The rule
 * deliberately errs towards redacting: `monkey`, `author` and `authority` as names are secret too
 * (as words in prose they are left alone: see `redactText`).
 *
 * @example
 * isSecretKey('X-Functions-Key') // true
 * isSecretKey('max_tokens')      // false
 */
export function isSecretKey(key: string): boolean {
  const name = key.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (NOT_SECRET.has(name) || name.endsWith('error') || name.endsWith('errors')) return false;
  if (SECRET_WHOLE.has(name)) return true;
  return SECRET_PART.test(name.replace(/tokens/g, ''));
}
