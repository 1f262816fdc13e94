import { writeFile } from 'node:fs/promises';
import { escalate } from '../../recovery/escalate.js';
import { sqliteStore } from '../../sqlite/sqlite-store.js';
import type { CliOutput } from '../command.js';
import { wrapLine } from './wrap-line.js';

/** Where the approval step keeps its escalation and writes what it publishes. */
export interface ApprovalSetup {
  /** The SQLite file a second terminal decides in (`recourse escalations approve ID --store sqlite:PATH`). */
  store: string;
  /** Where the brief is "published" once approved. */
  publishTo: string;
  /** Undecided this long, the escalation expires as denied. Default 10 minutes. */
  ttlMs?: number;
  /** How often the waiting demo looks for the decision, ms. Default 500. */
  pollMs?: number;
}

/** How the approval step ended. */
export type ApprovalOutcome =
  | { published: true; by: string; id: string }
  | { published: false; why: string; id: string };

/**
 * The orchestrator's high-risk tool call: publishing the brief to customers. It does not run until
 * a person approves it: an escalation is recorded in a SQLite file, the demo prints the command that
 * approves it from a second terminal, and waits. Approved, it publishes once; denied or expired,
 * never.
 *
 * @example
 * await askToPublish(process.stdout, brief, { store: '/tmp/demo/escalations.db', publishTo: '/tmp/demo/published.md' })
 */
export async function askToPublish(
  out: CliOutput,
  brief: string,
  setup: ApprovalSetup,
): Promise<ApprovalOutcome> {
  // Prose keeps to a terminal's width; the commands stay whole lines, to be copied as they are.
  const width = out.isTTY === true && out.columns !== undefined ? out.columns - 1 : undefined;
  const w = (s: string) => out.write(`${wrapLine(s, width, '    ')}\n`);
  const command = (s: string) => out.write(`${s}\n`);
  const store = sqliteStore({ path: setup.store });
  try {
    const risky = escalate({ store, ttlMs: setup.ttlMs ?? 600_000, pollMs: setup.pollMs ?? 500 });
    const request = {
      action: 'publish_brief',
      args: { channel: '#customers', file: setup.publishTo, characters: brief.length },
      key: `demo-publish:${setup.publishTo}`,
    };
    const reason = 'publishing to customers is a high-risk action: a person approves it first';
    w('');
    w('approval — a high-risk tool call waits for a person (escalate().ask)');
    let verdict = await risky.ask(request, { reason });
    const id = verdict.record.id;
    if (verdict.decision === 'pending') {
      w(`  publish_brief → #customers is waiting for approval: escalation ${id}`);
      w(
        `  approve it from a second terminal (until ${new Date(verdict.record.expiresAt).toISOString()}):`,
      );
      command(`    recourse escalations approve ${id} --store sqlite:${setup.store}`);
      w('  or deny it:');
      command(`    recourse escalations deny ${id} --store sqlite:${setup.store}`);
      verdict = await risky.ask(request, { wait: true, reason });
    }
    if (verdict.decision !== 'approved') {
      w(`  ✘ not published: ${verdict.message}`);
      return { published: false, why: verdict.message, id };
    }
    await writeFile(setup.publishTo, `${brief}\n`);
    const by = verdict.record.decidedBy ?? 'a person';
    w(`  ✔ published to ${setup.publishTo} (approved by ${by})`);
    return { published: true, by, id };
  } finally {
    await store.close();
  }
}
