import { isSecretKey } from './secret-names.js';

/**
 * What replaces a secret in every sink's output.
 *
 * @example
 * redact({ authorization: 'Bearer x' }) // { authorization: REDACTED }
 */
export const REDACTED = '[REDACTED]';

// Keys recognisable by their shape. A prefix that cannot occur in prose (`sk-ant-`, `AIza`,
// `github_pat_`) matches anywhere, even glued to a word (`token_sk-ant-…`, `%3Dsk-ant-…`);
// a short or common one (`sk-`, `ghp_`, `eyJ`) must not follow a letter or digit, so words such
// as `task-management` stay whole.
const SHAPES: readonly RegExp[] = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  /sk-(?:ant|proj|svcacct|admin)-[A-Za-z0-9_-]{8,}/g,
  /(?<![A-Za-z0-9])sk-[A-Za-z0-9_-]{8,}/g,
  /(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}/g,
  /whsec_[A-Za-z0-9+/=]{10,}/g,
  /(?<![A-Z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Z0-9])/g,
  /AIza[0-9A-Za-z_-]{30,}/g,
  /ya29\.[0-9A-Za-z_-]{20,}/g,
  /github_pat_[A-Za-z0-9_]{20,}/g,
  /(?<![A-Za-z0-9])gh[pousr]_[A-Za-z0-9]{20,}/g,
  /glpat-[A-Za-z0-9_-]{20,}/g,
  /xox[abposr]-[A-Za-z0-9-]{10,}/g,
  /(?<![A-Za-z0-9])hf_[A-Za-z0-9]{30,}/g,
  /(?<![A-Za-z0-9])npm_[A-Za-z0-9]{36}/g,
  // JSON Web Tokens
  /(?<![A-Za-z0-9])eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
];

// `scheme://user:password@host`: the whole userinfo goes (a lone user part is often a token,
// as in `https://TOKEN@github.com`).
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>\\]+@/gi;
// `Authorization: Bearer x` anywhere, even without the header name.
const AUTH_SCHEME = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{4,}/g;
// A cookie header's value runs to the end of the line: `Cookie: a=1; b=2` is one secret.
const COOKIE = /\b((?:set-)?cookie)((?:\\?["'])?\s*[:=]\s*(?:\\?["'])?)[^\r\n"'\\]+/gi;
// `name: value`, `name=value`, `"name": "value"` (also JSON inside JSON, `\"name\":\"value\"`):
// the value is replaced when the name is a secret's (see isSecretKey). The value runs to the next
// space, quote, `&`, `,`, `;` or bracket; an auth scheme (`Bearer x`) is taken with it. A value
// whose name is not a secret's is scanned again, since it may hold a pair itself
// (`target=/v1?key=x`, `headers: x-auth=y`).
const PAIR =
  /(?<![A-Za-z0-9_.-])([A-Za-z_][A-Za-z0-9_.-]*)((?:\\?["'])?\s*[:=]\s*(?:\\?["'])?)((?:(?:Bearer|Basic|Token|Digest)\s+)?(?:\[REDACTED\]|[^\s"'&,;})\]\\<>]{1,256}))/g;
// What ends a value (the regex reads at most 256 characters of it; a secret's runs on to here).
const VALUE_END = /[\s"'&,;})\]\\<>]/g;
const PERCENT = /%[0-9A-Fa-f]{2}/;
const PERCENT_RUN = /(?:%[0-9A-Fa-f]{2})+/g;

function redactPlain(text: string): string {
  let out = text;
  for (const shape of SHAPES) out = out.replace(shape, REDACTED);
  out = out.replace(USERINFO, `$1${REDACTED}@`);
  out = out.replace(AUTH_SCHEME, `$1 ${REDACTED}`);
  out = out.replace(COOKIE, `$1$2${REDACTED}`);
  return redactPairs(out);
}

function valueEnd(text: string, from: number): number {
  VALUE_END.lastIndex = from;
  return VALUE_END.exec(text)?.index ?? text.length;
}

// The value read by the regex is bounded, so a long run of pairs whose names are not secrets
// (`a=a=a=…`), each scanned again, costs linear time, not quadratic.
function redactPairs(text: string): string {
  let out = '';
  let copied = 0;
  PAIR.lastIndex = 0;
  for (let match = PAIR.exec(text); match !== null; match = PAIR.exec(text)) {
    const [whole, name = '', separator = '', value = ''] = match;
    if (value !== REDACTED && isSecretKey(name)) {
      out += `${text.slice(copied, match.index)}${name}${separator}${REDACTED}`;
      copied = valueEnd(text, match.index + whole.length);
      PAIR.lastIndex = copied;
    } else {
      PAIR.lastIndex = match.index + name.length + separator.length;
    }
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** One level of percent-decoding; a malformed run (not UTF-8) is left as it is. */
function decodeOnce(text: string): string {
  return text.replace(PERCENT_RUN, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

/**
 * Removes secrets from free text, decoded or not:
 * - keys recognisable by shape anywhere, even glued to a word: Anthropic and OpenAI (`sk-ant-…`,
 *   `sk-proj-…`, `sk-…`), AWS `AKIA…`, Google `AIza…` and `ya29.…`, GitHub `ghp_…` and
 *   `github_pat_…`, GitLab `glpat-…`, Slack `xox…-`, Stripe, Hugging Face, npm, JWTs, PEM
 *   private keys;
 * - the userinfo of URLs (`https://bob:pass@proxy:3128` → `https://[REDACTED]@proxy:3128`);
 * - `Bearer …` and `Basic …` credentials, and a `Cookie:` header's whole value;
 * - the value of every `name: value` / `name=value` / `"name": "value"` pair whose name is a
 *   secret's (see {@link isSecretKey}: `x-functions-key: …`, `?key=…`, `"api_key": "…"`).
 * Text with percent-escapes is also checked decoded (up to three times, for `%253D`); when that
 * finds a secret the raw form hid (`%3Fkey%3Dopaque`), the decoded, redacted text is returned.
 * Prose is left alone: `monkey`, `authority` or `the token expired` change nothing; only a secret
 * name directly followed by `:` or `=` loses the one value after it.
 *
 * @example
 * redactText('401 for Authorization: Bearer abc.def') // '401 for Authorization: [REDACTED]'
 * redactText('via https://bob:pass@proxy:3128')        // 'via https://[REDACTED]@proxy:3128'
 */
export function redactText(text: string): string {
  let current = redactPlain(text);
  let shown = current;
  for (let level = 0; level < 3 && PERCENT.test(current); level++) {
    const decoded = decodeOnce(current);
    if (decoded === current) break;
    current = redactPlain(decoded);
    // Show the decoded form only when decoding revealed a secret; otherwise keep the text as it was.
    if (current !== decoded) shown = current;
  }
  return shown;
}
