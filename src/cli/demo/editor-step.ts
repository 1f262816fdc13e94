import { isReplanRequiredError } from '../../errors/replan-required-error.js';
import { pipeline } from '../../pipeline/pipeline.js';
import { byClass } from '../../recovery/by-class.js';
import { retry } from '../../retry/retry.js';
import { exponential } from '../../backoff/exponential.js';
import { instrument } from '../../telemetry/instrument.js';
import { errorText } from '../../text/safe-text.js';
import type { CliOutput } from '../command.js';
import type { DemoTime } from './demo-backend.js';
import { wrapLine } from './wrap-line.js';
import { validate } from '../../validate/validate.js';
import type { OrchestratorTiming, ResearchResult, Subagent } from './research-orchestrator.js';

/** One topic's answer, as the editor gets it. */
export interface Finding {
  topic: string;
  text: string;
  servedBy: string;
}

/** What the editor step did. */
export interface EditorOutcome {
  /** The brief, when one was written. */
  brief: string | undefined;
  /** Re-plans the orchestrator made (a logical failure handed back by byClass). */
  replans: number;
  /** Why the first plan could not work, in byClass's words. */
  replanSummary: string | undefined;
}

/**
 * The naive first plan sends every transcript along; a model's context window is this many
 * characters (about 3,000 tokens, which the demo's chaos scenario and simulated subagents enforce),
 * so it overflows and the second plan, without the transcripts, fits.
 */
export const EDITOR_CONTEXT_CHARS = 12_000;
const TRANSCRIPT_CHARS = 16_000;

function transcripts(findings: readonly Finding[]): string {
  const lines: string[] = [];
  for (let i = 0; lines.join('\n').length < TRANSCRIPT_CHARS; i++) {
    const f = findings[i % Math.max(1, findings.length)];
    lines.push(
      `[transcript ${i + 1}] ${f?.servedBy ?? 'orchestrator'} on "${f?.topic ?? 'the brief'}": ${f?.text.replace(/\s+/g, ' ') ?? 'no findings'}`,
    );
  }
  return lines.join('\n');
}

/** The first plan: every finding and every transcript. */
export function fullBrief(findings: readonly Finding[]): string {
  return `Write one customer brief from these findings and their full transcripts.\n\n${findings.map((f) => `- ${f.topic}: ${f.text}`).join('\n')}\n\n${transcripts(findings)}`;
}

/** The re-plan: the findings only, each cut short, with the reason the first plan failed. */
export function shortBrief(findings: readonly Finding[], why: string): string {
  const items = findings.map((f) => `- ${f.topic}: ${f.text.replace(/\s+/g, ' ').slice(0, 160)}`);
  return `Write one customer brief from these findings (transcripts left out: ${why.slice(0, 200)}).\n\n${items.join('\n')}`;
}

/**
 * The orchestrator's last step: one brief from every finding, written by the quick subagent
 * under `byClass`. A logical failure (the request overflows the model's context window) is not
 * retried: byClass hands it back as `ReplanRequiredError`, whose summary the orchestrator reads
 * and answers with a smaller plan.
 *
 * @example
 * const { brief, replans } = await editBrief(out, backend.subagents.quick, findings, backend.timing)
 */
export async function editBrief(
  out: CliOutput,
  writer: Subagent,
  findings: readonly Finding[],
  timing: OrchestratorTiming,
  time?: DemoTime,
): Promise<EditorOutcome> {
  // On a terminal every line keeps to its width (a re-plan's summary is a paragraph).
  const width = out.isTTY === true && out.columns !== undefined ? out.columns - 1 : undefined;
  const w = (s: string) => out.write(`${wrapLine(s, width, ' '.repeat(14))}\n`);
  // The retry inside owns transient failures and empty answers (a second try often helps); what
  // it gives up on, or a request that cannot work, reaches byClass.
  const editor = pipeline(
    instrument({ name: 'editor' }),
    byClass({ name: 'editor', transient: 'fail' }),
    retry({
      name: 'editor',
      maxAttempts: 3,
      backoff: exponential({ baseMs: timing.backoffBaseMs, maxMs: timing.backoffMaxMs }),
      ...(time ? { clock: time.clock, random: time.random } : {}),
    }),
    validate((r: ResearchResult) => r.text.trim() !== '' || 'empty brief'),
  );
  w('');
  w(
    'editor — one brief from every finding; byClass hands a logical failure back to the orchestrator',
  );
  const plans = [fullBrief(findings)];
  const outcome: EditorOutcome = { brief: undefined, replans: 0, replanSummary: undefined };
  for (let plan = 0; plan < plans.length && plan < 3; plan++) {
    const request = plans[plan]!;
    w(
      `  plan ${plan + 1}      ${plan === 0 ? 'the findings with their full transcripts' : 'the findings only, transcripts left out'} (${request.length.toLocaleString('en')} characters)`,
    );
    try {
      const answer = await editor.execute((ctx) => writer(request, ctx));
      outcome.brief = answer.text;
      w(`  ✔ brief     ${answer.text.replace(/\s+/g, ' ').slice(0, 100)}`);
    } catch (error) {
      if (!isReplanRequiredError(error)) {
        w(`  ✘ failed    ${errorText(error)}`);
        break;
      }
      outcome.replans++;
      outcome.replanSummary ??= error.summary;
      w(`  ↻ re-plan   ${error.summary}`);
      plans.push(shortBrief(findings, error.summary));
    }
  }
  return outcome;
}
