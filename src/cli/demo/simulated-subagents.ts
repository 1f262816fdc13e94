import { systemClock, type TimerClock } from '../../clock/clock.js';
import type { CallContext } from '../../context/call-context.js';
import { reportRequestTokens } from '../../governor/attempt-signals.js';
import type { AdaptiveStallOptions } from '../../options/stall-options.js';
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
  /** Calls at the start that all throw a 529 (an outage: the breaker opens, the ladder falls back). */
  outage?: number;
  /**
   * After the outage, the faults of the next calls in this order, whatever the rolls: the run shows
   * each kind however a loaded machine reorders the calls (which the rolls depend on).
   */
  afterOutage?: readonly SimulatedFault[];
  overloaded: number;
  stall: number;
  empty: number;
  messageGapMs: number;
  /** The wait for the first message: usually `firstItemMs`, `tailRate` of calls `tailMs` (a latency tail). */
  firstItem: { ms: number; tailMs: number; tailRate: number };
  /** A request (the topic text) longer than this is refused as a real API would: a 400 context overflow. */
  contextChars?: number;
}

/** Progress messages between the plan and the answer. */
const SOURCES_READ = 20;

/**
 * An in-process subagent: an async generator of messages that, from a seeded random source,
 * sometimes throws a 529-like error, stalls between messages, or ends with an empty result.
 * Its first message sometimes comes late (a latency tail, for the hedge). Its sleeps and its `watch`
 * run on `clock` (default the system clock). Consumed under `watch`
 * with adaptive limits (learned under `name`), so a stall becomes a StallError.
 *
 * @example
 * const deep = simulatedSubagent('deep-research', { overloaded: 0.2, stall: 0.1, empty: 0.1, messageGapMs: 2, firstItem: { ms: 25, tailMs: 250, tailRate: 0.1 } }, random, { floorMs: 300, capMs: 500 }, () => {})
 */
export function simulatedSubagent(
  name: string,
  profile: SimulatedProfile,
  random: () => number,
  stall: AdaptiveStallOptions,
  onFault: (name: string, topic: string, fault: SimulatedFault, attempt: number) => void,
  clock: TimerClock = systemClock,
) {
  const sleep = (ms: number, signal: AbortSignal) => clock.sleep(ms, signal);
  let outageLeft = profile.outage ?? 0;
  const scripted = [...(profile.afterOutage ?? [])];
  return async (topic: string, ctx: CallContext): Promise<ResearchResult> => {
    if (profile.contextChars !== undefined && topic.length > profile.contextChars) {
      const tokens = Math.ceil(topic.length / 4);
      throw Object.assign(new Error(`${name}: 400 prompt is too long`), {
        status: 400,
        error: {
          type: 'error',
          error: {
            type: 'invalid_request_error',
            message: `prompt is too long: ${tokens} tokens > ${profile.contextChars / 4} maximum`,
          },
        },
      });
    }
    const roll = random();
    const down = outageLeft > 0;
    if (down) outageLeft--;
    const next = down ? undefined : scripted.shift();
    const fault: SimulatedFault =
      next !== undefined
        ? next
        : down || roll < profile.overloaded
          ? 'overloaded'
          : roll < profile.overloaded + profile.stall
            ? 'stall'
            : roll < profile.overloaded + profile.stall + profile.empty
              ? 'empty'
              : 'ok';
    const firstMs =
      random() < profile.firstItem.tailRate ? profile.firstItem.tailMs : profile.firstItem.ms;
    onFault(name, topic, fault, ctx.attempt);
    // What a request of this prompt would carry: a hedge reports it for a request it aborts.
    reportRequestTokens(Math.ceil((topic.length + 200) / 4));
    // The subagent's own work stops when the call ends for any reason (stall, abort, done):
    // watch closes the stream, and this controller cancels the sleeps inside it.
    const work = new AbortController();
    const stop = () => work.abort(ctx.signal.reason);
    ctx.signal.addEventListener('abort', stop, { once: true });
    const signal = work.signal;
    async function* stream(): AsyncGenerator<AgentMessage> {
      await sleep(firstMs, signal);
      yield { type: 'progress', text: `${name}: planning "${topic}"` };
      await sleep(profile.messageGapMs, signal);
      if (fault === 'overloaded') {
        throw Object.assign(new Error(`${name}: 529 Overloaded`), {
          status: 529,
          error: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
        });
      }
      // Found sources stream in, one message each, as a model's text deltas would.
      for (let i = 1; i <= SOURCES_READ; i++) {
        yield { type: 'progress', text: `${name}: reading source ${i}` };
        if (fault === 'stall' && i === 2) await sleep(60_000, signal); // silent: no message, no exception
        await sleep(profile.messageGapMs, signal);
      }
      if (fault === 'empty') {
        yield { type: 'result', text: '', sources: [] };
        return;
      }
      // A request of many lines is the editor's, not a topic.
      const subject = topic.includes('\n') ? 'the brief' : topic;
      yield {
        type: 'result',
        text: `${subject}: findings from ${name}`,
        sources: [`https://example.org/${encodeURIComponent(subject)}`],
      };
    }
    let result: ResearchResult | undefined;
    try {
      for await (const m of watch(stream(), {
        firstItemMs: 'adaptive',
        idleMs: 'adaptive',
        adaptive: stall,
        name,
        signal: ctx.signal,
        clock,
      })) {
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
