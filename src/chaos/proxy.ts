import {
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
} from 'node:http';
import { request as httpsRequest } from 'node:https';

// Hop-by-hop headers describe one connection, not the message, so they are never forwarded.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** @internal Checks an `upstream` option: an absolute http(s) URL, maybe with a base path. */
export function parseUpstream(upstream: string): URL {
  let url: URL;
  try {
    url = new URL(upstream);
  } catch {
    throw new TypeError(
      `upstream must be an absolute http:// or https:// URL, got ${JSON.stringify(upstream)}`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(
      `upstream must be an http:// or https:// URL, got ${JSON.stringify(upstream)}`,
    );
  }
  return url;
}

/** @internal One request to forward upstream, its body already read. */
export interface ForwardRequest {
  readonly upstream: URL;
  readonly method: string;
  /** Path and query string as the client sent them. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  readonly signal: AbortSignal;
}

/**
 * @internal Sends a request upstream and resolves with its response head (the body is still to
 * be read). The client's headers go along (its API key included), minus hop-by-hop headers;
 * `accept-encoding: identity` keeps the answer readable frame by frame for the faults.
 */
export function forward(o: ForwardRequest): Promise<IncomingMessage> {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(o.headers)) {
    // x-chaos-rule was addressed to this server, not to the upstream.
    if (
      value === undefined ||
      HOP_BY_HOP.has(name) ||
      name === 'host' ||
      name === 'content-length' ||
      name === 'x-chaos-rule'
    ) {
      continue;
    }
    headers[name] = value;
  }
  headers['accept-encoding'] = 'identity';
  if (o.body.length > 0 || o.method === 'POST') headers['content-length'] = String(o.body.length);
  const base = o.upstream.pathname.replace(/\/+$/, '');
  const target = new URL(base + o.url, o.upstream);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(target, { method: o.method, headers, signal: o.signal }, resolve);
    req.on('error', reject);
    req.end(o.body);
  });
}

/**
 * @internal Response headers to pass back to the client. Without `keepFraming` the length and
 * encoding go too, because the faults may change the body.
 */
export function upstreamHeaders(res: IncomingMessage, keepFraming: boolean): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    if (!keepFraming && (name === 'content-length' || name === 'content-encoding')) continue;
    headers[name] = value;
  }
  return headers;
}

/**
 * @internal Splits an upstream SSE body into frames (each ending with one blank line, line
 * ends normalised to `\n`), so faults count upstream events like local ones. Stopping the
 * iteration early destroys the upstream response.
 */
export async function* sseFrames(res: IncomingMessage): AsyncGenerator<string> {
  res.setEncoding('utf8');
  let buffer = '';
  // A CRLF split across two chunks must not read as two line ends.
  let carry = '';
  try {
    for await (const chunk of res as AsyncIterable<string>) {
      let text = carry + chunk;
      carry = text.endsWith('\r') ? '\r' : '';
      if (carry !== '') text = text.slice(0, -1);
      buffer += text.replace(/\r\n?/g, '\n');
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (frame.trim() !== '') yield `${frame}\n\n`;
        end = buffer.indexOf('\n\n');
      }
    }
    // An upstream that stopped mid-event: pass on exactly what it sent.
    buffer += carry === '' ? '' : '\n';
    if (buffer.trim() !== '') yield buffer;
  } finally {
    res.destroy();
  }
}

/** @internal Reads a whole upstream body as text. */
export async function readText(res: IncomingMessage): Promise<string> {
  res.setEncoding('utf8');
  let text = '';
  for await (const chunk of res as AsyncIterable<string>) text += chunk;
  return text;
}
