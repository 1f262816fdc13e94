import type { CliOutput } from '../command.js';
import type { Fleet, FleetEpisode } from './cluster-fleet.js';
import type { ClusterWorkerMessage } from './cluster-messages.js';

const CODES = { red: 31, green: 32, yellow: 33, dim: 2, bold: 1 } as const;

const COLUMNS = [
  'worker',
  'pid',
  'calls',
  'deep',
  'skipped',
  'failed',
  'quick',
  'probes',
  'deep-research',
] as const;

/**
 * The cluster demo's live view. A terminal gets a table of the workers redrawn in place with the
 * latest fleet events under it; a pipe gets one line per event. Both end with the same summary.
 *
 * @example
 * const view = new ClusterView(process.stdout, true, fleet)
 */
export class ClusterView {
  readonly #out: CliOutput;
  readonly #color: boolean;
  readonly #fleet: Fleet;
  readonly #tty: boolean;
  readonly #recent: string[] = [];
  #startAt = 0;
  #drawn = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(out: CliOutput, color: boolean, fleet: Fleet) {
    this.#out = out;
    this.#color = color;
    this.#fleet = fleet;
    this.#tty = out.isTTY === true;
  }

  header(lines: string[]): void {
    this.#out.write(`\n${lines.map((l) => `  ${l}`).join('\n')}\n\n`);
  }

  start(startAt: number): void {
    this.#startAt = startAt;
    if (this.#tty) this.#timer = setInterval(() => this.#draw(), 150);
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    if (this.#tty) this.#draw();
  }

  /** One report of worker `index`; `started` is the fleet episode it began, if any. */
  event(index: number, m: ClusterWorkerMessage, started: FleetEpisode | undefined): void {
    const line = this.#describe(index, m, started);
    if (line === undefined) return;
    const text = `${this.#time(m)}  w${index}  ${line}`;
    if (this.#tty) {
      this.#recent.push(text);
      if (this.#recent.length > 8) this.#recent.shift();
    } else this.#out.write(`  ${text}\n`);
  }

  summary(o: { ok: boolean; deepWhileOpen: number; problems: string[] }): void {
    const f = this.#fleet;
    const out: string[] = ['', ...this.#table().map((l) => `  ${l}`), ''];
    const trip = f.episodes.find((e) => e.to === 'open');
    if (trip === undefined)
      out.push('  deep-research never opened (the outage was too short for the threshold)');
    else {
      const others = [...trip.skippedAt.entries()]
        .filter(([i]) => i !== trip.first)
        .sort(([a], [b]) => a - b);
      const seen = [...trip.seenAt.entries()]
        .filter(([i]) => i !== trip.first)
        .map(([, at]) => at - trip.at);
      out.push(
        `  trip: w${trip.first} saw deep-research open first at ${this.#offset(trip.at)}; the other ${f.workers.length - 1} heard it ` +
          `${seen.length > 0 ? `within ${Math.max(...seen)} ms` : '(not yet)'} and skipped it from their next call on ` +
          `(${others.map(([i, at]) => `w${i} +${at - trip.at} ms`).join(', ') || 'no call since'})`,
      );
      const probes = f.probes.map((p) => `w${p.worker} → ${p.ok ? 'ok' : 'failed'}`);
      const overlaps = f.overlappingProbes();
      out.push(
        `  probes: ${f.probes.length} for the whole fleet of ${f.workers.length}, ${overlaps === 0 ? 'one at a time' : `${overlaps} overlapping`} (${probes.join(', ') || 'none'})`,
      );
      out.push(
        `  deep-research calls let through once every worker knew of the trip, until it closed: ${o.deepWhileOpen} (the probes: ${f.probes.length})`,
      );
      const close = f.episodes.findLast((e) => e.to === 'closed');
      const good = f.probes.findLast((p) => p.ok);
      if (close !== undefined && good !== undefined) {
        const follow = [...close.seenAt.values()].map((at) => at - good.endedAt);
        out.push(
          `  closed by w${good.worker}'s probe at ${this.#offset(good.endedAt)}; every worker's copy closed within ${Math.max(...follow)} ms of it`,
        );
      }
    }
    for (const p of o.problems) out.push(`  ${this.#paint('red', `problem: ${p}`)}`);
    out.push(
      o.ok
        ? `  ${this.#paint('green', `✓ one breaker for ${f.workers.length} processes: a trip anywhere is a trip everywhere, and one probe serves them all`)}`
        : `  ${this.#paint('red', '✗ the fleet did not behave as one breaker (see above)')}`,
    );
    this.#out.write(`${out.join('\n')}\n`);
  }

  #describe(
    index: number,
    m: ClusterWorkerMessage,
    started: FleetEpisode | undefined,
  ): string | undefined {
    switch (m.t) {
      case 'ready':
        return `ready (pid ${m.pid})`;
      case 'state': {
        if (m.to === 'half-open') return undefined;
        const label = m.to === 'open' ? this.#paint('red', 'open') : this.#paint('green', m.to);
        if (started !== undefined)
          return `deep-research ${m.from} → ${label}${m.to === 'open' && m.from === 'closed' ? ' (a trip: failures counted across the fleet)' : ''}`;
        const episode = this.#fleet.episodes.at(-1);
        return `deep-research ${label} here too, ${episode === undefined ? '' : `+${m.at - episode.at} ms after w${episode.first}`} (no call of its own needed)`;
      }
      case 'probe':
        return `probed deep-research for the fleet → ${m.ok ? this.#paint('green', 'ok') : this.#paint('red', 'failed')} (${m.endedAt - m.at} ms)`;
      case 'call':
        if (m.outcome === 'skipped') {
          const open = this.#fleet.episodes.findLast((e) => e.to === 'open');
          if (open?.skippedAt.get(index) === m.at)
            return 'skips deep-research (open) → served by quick-search';
        }
        if (m.outcome === 'failed')
          return `deep-research ${this.#paint('yellow', 'failed')} → served by quick-search`;
        if (m.outcome === 'lost') return this.#paint('red', 'both paths failed');
        return undefined;
      case 'store':
        return m.available
          ? 'store answers again: re-syncing'
          : this.#paint('yellow', 'store unavailable: going on from the local copy');
      case 'fatal':
        return this.#paint('red', m.message);
      default:
        return undefined;
    }
  }

  #table(): string[] {
    const rows = this.#fleet.workers.map((w) => [
      `w${w.index}`,
      String(w.pid ?? '—'),
      String(w.calls),
      String(w.deep),
      String(w.skipped),
      String(w.failed),
      String(w.skipped + w.failed),
      String(w.probes),
      `${w.state}${w.storeDown ? ' (store down)' : ''}`,
    ]);
    const widths = COLUMNS.map((c, i) => Math.max(c.length, ...rows.map((r) => r[i]!.length)));
    const line = (cells: readonly string[]): string =>
      cells
        .map((c, i) =>
          i < 2 || i === cells.length - 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!),
        )
        .join('  ');
    return [
      this.#paint('dim', line(COLUMNS)),
      ...rows.map((r) => this.#paintState(line(r), r.at(-1)!)),
    ];
  }

  #draw(): void {
    const lines = [...this.#table(), '', ...this.#recent];
    const up = this.#drawn > 0 ? `\x1b[${this.#drawn}F` : '';
    this.#out.write(`${up}${lines.map((l) => `\x1b[2K  ${l}`).join('\n')}\n`);
    this.#drawn = lines.length;
  }

  #paintState(text: string, state: string): string {
    if (state.startsWith('open')) return this.#paint('red', text);
    if (state.startsWith('half-open')) return this.#paint('yellow', text);
    return text;
  }

  #time(m: ClusterWorkerMessage): string {
    const at = 'at' in m ? m.at : Date.now();
    return this.#offset(at).padStart(8);
  }

  #offset(at: number): string {
    return this.#startAt === 0
      ? ''
      : `${at < this.#startAt ? '−' : '+'}${(Math.abs(at - this.#startAt) / 1000).toFixed(2)} s`;
  }

  #paint(color: keyof typeof CODES, text: string): string {
    return this.#color ? `\x1b[${CODES[color]}m${text}\x1b[0m` : text;
  }
}
