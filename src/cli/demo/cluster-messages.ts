import type { StoreSpec } from '../store-spec.js';

/** What the parent of `recourse demo --workers N` hands each worker process (argv[2], JSON). */
export interface ClusterWorkerConfig {
  /** 1-based, as shown. */
  index: number;
  store: StoreSpec;
  chaosUrl: string;
  /** The shared breaker's name: unique per run, so every run starts from a closed breaker. */
  breakerName: string;
  deepModel: string;
  quickModel: string;
  failureThreshold: number;
  cooldownMs: number;
  /** How long each worker calls, ms. */
  durationMs: number;
  /** Pause between one worker's calls, ms. */
  intervalMs: number;
}

/**
 * What a worker reports to the parent, over the IPC channel. Times are `Date.now()` (one scale on
 * one machine). `call` outcomes: `deep` served by deep-research, `skipped` its breaker was open
 * (no request sent), `failed` deep-research failed, then quick-search served; `lost` both failed.
 */
export type ClusterWorkerMessage =
  | { t: 'ready'; pid: number }
  | { t: 'state'; at: number; from: string; to: string }
  | { t: 'call'; at: number; outcome: 'deep' | 'skipped' | 'failed' | 'lost' }
  | { t: 'deep'; at: number }
  | { t: 'probe'; at: number; endedAt: number; ok: boolean }
  | { t: 'store'; at: number; available: boolean }
  | { t: 'done' }
  | { t: 'fatal'; message: string };

/** What the parent sends a worker once every worker is ready: call from `startAt` (wall clock, ms). */
export interface ClusterGo {
  t: 'go';
  startAt: number;
}
