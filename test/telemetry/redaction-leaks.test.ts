import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { RetriesExhaustedError } from '../../src/index.js';
import { stopSpanEvents, traced } from '../../src/otel/index.js';
import { explain, explainJSON } from '../../src/telemetry/explain.js';
import { toLogLine } from '../../src/telemetry/json-logger.js';
import { REDACTED, redact, redactText } from '../../src/telemetry/redact.js';

afterAll(() => stopSpanEvents());

const exporter = new InMemorySpanExporter();
const tracer = new BasicTracerProvider({
  spanProcessors: [new SimpleSpanProcessor(exporter)],
}).getTracer('leaks');

/** Everything a sink could show of `error`: a log line, explain (text and JSON) and an OTel span. */
async function everySink(error: Error): Promise<Record<string, string>> {
  exporter.reset();
  await traced({ tracer, name: 'dep' })
    .execute(() => Promise.reject(error))
    .catch(() => {});
  const wrapped = new RetriesExhaustedError(1, [error], 'attempts');
  return {
    jsonLogger: JSON.stringify(
      toLogLine({
        type: 'giveup',
        policy: 'retry',
        at: 0,
        error,
        reason: 'attempts',
        headers: (error as { headers?: unknown }).headers,
      }),
    ),
    explain: explain(wrapped),
    explainJSON: JSON.stringify(explainJSON(wrapped)),
    otel: JSON.stringify(
      exporter
        .getFinishedSpans()
        .map((s) => ({ status: s.status, attributes: s.attributes, events: s.events })),
    ),
    redact: JSON.stringify(redact(error)),
  };
}

function expectNoLeak(outputs: Record<string, string>, secret: string): void {
  for (const [sink, text] of Object.entries(outputs)) {
    expect(text, `${sink} leaks ${secret}`).not.toContain(secret);
    expect(text, `${sink} leaks ${secret} encoded`).not.toContain(encodeURIComponent(secret));
  }
}

describe('issue 9.5: secrets that leaked through redaction', () => {
  // Each of these reached jsonLogger, explain and the OTel span status before the fix.
  const OPAQUE = 'Opaque9Secret7Value';
  const KEY = 'sk-ant-api03-Z3JlYXRLZXlJbkhlcmU0NTY3';
  it.each([
    ['URL userinfo', `connect ECONNREFUSED via https://bob:${OPAQUE}@proxy:3128`, OPAQUE],
    [
      'URL userinfo, user part only',
      `fetch https://${OPAQUE}@github.com/org/repo.git failed`,
      OPAQUE,
    ],
    ['a URL-encoded key', `GET /v1/proxy?target=%2Fv1%2Fmodels%3Fkey%3D${KEY}`, KEY],
    [
      'a URL-encoded opaque value',
      `GET /v1/proxy?target=%2Fv1%2Fmodels%3Fkey%3D${OPAQUE}%26alt%3Djson`,
      OPAQUE,
    ],
    ['a double-encoded opaque value', `GET /r?u=%252Fv1%253Faccess_token%253D${OPAQUE}`, OPAQUE],
    ['a key glued to a word', `bad token_${KEY} for this model`, KEY],
    ['an x-functions-key header in text', `403 from gateway (x-functions-key: ${OPAQUE})`, OPAQUE],
    ['an x-auth header in text', `request headers: x-auth=${OPAQUE}; accept=json`, OPAQUE],
  ])('%s', async (_what, message, secret) => {
    expect(redactText(message)).not.toContain(secret);
    expectNoLeak(await everySink(new Error(message)), secret);
  });

  it('headers such as x-functions-key and x-auth are redacted by name in every sink', async () => {
    const error = Object.assign(new Error('403'), {
      status: 403,
      headers: { 'x-functions-key': OPAQUE, 'X-Auth': `${OPAQUE}2`, 'x-request-id': 'req_1' },
    });
    const outputs = await everySink(error);
    expectNoLeak(outputs, OPAQUE);
    expect(outputs.jsonLogger).toContain('req_1');
    expect(
      redact({ headers: new Headers({ 'x-functions-key': OPAQUE, 'x-auth': OPAQUE }) }),
    ).toEqual({ headers: { 'x-auth': REDACTED, 'x-functions-key': REDACTED } });
  });

  it('a value of any length after a secret name goes whole, and the text after it stays', () => {
    const long = 'Q'.repeat(5_000);
    expect(redactText(`x-api-key: ${long} tail`)).toBe(`x-api-key: ${REDACTED} tail`);
    expect(redactText(`a=1&b=2&token=${long}&c=3`)).toBe(`a=1&b=2&token=${REDACTED}&c=3`);
  });

  it('userinfo is replaced as a whole and the rest of the URL stays', () => {
    expect(redactText('via https://bob:pass@proxy:3128/path?q=1')).toBe(
      `via https://${REDACTED}@proxy:3128/path?q=1`,
    );
    expect(redactText('no credentials in https://proxy:3128/a@b or me@example.com')).toBe(
      'no credentials in https://proxy:3128/a@b or me@example.com',
    );
  });
});

// ---- the property: a generated secret in every position never reaches a sink ----

const SECRET_PARTS = [
  'key',
  'token',
  'auth',
  'secret',
  'password',
  'cookie',
  'credential',
  'signature',
];
const WORDS = [
  'request',
  'failed',
  'upstream',
  'model',
  'the',
  'proxy',
  'gateway',
  'retry',
  'monkey',
  'authority',
  'keyboard',
  'tokens',
  'task-management-2024',
  'desk-lamp-v2',
  'ok',
];

/** A header or field name that the rule says is a secret's: `x-functions-key`, `MyAuthToken`, `api_secret`. */
const secretName = fc
  .tuple(
    fc.constantFrom('', 'x-', 'X-', 'my', 'api_', 'client-', 'Ocp-Apim-Subscription-', 'proxy-'),
    fc.constantFrom(...SECRET_PARTS),
    fc.constantFrom('', 's', '-id', '_value', 'Id', '-v2'),
  )
  // `tokens` (plural) is a count, not a secret (the rule's documented exception)
  .filter(([, part, suffix]) => !(part === 'token' && suffix === 's'))
  .map(
    ([prefix, part, suffix]) =>
      `${prefix}${prefix.endsWith('my') ? part[0]!.toUpperCase() + part.slice(1) : part}${suffix}`,
  );

/** An opaque secret: nothing about its shape gives it away. Digits and both cases, so prose never contains it. */
const opaque = fc
  .tuple(
    fc.stringMatching(/^[a-z]{4,10}$/),
    fc.stringMatching(/^[A-Z]{2,6}$/),
    fc.stringMatching(/^[0-9]{2,6}$/),
    fc.stringMatching(/^[A-Za-z0-9]{0,12}$/),
  )
  .map((parts) => parts.join(''));

/** A key recognisable by its shape. */
const shaped = fc.oneof(
  opaque.map((s) => `sk-ant-api03-${s}`),
  opaque.map((s) => `sk-proj-${s}`),
  fc.stringMatching(/^[A-Z0-9]{16}$/).map((s) => `AKIA${s}`),
  fc.stringMatching(/^[A-Za-z0-9]{36}$/).map((s) => `ghp_${s}`),
  fc.stringMatching(/^[A-Za-z0-9_-]{35}$/).map((s) => `AIza${s}`),
);

const prose = fc.array(fc.constantFrom(...WORDS), { maxLength: 6 }).map((w) => w.join(' '));

type Placement = (name: string, secret: string) => string;
/** Every place a secret can sit in free text next to its name. */
const TEXT_PLACES: Record<string, Placement> = {
  colon: (n, s) => `${n}: ${s}`,
  equals: (n, s) => `${n}=${s}`,
  json: (n, s) => `{"${n}":"${s}","model":"x"}`,
  'json in json': (n, s) => JSON.stringify(JSON.stringify({ [n]: s })),
  query: (n, s) => `https://api.example.com/v1?alt=json&${n}=${s}&q=1`,
  'encoded query': (n, s) => `/proxy?u=${encodeURIComponent(`/v1?${n}=${s}&x=1`)}`,
  'double-encoded query': (n, s) =>
    `/proxy?u=${encodeURIComponent(encodeURIComponent(`/v1?${n}=${s}`))}`,
  'header line': (n, s) => `> ${n}: Bearer ${s}\r\n> accept: */*`,
  userinfo: (_n, s) => `https://bob:${s}@proxy.internal:3128`,
  'userinfo, user only': (_n, s) => `git clone https://${s}@github.com/o/r.git`,
  'encoded userinfo': (_n, s) => `next=${encodeURIComponent(`https://bob:${s}@proxy:3128/`)}`,
};
/** Every place a shaped key can sit without any name next to it. */
const SHAPE_PLACES: Record<string, (s: string) => string> = {
  alone: (s) => s,
  'glued with _': (s) => `token_${s}`,
  'glued after =': (s) => `k=${s}`,
  'after an encoded =': (s) => `%3Fkey%3D${s}`,
  'in parentheses': (s) => `(used ${s})`,
  'in JSON': (s) => JSON.stringify({ note: `key was ${s}.` }),
};

/** Every place a secret can sit in a thrown value's fields. */
function errorCarrying(name: string, secret: string, where: number): Error {
  const error = new Error('request failed') as Error & Record<string, unknown>;
  switch (where) {
    case 0:
      error.headers = { [name]: secret, 'content-type': 'application/json' };
      break;
    case 1:
      error.request = { headers: new Headers({ [name.replace(/[^A-Za-z0-9-]/g, '')]: secret }) };
      break;
    case 2:
      error.config = { nested: { deeper: [{ [name]: secret }] } };
      break;
    case 3:
      error.meta = new Map([[name, secret]]);
      break;
    default:
      error.cause = Object.assign(new Error('inner'), {
        response: { headers: { [name]: secret } },
      });
  }
  return error;
}

describe('property: a generated secret in every position reaches no sink', () => {
  it('next to a secret name, in text', async () => {
    await fc.assert(
      fc.asyncProperty(
        secretName,
        opaque,
        fc.constantFrom(...Object.keys(TEXT_PLACES)),
        prose,
        prose,
        async (name, secret, place, before, after) => {
          const text = `${before} ${TEXT_PLACES[place]!(name, secret)} ${after}`;
          expect(redactText(text), text).not.toContain(secret);
          expectNoLeak(await everySink(new Error(text)), secret);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a key recognisable by shape, anywhere in text', async () => {
    await fc.assert(
      fc.asyncProperty(
        shaped,
        fc.constantFrom(...Object.keys(SHAPE_PLACES)),
        prose,
        prose,
        async (key, place, before, after) => {
          const text = `${before} ${SHAPE_PLACES[place]!(key)} ${after}`;
          expectNoLeak(await everySink(new Error(text)), key);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('under a secret name, in headers, nested fields, Maps and causes', async () => {
    await fc.assert(
      fc.asyncProperty(
        secretName,
        opaque,
        fc.integer({ min: 0, max: 4 }),
        async (name, secret, where) => {
          expectNoLeak(await everySink(errorCarrying(name, secret, where)), secret);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('prose is not mangled beyond the rule', () => {
  const PROSE_WORDS = [
    'the',
    'monkey',
    'authority',
    'author',
    'keyboard',
    'token',
    'tokens',
    'secret',
    'secretary',
    'cookies',
    'keys',
    'auth',
    'password',
    'expired',
    'task-management-2024',
    'desk-lamp',
  ];
  const PUNCTUATION = [' ', ', ', '. ', '! ', ' (', ') ', '; ', ' - '];
  const sentence = fc
    .array(fc.tuple(fc.constantFrom(...PROSE_WORDS), fc.constantFrom(...PUNCTUATION)), {
      minLength: 1,
      maxLength: 12,
    })
    .map((parts) => parts.map(([w, p]) => w + p).join(''));

  it('words such as monkey, authority, token or secret, without `:` or `=` after them, change nothing', () => {
    fc.assert(
      fc.property(sentence, (text) => {
        expect(redactText(text)).toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  it('a secret name followed by `:` or `=` loses exactly the one value after it', () => {
    fc.assert(
      fc.property(
        sentence,
        fc.constantFrom('monkey', 'authority', 'token', 'x-api-key'),
        fc.constantFrom(': ', '='),
        fc.stringMatching(/^[a-z0-9]{1,12}$/),
        sentence,
        (before, name, sep, value, after) => {
          const text = `${before} ${name}${sep}${value} ${after}`;
          expect(redactText(text)).toBe(`${before} ${name}${sep}${REDACTED} ${after}`);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('token counts, error labels and ordinary URLs are kept', () => {
    const text =
      'max_tokens: 100000 > 64000; type authentication_error: invalid x; see https://docs.example.com/errors?lang=en#auth';
    expect(redactText(text)).toBe(text);
  });
});
