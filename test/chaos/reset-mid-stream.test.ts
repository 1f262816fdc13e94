import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/chaos/index.js';
import { anthropicBody, openaiBody, parseSse, post, withChaos } from './helpers.js';

/** Reads the body until it ends or fails; returns what arrived and how it ended. */
async function readAll(res: Response): Promise<{ text: string; error: unknown }> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) return { text, error: undefined };
      text += decoder.decode(chunk.value, { stream: true });
    }
  } catch (error) {
    return { text, error };
  }
}

describe('reset with afterEvents: a connection reset mid-stream', () => {
  it('sends that many events, then the socket goes without a clean end (Anthropic and OpenAI SSE)', async () => {
    const scenario = { rules: [{ fault: { kind: 'reset' as const, afterEvents: 4 } }] };
    await withChaos({ scenario, answers: { '*': { textTokens: 200 } } }, async (chaos) => {
      for (const [path, body] of [
        ['/v1/messages', anthropicBody({ stream: true })],
        ['/v1/chat/completions', openaiBody({ stream: true })],
      ] as const) {
        const res = await post(chaos, path, body);
        expect(res.status).toBe(200);
        const { text, error } = await readAll(res);
        expect(parseSse(text)).toHaveLength(4);
        expect(error, `${path}: the body must fail, not end`).toBeInstanceOf(Error);
      }
      expect(chaos.requests.map((r) => [r.fault, r.status])).toEqual([
        ['reset', 200],
        ['reset', 200],
      ]);
      // A JSON answer has no events: the socket is destroyed without an answer, as without afterEvents.
      await expect(post(chaos, '/v1/messages', anthropicBody())).rejects.toThrow();
    });
  });

  it('parseScenario takes afterEvents for reset (a count or a distribution) and nothing else', () => {
    expect(
      parseScenario({ rules: [{ fault: { kind: 'reset', afterEvents: { uniform: [5, 50] } } }] })
        .rules![0]!.fault,
    ).toEqual({
      kind: 'reset',
      afterEvents: { uniform: [5, 50] },
    });
    expect(() => parseScenario({ rules: [{ fault: { kind: 'reset', intervalMs: 5 } }] })).toThrow(
      /not a field of a reset fault \(allowed: afterEvents\)/,
    );
  });
});
