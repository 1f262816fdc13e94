import type { ClusterWorkerMessage } from './cluster-messages.js';

/** One worker as the parent sees it. */
export interface FleetWorker {
  readonly index: number;
  pid: number | undefined;
  /** Its local copy of the shared breaker. */
  state: string;
  calls: number;
  deep: number;
  skipped: number;
  failed: number;
  lost: number;
  probes: number;
  storeDown: boolean;
  done: boolean;
}

/** A change of the shared breaker, as the fleet lived it. */
export interface FleetEpisode {
  /** `open` (a trip or a failed probe) or `closed` (a good probe). */
  readonly to: 'open' | 'closed';
  /** When the first worker's copy changed. */
  readonly at: number;
  /** The worker whose copy changed first (for a trip: whose failure tripped it, normally). */
  readonly first: number;
  /** When each worker's copy followed, by worker index. */
  readonly seenAt: Map<number, number>;
  /** For `open`: when each worker first skipped deep-research, by worker index. */
  readonly skippedAt: Map<number, number>;
}

/** A probe one worker ran for the whole fleet. */
export interface FleetProbe {
  readonly worker: number;
  readonly at: number;
  readonly endedAt: number;
  readonly ok: boolean;
}

/**
 * The fleet's story, built from the workers' reports: per-worker counts, every change of the
 * shared breaker with when each worker saw it and first skipped the dead path, and every probe.
 *
 * @example
 * const fleet = new Fleet(4); fleet.apply(1, { t: 'call', at: Date.now(), outcome: 'deep' })
 */
export class Fleet {
  readonly workers: FleetWorker[];
  readonly episodes: FleetEpisode[] = [];
  readonly probes: FleetProbe[] = [];
  /** When each deep-research call the breaker let through started, all workers together. */
  readonly deepStarts: number[] = [];

  constructor(count: number) {
    this.workers = Array.from({ length: count }, (_, i) => ({
      index: i + 1,
      pid: undefined,
      state: 'closed',
      calls: 0,
      deep: 0,
      skipped: 0,
      failed: 0,
      lost: 0,
      probes: 0,
      storeDown: false,
      done: false,
    }));
  }

  /** Folds one report of worker `index` in; returns the episode it started, if it started one. */
  apply(index: number, m: ClusterWorkerMessage): FleetEpisode | undefined {
    const w = this.workers[index - 1];
    if (w === undefined) return undefined;
    switch (m.t) {
      case 'ready':
        w.pid = m.pid;
        return undefined;
      case 'state':
        w.state = m.to;
        return this.#state(index, m.at, m.to);
      case 'call':
        w.calls++;
        if (m.outcome === 'deep') w.deep++;
        else if (m.outcome === 'skipped') {
          w.skipped++;
          const open = this.episodes.findLast((e) => e.to === 'open');
          if (open !== undefined && !open.skippedAt.has(index)) open.skippedAt.set(index, m.at);
        } else if (m.outcome === 'failed') w.failed++;
        else w.lost++;
        return undefined;
      case 'deep':
        this.deepStarts.push(m.at);
        return undefined;
      case 'probe':
        w.probes++;
        this.probes.push({ worker: index, at: m.at, endedAt: m.endedAt, ok: m.ok });
        return undefined;
      case 'store':
        w.storeDown = !m.available;
        return undefined;
      case 'done':
        w.done = true;
        return undefined;
      default:
        return undefined;
    }
  }

  /** Probes that ran at the same time as another one (never, when one probe serves the fleet). */
  overlappingProbes(): number {
    const sorted = [...this.probes].sort((a, b) => a.at - b.at);
    let overlaps = 0;
    for (let i = 1; i < sorted.length; i++) if (sorted[i]!.at < sorted[i - 1]!.endedAt) overlaps++;
    return overlaps;
  }

  #state(index: number, at: number, to: string): FleetEpisode | undefined {
    // half-open is the probe's time; the fleet's story is told in opens and closes.
    if (to !== 'open' && to !== 'closed') return undefined;
    const last = this.episodes.at(-1);
    if (last !== undefined && last.to === to && !last.seenAt.has(index)) {
      last.seenAt.set(index, at);
      return undefined;
    }
    if (last === undefined && to === 'closed') return undefined;
    const episode: FleetEpisode = {
      to,
      at,
      first: index,
      seenAt: new Map([[index, at]]),
      skippedAt: new Map(),
    };
    this.episodes.push(episode);
    return episode;
  }
}
