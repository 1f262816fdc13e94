import { userInfo } from 'node:os';
import { isEscalationDecisionError } from '../errors/escalation-decision-error.js';
import { escalations } from '../recovery/escalations.js';
import type { EscalationRecord, EscalationState } from '../store/escalation-store.js';
import { redactText } from '../telemetry/redact-text.js';
import { errorText, textOf } from '../text/safe-text.js';
import { type CliIo, type Command, type CommandGroup, command, usageError } from './command.js';
import { booleanFlag, choiceFlag, integerFlag, nameFlag, textFlag } from './flags.js';
import {
  describeStore,
  openStore,
  parseStoreSpec,
  STORE_FORMS,
  type StoreSpec,
  storeFlag,
} from './store-spec.js';

const STATES: readonly EscalationState[] = ['pending', 'approved', 'denied', 'expired'];

/** The store named by `--store`, else by `RECOURSE_STORE`; a usage error when neither says. */
function storeOf(name: string, given: StoreSpec | undefined, io: CliIo): StoreSpec | number {
  if (given !== undefined) return given;
  const env = io.env.RECOURSE_STORE;
  if (env === undefined || env === '')
    return usageError(io, name, `say which store: --store URL or RECOURSE_STORE (${STORE_FORMS})`);
  try {
    return parseStoreSpec(env);
  } catch (error) {
    return usageError(io, name, `RECOURSE_STORE ${textOf(error)}, got ${JSON.stringify(env)}`);
  }
}

/** Opens the store, runs `work` on the escalations in it, closes it; driver failures exit 1. */
async function withDesk(
  name: string,
  spec: StoreSpec,
  io: CliIo,
  work: (desk: ReturnType<typeof escalations>, where: string) => Promise<number>,
): Promise<number> {
  const where = describeStore(spec);
  let opened: Awaited<ReturnType<typeof openStore>>;
  try {
    opened = await openStore(spec);
  } catch (error) {
    io.stderr.write(`recourse ${name}: cannot open ${where}: ${redactText(errorText(error))}\n`);
    return 1;
  }
  try {
    return await work(escalations(opened.store), where);
  } catch (error) {
    io.stderr.write(
      `recourse ${name}: ${redactText(isEscalationDecisionError(error) ? error.message : errorText(error))}${isEscalationDecisionError(error) && error.problem === 'unknown' ? ` in ${where}` : ''}\n`,
    );
    return 1;
  } finally {
    await opened.close().catch(() => {});
  }
}

function ago(ms: number): string {
  const s = Math.round(Math.abs(ms) / 1000);
  const text =
    s < 90
      ? `${s} s`
      : s < 5400
        ? `${Math.round(s / 60)} min`
        : s < 129_600
          ? `${Math.round(s / 3600)} h`
          : `${Math.round(s / 86_400)} d`;
  return ms >= 0 ? `${text} ago` : `in ${text}`;
}

function iso(at: number): string {
  return Number.isFinite(at) ? new Date(at).toISOString() : String(at);
}

/** One escalation as people read it; every text redacted again (a record may come from anywhere). */
function describeRecord(r: EscalationRecord, now: number, full: boolean): string[] {
  const state =
    r.state === 'pending'
      ? `pending, expires ${ago(now - r.expiresAt)}`
      : r.state === 'expired'
        ? `expired ${ago(now - r.expiresAt)}`
        : `${r.state} by ${r.decidedBy ?? '?'} ${ago(now - (r.decidedAt ?? now))}`;
  const reason = redactText(r.reason);
  const lines = [
    `${r.id}  ${r.action}  ${state}${r.round > 1 ? `  (round ${r.round})` : ''}`,
    `  args      ${redactText(r.args)}`,
    `  asked     ${iso(r.createdAt)} (${ago(now - r.createdAt)})`,
    `  why       ${full ? reason.replace(/\n/g, '\n            ') : (reason.split('\n')[0] ?? '')}`,
  ];
  if (r.deciders.length > 0) lines.push(`  deciders  ${r.deciders.join(', ')}`);
  if (r.state !== 'pending' && r.decidedAt !== undefined)
    lines.push(
      `  decided   ${iso(r.decidedAt)}${r.decidedBy === undefined ? ' (nobody decided in time)' : ` by ${r.decidedBy}`}`,
    );
  if (r.note !== undefined) lines.push(`  note      ${redactText(r.note)}`);
  return lines;
}

/** The record as JSON, texts redacted again. */
function jsonRecord(r: EscalationRecord): EscalationRecord {
  return {
    ...r,
    args: redactText(r.args),
    reason: redactText(r.reason),
    ...(r.note === undefined ? {} : { note: redactText(r.note) }),
  };
}

const listFlags = {
  store: storeFlag,
  state: choiceFlag('STATE', 'only escalations in this state (default: pending)', STATES),
  all: booleanFlag('every kept escalation, whatever its state'),
  limit: integerFlag('N', 'at most N escalations, oldest first (default 100)', 1, 10_000),
  json: booleanFlag('one JSON object per line instead of text'),
};

const listCommand = command({
  name: 'escalations list',
  summary: 'list the escalations waiting for a person (or all of them)',
  synopsis: 'escalations list [--store URL] [--state STATE | --all] [--limit N] [--json]',
  description: [
    'Lists the escalations an agent recorded with escalate(): what it wanted to do (the action and its',
    'arguments, secrets redacted), why it asks (the failure), who may decide, and until when. By default',
    'only the pending ones, oldest first. Decide them with "recourse escalations approve ID" or "deny ID".',
  ].join('\n'),
  flags: listFlags,
  positionals: { min: 0, max: 0 },
  conflicts: [['state', 'all']],
  examples: [
    'recourse escalations list --store sqlite:.agent/state.db',
    'RECOURSE_STORE=postgres://agent@db/agents recourse escalations list --all --json',
  ],
  async run({ flags: f }, io) {
    const spec = storeOf('escalations list', f.store, io);
    if (typeof spec === 'number') return spec;
    return withDesk('escalations list', spec, io, async (desk, where) => {
      const states: EscalationState[] | undefined =
        f.all === true ? undefined : [f.state ?? 'pending'];
      // One record that cannot be decoded is named on stderr; the others are still listed, and the
      // exit code (1) says the list is incomplete.
      let corrupt = 0;
      const found = await desk.list({
        ...(states === undefined ? {} : { states }),
        limit: f.limit ?? 100,
        onCorrupt: (error) => {
          corrupt++;
          io.stderr.write(
            `recourse escalations list: skipped unreadable escalation ${JSON.stringify(error.key)}: ${redactText(errorText(error))}\n`,
          );
        },
      });
      const exit = corrupt === 0 ? 0 : 1;
      if (f.json === true) {
        for (const r of found) io.stdout.write(`${JSON.stringify(jsonRecord(r))}\n`);
        return exit;
      }
      const kind = states === undefined ? '' : `${states[0]} `;
      if (found.length === 0) {
        io.stdout.write(`no ${kind}escalations in ${where}\n`);
        return exit;
      }
      io.stdout.write(
        `${found.length} ${kind}escalation${found.length === 1 ? '' : 's'} in ${where}\n\n`,
      );
      const now = Date.now();
      for (const r of found) io.stdout.write(`${describeRecord(r, now, false).join('\n')}\n\n`);
      return exit;
    });
  },
});

const showCommand = command({
  name: 'escalations show',
  summary: 'show one escalation in full (its whole failure)',
  synopsis: 'escalations show ID [--store URL] [--json]',
  description:
    'Shows one escalation with its whole failure (the explain tree the agent recorded), secrets redacted.',
  flags: { store: storeFlag, json: booleanFlag('the record as JSON') },
  positionals: { min: 1, max: 1 },
  examples: ['recourse escalations show esc_4f1c2a9be03d77a1c2e5 --store sqlite:.agent/state.db'],
  async run({ flags: f, positionals }, io) {
    const spec = storeOf('escalations show', f.store, io);
    if (typeof spec === 'number') return spec;
    const id = positionals[0]!;
    return withDesk('escalations show', spec, io, async (desk, where) => {
      const r = await desk.get(id);
      if (r === undefined) {
        io.stderr.write(
          `recourse escalations show: no escalation with id ${JSON.stringify(id)} in ${where}\n`,
        );
        return 1;
      }
      io.stdout.write(
        f.json === true
          ? `${JSON.stringify(jsonRecord(r))}\n`
          : `${describeRecord(r, Date.now(), true).join('\n')}\n`,
      );
      return 0;
    });
  },
});

function decideCommand(state: 'approved' | 'denied'): Command {
  const verb = state === 'approved' ? 'approve' : 'deny';
  const name = `escalations ${verb}`;
  return command({
    name,
    summary:
      state === 'approved'
        ? 'approve an escalation: the agent runs the action (once)'
        : 'deny an escalation: the action never runs',
    synopsis: `${name} ID [--store URL] [--by NAME] [--note TEXT]`,
    description: [
      state === 'approved'
        ? 'Approves a pending escalation. The agent waiting on it (escalations.wait) goes on, or the next run of the\naction (on any machine sharing the store, also after a restart) runs it, exactly once.'
        : 'Denies a pending escalation. The action is never run for it; the agent gets EscalationDeniedError.',
      'The decision is recorded with who (--by, default the login name) and when, and is final: an',
      'unknown, already decided or expired id is an error (exit 1).',
    ].join('\n'),
    flags: {
      store: storeFlag,
      by: nameFlag('NAME', 'who decides, recorded with the decision (default: your login name)'),
      note: textFlag('TEXT', 'why, recorded with the decision'),
    },
    positionals: { min: 1, max: 1 },
    examples: [
      `recourse ${name} esc_4f1c2a9be03d77a1c2e5 --store sqlite:.agent/state.db --by alice${state === 'denied' ? ' --note "duplicate refund"' : ''}`,
    ],
    async run({ flags: f, positionals }, io) {
      const spec = storeOf(name, f.store, io);
      if (typeof spec === 'number') return spec;
      let by = f.by;
      if (by === undefined) {
        try {
          by = io.env.USER || userInfo().username;
        } catch {
          by = '';
        }
      }
      if (by === '') return usageError(io, name, 'say who decides: --by NAME');
      const id = positionals[0]!;
      const decider = by;
      return withDesk(name, spec, io, async (desk, where) => {
        const options = { by: decider, ...(f.note === undefined ? {} : { note: f.note }) };
        const r =
          state === 'approved' ? await desk.approve(id, options) : await desk.deny(id, options);
        io.stdout.write(
          `${r.id} ${state} by ${decider} at ${iso(r.decidedAt ?? Date.now())} in ${where}\n`,
        );
        io.stdout.write(`  ${r.action} ${redactText(r.args)}\n`);
        return 0;
      });
    },
  });
}

/**
 * `recourse escalations list | show ID | approve ID | deny ID`: the people's side of `escalate()`.
 *
 * @example
 * process.exitCode = await runCli(['escalations', 'approve', 'esc_4f1c2a9be03d77a1c2e5', '--store', 'sqlite:state.db', '--by', 'alice'], io)
 */
export const escalationsGroup: CommandGroup = {
  name: 'escalations',
  summary: 'Decide what agents escalated to a person (escalate()).',
  commands: [listCommand, showCommand, decideCommand('approved'), decideCommand('denied')],
};
