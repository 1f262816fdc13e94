import type { CallContext } from '../../context/call-context.js';
import { watch } from '../../watch/watch.js';
import type { ResearchResult } from './research-orchestrator.js';

/** What a simulated subagent did on one call (for the trace). */
export type SimulatedFault = 'ok' | 'overloaded' | 'stall' | 'empty';

/** One message of a simulated subagent's stream. */
interface AgentMessage {
  type: 'progress' | 'result';
  text?: string;
  sources?: string[];
}

/** Fault rates of a simulated subagent. */
export interface SimulatedProfile {
  overloaded: number;
  stall: number;
  empty: number;
  messageGapMs: number;
  /** A request (the topic text) longer than this is refused as a real API would: a 400 context overflow. */
  contextChars?: number;
}

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      reject(signal.reason);
    }, { once: true });
  });

/**
 * An in-process subagent: an async generator of messages that, from a seeded random source,
 * sometimes throws a 529-like error, stalls between messages, or ends with an empty result.
 * Consumed under `watch` so a stall becomes a StallError.
 *
 * @example
 * const deep = simulatedSubagent('deep-research', { overloaded: 0.2, stall: 0.1, empty: 0.1, messageGapMs: 40 }, random, 250, () => {})
 */
export function simulatedSubagent(
  name: string,
  profile: SimulatedProfile,
  random: () => number,
  idleMs: number,
  onFault: (name: string, topic: string, fault: SimulatedFault, attempt: number) => void,
) {
  return async (topic: string, ctx: CallContext): Promise<ResearchResult> => {
    if (profile.contextChars !== undefined && topic.length > profile.contextChars) {
      const tokens = Math.ceil(topic.length / 4);
      throw Object.assign(new Error(`${name}: 400 prompt is too long`), {
        status: 400,
        error: { type: 'error', error: { type: 'invalid_request_error', message: `prompt is too long: ${tokens} tokens > ${profile.contextChars / 4} maximum` } },
      });
    }
    const roll = random();
    const fault: SimulatedFault =
      roll < profile.overloaded ? 'overloaded' : roll < profile.overloaded + profile.stall ? 'stall' : roll < profile.overloaded + profile.stall + profile.empty ? 'empty' : 'ok';
    onFault(name, topic, fault, ctx.attempt);
    // The subagent's own work stops when the call ends for any reason (stall, abort, done):
    // watch closes the stream, and this controller cancels the sleeps inside it.
    const work = new AbortController();
    const stop = () => work.abort(ctx.signal.reason);
    ctx.signal.addEventListener('abort', stop, { once: true });
    const signal = work.signal;
    async function* stream(): AsyncGenerator<AgentMessage> {
      yield { type: 'progress', text: `${name}: planning "${topic}"` };
      await sleep(profile.messageGapMs, signal);
      if (fault === 'overloaded') {
        throw Object.assign(new Error(`${name}: 529 Overloaded`), {
          status: 529,
          error: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
        });
      }
      yield { type: 'progress', text: `${name}: searching` };
      if (fault === 'stall') await sleep(60_000, signal); // silent: no message, no exception
      await sleep(profile.messageGapMs, signal);
      if (fault === 'empty') {
        yield { type: 'result', text: '', sources: [] };
        return;
      }
      // A request of many lines is the editor's, not a topic.
      const subject = topic.includes('\n') ? 'the brief' : topic;
      yield { type: 'result', text: `${subject}: findings from ${name}`, sources: [`https://example.org/${encodeURIComponent(subject)}`] };
    }
    let result: ResearchResult | undefined;
    try {
      for await (const m of watch(stream(), { idleMs, signal: ctx.signal })) {
        if (m.type === 'result') result = { text: m.text ?? '', sources: m.sources ?? [] };
      }
    } finally {
      ctx.signal.removeEventListener('abort', stop);
      work.abort();
    }
    if (result === undefined) throw new Error(`${name} produced no result`);
    return result;
  };
}
