import {
  type ChaosServer,
  type ChaosServerOptions,
  startChaosServer,
} from '../../src/chaos/index.js';

/** One parsed SSE frame; `comment` holds a comment line such as `: ping`. */
export interface SseEvent {
  event: string | null;
  data: string;
  comment?: string;
}

/**
 * A small SSE parser, as a plain `fetch` client would write one. Only complete frames count: a
 * body cancelled mid-frame does not yield half an event.
 */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const frame of text.split('\n\n').slice(0, -1)) {
    if (frame.trim() === '') continue;
    const event: SseEvent = { event: null, data: '' };
    const data: string[] = [];
    for (const line of frame.split('\n')) {
      if (line.startsWith(':')) event.comment = line;
      else if (line.startsWith('event:')) event.event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
    }
    event.data = data.join('\n');
    events.push(event);
  }
  return events;
}

/** The JSON `data` of every event that has some (`[DONE]` excluded). */
export function dataOf(events: readonly SseEvent[]): Array<Record<string, unknown>> {
  return events
    .filter((e) => e.data !== '' && e.data !== '[DONE]')
    .map((e) => JSON.parse(e.data) as Record<string, unknown>);
}

/**
 * Reads a response body until it ends or nothing arrives for `idleMs` (a stall); in the second
 * case the body is cancelled, which closes the connection.
 */
export async function readBody(
  res: Response,
  idleMs = 250,
): Promise<{ text: string; ended: boolean }> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const idle = new Promise<'idle'>((resolve) => {
      timer = setTimeout(() => resolve('idle'), idleMs);
    });
    const chunk = await Promise.race([reader.read(), idle]);
    clearTimeout(timer);
    if (chunk === 'idle') {
      await reader.cancel().catch(() => {});
      return { text, ended: false };
    }
    if (chunk.done) return { text, ended: true };
    text += decoder.decode(chunk.value, { stream: true });
  }
}

/** POSTs JSON (or a raw string) to the chaos server. */
export function post(
  server: ChaosServer,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(server.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Runs `fn` against a fresh server and always closes it. */
export async function withChaos<T>(
  options: ChaosServerOptions,
  fn: (server: ChaosServer) => Promise<T>,
): Promise<T> {
  const server = await startChaosServer(options);
  try {
    return await fn(server);
  } finally {
    await server.close();
  }
}

export const anthropicBody = (extra: Record<string, unknown> = {}) => ({
  model: 'claude-test',
  max_tokens: 64,
  messages: [{ role: 'user', content: 'Hello there' }],
  ...extra,
});

export const openaiBody = (extra: Record<string, unknown> = {}) => ({
  model: 'gpt-test',
  messages: [{ role: 'user', content: 'Hello there' }],
  ...extra,
});

/** Reads a body for `ms` whatever happens (keepalive pings never go idle), then cancels it. */
export async function readFor(
  res: Response,
  ms: number,
): Promise<{ text: string; ended: boolean }> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const deadline = Date.now() + ms;
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), Math.max(0, deadline - Date.now()));
    });
    const chunk = await Promise.race([reader.read(), late]);
    clearTimeout(timer);
    if (chunk === 'late') {
      await reader.cancel().catch(() => {});
      return { text, ended: false };
    }
    if (chunk.done) return { text, ended: true };
    text += decoder.decode(chunk.value, { stream: true });
  }
}
